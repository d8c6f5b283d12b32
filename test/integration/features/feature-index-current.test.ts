/**
 * A list answers from the feature index, not by reading every state file again, and is still
 * what the files say: after a state.yml rewritten in place by an agent, a feature deleted, a new
 * one, a worktree added, an issue record added. Real repositories, real files, real git
 * worktrees; readStateTextSync (the scanner's read) is wrapped so the reads can be counted.
 *
 * A file changed within the file system's clock tick (50 ms here) has no identity the index can
 * trust (scanner.ts, as git's "racy" rule), so those lists always read it again: to see the index
 * answer without reading, the clock is moved past that (only Date is faked; the files keep their
 * real times), or the test waits.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventHub } from '../../../src-main/bridge/event-hub';
import { FeatureService, type ProjectFeatures } from '../../../src-main/features/feature-service';
import { formatIssueRecord, ISSUE_FILE } from '../../../src-main/features/issue-input';
import { activeStatePath, mergedStatePath } from '../../../src-main/features/scanner';
import * as stateModule from '../../../src-main/features/state';
import { writeState } from '../../../src-main/features/state';
import { createLogger } from '../../../src-main/platform/logger';
import { ProjectService } from '../../../src-main/projects/project-service';
import { openDatabase, type Database } from '../../../src-main/store/db';
import { WorktreeManager } from '../../../src-main/worktrees/worktree-manager';
import { waitFor } from '../../support/processes';
import { gitIn, tempDir } from '../../support/temp';
import { makeActiveFeature, makeMergedRecord, repoWithOrigin, stateFor, type RepoWithOrigin } from './support/feature-repos';

vi.mock('../../../src-main/features/state', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../src-main/features/state')>();
  return { ...actual, readStateTextSync: vi.fn(actual.readStateTextSync) };
});
const reads = vi.mocked(stateModule.readStateTextSync);

let repo: RepoWithOrigin;
let data: { path: string; cleanup(): void };
let db: Database;
let hub: EventHub;
let features: FeatureService;
let changes: string[];

beforeEach(async () => {
  repo = repoWithOrigin('fd-current-');
  data = tempDir('fd-current-data-');
  db = openDatabase(join(data.path, 'fd.db'));
  hub = new EventHub();
  changes = [];
  hub.subscribe((e) => {
    if (e.topic === 'features.changed') changes.push((e.payload as { repoRoot: string }).repoRoot);
  });
  const log = createLogger({ level: 'error' });
  const projects = new ProjectService(db, hub, log);
  await projects.add(repo.path);
  makeActiveFeature(repo.path, 'alpha', { phases: [{ name: 'p', turns: 3, cost: 0.1 }] });
  makeMergedRecord(repo.path, 'beta');
  features = new FeatureService({ db, log, hub, projects, worktrees: new WorktreeManager(), debounceMs: 50 });
  reads.mockClear();
}, 30_000);

afterEach(async () => {
  vi.useRealTimers();
  await features.dispose();
  db.close();
  data.cleanup();
  repo.cleanup();
});

/** Moves the clock `ms` ahead: every file written so far is then older than the racy window. */
function moveClock(ms: number): void {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + ms);
}

const summary = (projects: ProjectFeatures[]) =>
  projects[0]!.features.map((f) => ({ slug: f.slug, status: f.status, turns: f.turns, issue: f.issue?.number ?? null }));

describe('features.list answers from the index', () => {
  it('reads no state file again while nothing changed, and the one rewritten in place by an agent', async () => {
    expect(summary(await features.list())).toEqual([
      { slug: 'alpha', status: 'in_progress', turns: 3, issue: null },
      { slug: 'beta', status: 'merged', turns: 3, issue: null },
    ]);
    moveClock(5_000);
    await features.list();
    reads.mockClear();
    // Nothing changed: one stat per folder and file, no read.
    expect(summary(await features.list())).toHaveLength(2);
    expect(reads).not.toHaveBeenCalled();

    // An agent rewrites alpha's state in place: same size (3 turns → 7), no watcher running here.
    writeFileSync(activeStatePath(repo.path, 'alpha'), stateModule.serializeState(stateFor('alpha', { phases: [{ name: 'p', turns: 7, cost: 0.1 }] })));
    moveClock(5_000);
    expect(summary(await features.list())[0]).toEqual({ slug: 'alpha', status: 'in_progress', turns: 7, issue: null });
    expect(reads.mock.calls.map((c) => c[0])).toEqual([activeStatePath(repo.path, 'alpha')]);
  }, 30_000);

  it('trusts files written a moment before (past the file system tick, not two seconds): a project added right after its states were written is read once', async () => {
    // The real clock: the features were written in beforeEach; 100 ms later every file and folder is past the racy window.
    await new Promise((r) => setTimeout(r, 100));
    expect(summary(await features.list())).toHaveLength(2);
    expect(reads).toHaveBeenCalledTimes(2);
    reads.mockClear();
    expect(summary(await features.list())).toHaveLength(2);
    expect(reads).not.toHaveBeenCalled();
  }, 30_000);

  it('indexedOnly: a project not indexed yet answers at once as indexing, without features; once indexed, with them', async () => {
    const [first] = await features.list({ indexedOnly: true });
    expect(first).toMatchObject({ features: [], problems: [], error: null, indexing: true });
    expect(reads).not.toHaveBeenCalled();
    // Asked alone (without the flag) it is waited for. Past the racy window (the files were just
    // written), so that what it read holds without a reconcile.
    await new Promise((r) => setTimeout(r, 100));
    expect(summary(await features.list())).toHaveLength(2);
    const [again] = await features.list({ indexedOnly: true });
    expect(again!.indexing).toBeUndefined();
    expect(again!.features.map((f) => f.slug)).toEqual(['alpha', 'beta']);

    // A change not reconciled yet (a run wrote alpha's state): not waited for either.
    writeState(activeStatePath(repo.path, 'alpha'), stateFor('alpha', { phases: [{ name: 'p', turns: 9, cost: 0.1 }] }));
    reads.mockClear();
    const [changed] = await features.list({ indexedOnly: true });
    expect(changed!.indexing).toBe(true);
    expect(reads).not.toHaveBeenCalled();
    expect(summary(await features.list())[0]!.turns).toBe(9);

    // A project whose index fails comes back marked too (asked alone, it reports why), not as a failed list.
    vi.spyOn(features.index, 'currentIfIndexed').mockRejectedValueOnce(new Error('the database is closed'));
    const [failed] = await features.list({ indexedOnly: true });
    expect(failed!.indexing).toBe(true);
  }, 30_000);

  it('drops a deleted feature, adds a new one and a worktree added with its state, at the next list', async () => {
    await features.list();
    moveClock(5_000);
    await features.list();

    rmSync(join(repo.path, '.trees', 'alpha'), { recursive: true, force: true });
    gitIn(repo.path, 'worktree', 'prune');
    expect(summary(await features.list()).map((f) => f.slug)).toEqual(['beta']);

    makeMergedRecord(repo.path, 'gamma');
    expect(summary(await features.list()).map((f) => f.slug)).toEqual(['beta', 'gamma']);

    // A worktree first, its state file only later (as planning does): no feature until the file is there.
    const wt = join(repo.path, '.trees', 'delta');
    gitIn(repo.path, 'worktree', 'add', '-q', '-b', 'feature/delta', wt, 'main');
    moveClock(5_000);
    expect(summary(await features.list()).map((f) => f.slug)).toEqual(['beta', 'gamma']);
    moveClock(5_000);
    await features.list();
    writeState(activeStatePath(repo.path, 'delta'), stateFor('delta', { status: 'planned' }));
    moveClock(5_000);
    expect(summary(await features.list()).find((f) => f.slug === 'delta')).toEqual({ slug: 'delta', status: 'planned', turns: 3, issue: null });
  }, 30_000);

  it('links the issue recorded beside a state file, and follows it while the files are watched', async () => {
    const issueFile = join(dirname(mergedStatePath(repo.path, 'beta')), ISSUE_FILE);
    writeFileSync(issueFile, formatIssueRecord({ number: 12, url: 'https://github.com/o/r/issues/12', title: 'Beta' }));
    expect(summary(await features.list()).find((f) => f.slug === 'beta')?.issue).toBe(12);

    await features.startWatching();
    await features.index.ready();
    moveClock(5_000);
    await features.list();
    changes.length = 0;
    // Only the issue record changes (no state file does): the watcher tells the board, the list shows it.
    vi.useRealTimers();
    writeFileSync(issueFile, formatIssueRecord({ number: 13, url: 'https://github.com/o/r/issues/13', title: 'Beta again' }));
    await waitFor(() => changes.includes(repo.path), 'features.changed after the issue record changed');
    expect(summary(await features.list()).find((f) => f.slug === 'beta')?.issue).toBe(13);

    changes.length = 0;
    rmSync(issueFile);
    await waitFor(() => changes.includes(repo.path), 'features.changed after the issue record was removed');
    expect(summary(await features.list()).find((f) => f.slug === 'beta')?.issue).toBeNull();
  }, 30_000);

  it('lists asked for at once while the index is made scan the files once', async () => {
    const root = await features.repoRoot(repo.path);
    reads.mockClear();
    // Just written files (no identity to trust yet): a call that waited for another's scan must
    // not scan again when that scan began after it was asked.
    const all = await Promise.all([features.index.current(root), features.index.current(root), features.index.current(root)]);
    expect(all[1]).toBe(all[0]);
    expect(all[2]).toBe(all[0]);
    expect(reads.mock.calls.map((c) => c[0]).sort()).toEqual([activeStatePath(repo.path, 'alpha'), mergedStatePath(repo.path, 'beta')].sort());
    // Asked after that scan ended: verified, and (the files still too recent to trust) read again.
    reads.mockClear();
    await features.index.current(root);
    expect(reads).toHaveBeenCalled();
  }, 30_000);

  it('sees a change the watcher has not reported yet (its debounce still waiting)', async () => {
    await features.startWatching();
    await features.index.ready();
    await features.list();
    // Written and listed at once: the watcher's reconcile is still pending, the list does not wait for it.
    writeState(activeStatePath(repo.path, 'alpha'), stateFor('alpha', { status: 'completed', phases: [{ name: 'p', turns: 9, cost: 0.1 }] }));
    expect(summary(await features.list())[0]).toEqual({ slug: 'alpha', status: 'completed', turns: 9, issue: null });
  }, 30_000);
});
