import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../src-main/bridge/event-hub';
import { FeatureService } from '../../../src-main/features/feature-service';
import { activeStatePath } from '../../../src-main/features/scanner';
import { writeState } from '../../../src-main/features/state';
import { createLogger } from '../../../src-main/platform/logger';
import { ProjectService } from '../../../src-main/projects/project-service';
import { openDatabase, type Database } from '../../../src-main/store/db';
import { WorktreeManager } from '../../../src-main/worktrees/worktree-manager';
import { waitFor } from '../../support/processes';
import { tempDir } from '../../support/temp';
import { makeActiveFeature, repoWithOrigin, stateFor, type RepoWithOrigin } from './support/feature-repos';

let repo: RepoWithOrigin;
let data: { path: string; cleanup(): void };
let db: Database;
let features: FeatureService;
const hub = new EventHub();
const changes: { projectId: string | null; repoRoot: string }[] = [];

beforeAll(async () => {
  repo = repoWithOrigin('fd-watch-');
  data = tempDir('fd-watch-data-');
  db = openDatabase(join(data.path, 'fd.db'));
  const log = createLogger({ level: 'error' });
  const projects = new ProjectService(db, hub, log);
  await projects.add(repo.path);
  hub.subscribe((e) => {
    if (e.topic === 'features.changed') changes.push(e.payload as { projectId: string | null; repoRoot: string });
  });
  makeActiveFeature(repo.path, 'watched', { phases: [{ name: 'p', turns: 1, cost: 0.1 }] });
  features = new FeatureService({ db, log, hub, projects, worktrees: new WorktreeManager(), debounceMs: 50 });
  await features.startWatching();
  await features.index.ready();
}, 30_000);

afterAll(async () => {
  await features.dispose();
  db.close();
  data.cleanup();
  repo.cleanup();
});

const rowOf = (slug: string) => features.index.cached(repo.path).rows.find((r) => r.slug === slug);

describe('the index follows state files changed outside Flightdeck', () => {
  it('reconciles at start, then after each external change, and tells the board', async () => {
    expect(rowOf('watched')?.state?.total.turns).toBe(1);
    const projectId = (await features.list())[0]!.projectId;
    expect(projectId).not.toBeNull();
    changes.length = 0;

    // Another process (an agent, git, an editor) rewrites the state.
    writeState(activeStatePath(repo.path, 'watched'), stateFor('watched', { status: 'completed', phases: [{ name: 'p', turns: 7, cost: 0.7 }] }));
    await waitFor(() => rowOf('watched')?.state?.total.turns === 7, 'the rewritten state in the index');
    expect(rowOf('watched')?.state?.status).toBe('completed');
    expect(changes).toContainEqual({ projectId, repoRoot: repo.path });

    // It breaks: the good row stays, marked.
    writeFileSync(activeStatePath(repo.path, 'watched'), 'status: [\n');
    await waitFor(() => rowOf('watched')?.problem, 'the problem of the broken file in the index');
    expect(rowOf('watched')?.state?.total.turns).toBe(7);

    // A new feature appears, then a worktree folder vanishes.
    makeActiveFeature(repo.path, 'second');
    await waitFor(() => rowOf('second'), 'the new feature in the index');
    rmSync(join(repo.path, '.trees', 'second'), { recursive: true, force: true });
    await waitFor(() => rowOf('second') === undefined, 'the vanished feature gone from the index');
  }, 60_000);
});

describe('projects leaving Flightdeck', () => {
  it('a scan still running when its project leaves writes nothing (the rows stay dropped)', async () => {
    const idx = features.index;
    await idx.reconcile(repo.path);
    expect(idx.cached(repo.path).rows.length).toBeGreaterThan(0);
    // The scan reads files asynchronously: the project is forgotten before it ends.
    const scanning = idx.reconcile(repo.path);
    idx.forgetExcept([]);
    await scanning;
    expect(idx.cached(repo.path).rows).toEqual([]);
    // Back as a project: scanned again.
    idx.forgetExcept([repo.path]);
    await idx.reconcile(repo.path);
    expect(idx.cached(repo.path).rows.length).toBeGreaterThan(0);
  });

  it('a removed project stops being watched and its rows are dropped; its files stay', async () => {
    const projectId = (await features.list())[0]!.projectId!;
    expect(features.index.cached(repo.path).rows.length).toBeGreaterThan(0);
    const projects = new ProjectService(db, hub, createLogger({ level: 'error' }));
    projects.remove(projectId);
    await waitFor(() => features.index.cached(repo.path).rows.length === 0, 'the rows of the removed project dropped');
    expect(existsSync(activeStatePath(repo.path, 'watched'))).toBe(true);
  }, 30_000);
});
