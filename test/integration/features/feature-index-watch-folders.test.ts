/**
 * The feature index's watcher watches the folders that lead to state files, found by its scans,
 * not a crawl of every worktree (state-watcher.ts), and still sees what the index relies on: a
 * worktree whose `.flightdeck` folder and state file come one step at a time, a feature folder
 * moved away and replaced (its old watch follows the moved folder), a folder swapped for a
 * symlink, and a state or issue file changed after a scan but before its folder was watched.
 * Real folders, real file-system events; nothing is listed by the test.
 */
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FeatureIndex } from '../../../src-main/features/feature-index';
import { formatIssueRecord, ISSUE_FILE } from '../../../src-main/features/issue-input';
import { activeStatePath, mergedStatePath } from '../../../src-main/features/scanner';
import { writeState } from '../../../src-main/features/state';
import { silentLogger } from '../../../src-main/platform/logger';
import { openDatabase, type Database } from '../../../src-main/store/db';
import { waitFor } from '../../support/processes';
import { tempDir } from '../../support/temp';
import { makeActiveFeature, makeMergedRecord, repoWithOrigin, stateFor, type RepoWithOrigin } from './support/feature-repos';

let repo: RepoWithOrigin;
let data: { path: string; cleanup(): void };
let outside: { path: string; cleanup(): void };
let db: Database;
let index: FeatureIndex;
let changed: number;

beforeEach(() => {
  repo = repoWithOrigin('fd-watch-folders-');
  data = tempDir('fd-watch-folders-data-');
  outside = tempDir('fd-watch-folders-outside-');
  db = openDatabase(join(data.path, 'fd.db'));
  makeActiveFeature(repo.path, 'alpha', { phases: [{ name: 'p', turns: 1, cost: 0.1 }] });
  makeMergedRecord(repo.path, 'beta', { phases: [{ name: 'build', turns: 2, cost: 0.1 }] });
  // A worktree's own sources: never watched.
  mkdirSync(join(repo.path, '.trees', 'alpha', 'src', 'deep'), { recursive: true });
  writeFileSync(join(repo.path, '.trees', 'alpha', 'src', 'deep', 'a.ts'), 'export {};\n');
  changed = 0;
  index = new FeatureIndex({ db, log: silentLogger, debounceMs: 30, onChanged: () => changed++ });
}, 30_000);

afterEach(async () => {
  vi.useRealTimers();
  await index.dispose();
  db.close();
  data.cleanup();
  outside.cleanup();
  repo.cleanup();
});

const rowOf = (slug: string) => index.cached(repo.path).rows.find((r) => r.slug === slug);
const watched = () => index.watchedFolders(repo.path).map((p) => relative(repo.path, p) || '.');

describe('the state watcher', () => {
  it('watches only the folders on the way to state files, found by the first scan', async () => {
    index.watch([repo.path]);
    await index.ready();
    expect(rowOf('alpha')?.state?.total.turns).toBe(1);
    expect(watched()).toEqual(['.', '.flightdeck', '.flightdeck/beta', '.trees', '.trees/alpha', '.trees/alpha/.flightdeck', '.trees/alpha/.flightdeck/alpha']);
  });

  it('follows a worktree whose .flightdeck folder and state file come one step at a time', async () => {
    index.watch([repo.path]);
    await index.ready();
    const wt = join(repo.path, '.trees', 'gamma');
    mkdirSync(join(wt, 'src'), { recursive: true });
    await waitFor(() => watched().includes('.trees/gamma'), 'the new worktree folder watched');
    mkdirSync(join(wt, '.flightdeck'));
    await waitFor(() => watched().includes('.trees/gamma/.flightdeck'), 'its .flightdeck folder watched');
    mkdirSync(join(wt, '.flightdeck', 'gamma'));
    await waitFor(() => watched().includes('.trees/gamma/.flightdeck/gamma'), 'its feature folder watched');
    expect(rowOf('gamma')).toBeUndefined();
    writeState(activeStatePath(repo.path, 'gamma'), stateFor('gamma', { phases: [{ name: 'build', turns: 4, cost: 0.1 }] }));
    await waitFor(() => rowOf('gamma')?.state?.total.turns === 4, 'the state file written last in the index');
    expect(watched()).not.toContain('.trees/gamma/src');
  });

  it('sees the state file of a feature folder put in place of one moved away (the old watch followed the moved folder)', async () => {
    index.watch([repo.path]);
    await index.ready();
    const folder = dirname(mergedStatePath(repo.path, 'beta'));
    // Moved away and replaced at once (a checkout, a restore): no reconcile sees the folder missing.
    renameSync(folder, join(outside.path, 'beta-old'));
    makeMergedRecord(repo.path, 'beta', { phases: [{ name: 'build', turns: 5, cost: 0.1 }] });
    await waitFor(() => rowOf('beta')?.state?.total.turns === 5, 'the new beta folder in the index');
    // A change inside the new folder: seen only by a watch of the new folder, not of the moved one.
    writeState(mergedStatePath(repo.path, 'beta'), stateFor('beta', { status: 'completed', phases: [{ name: 'build', turns: 9, cost: 0.1 }] }));
    await waitFor(() => rowOf('beta')?.state?.total.turns === 9, 'the rewritten state of the new beta folder');
    // The moved folder changes too: no longer the feature's, nothing follows it.
    writeState(join(outside.path, 'beta-old', 'state.yml'), stateFor('beta', { phases: [{ name: 'build', turns: 11, cost: 0.1 }] }));
    await new Promise((r) => setTimeout(r, 200));
    expect(rowOf('beta')?.state?.total.turns).toBe(9);
  });

  it('sees a worktree\'s .flightdeck folder swapped for a symlink', async () => {
    index.watch([repo.path]);
    await index.ready();
    const folder = join(repo.path, '.trees', 'alpha', '.flightdeck');
    renameSync(folder, join(outside.path, 'alpha-flightdeck'));
    symlinkSync(join(outside.path, 'alpha-flightdeck'), folder);
    // Read through a link no more: the row keeps its last good state, marked with the problem.
    await waitFor(() => rowOf('alpha')?.problem, 'the problem of the linked state file');
    expect(rowOf('alpha')?.state?.total.turns).toBe(1);
    // Nor watched through it (fs.watch would follow the link out of the repository).
    expect(watched()).toEqual(['.', '.flightdeck', '.flightdeck/beta', '.trees', '.trees/alpha']);
    // A real folder put back is watched again, found by its parent's watch.
    renameSync(folder, join(outside.path, 'alpha-link'));
    renameSync(join(outside.path, 'alpha-flightdeck'), folder);
    await waitFor(() => watched().includes('.trees/alpha/.flightdeck/alpha') && !rowOf('alpha')?.problem, 'the real folder watched and read again');
  });

  it('watches no folder through a symlink a worktree holds from the start', async () => {
    mkdirSync(join(outside.path, 'gamma'), { recursive: true });
    mkdirSync(join(repo.path, '.trees', 'gamma'));
    symlinkSync(outside.path, join(repo.path, '.trees', 'gamma', '.flightdeck'));
    index.watch([repo.path]);
    await index.ready();
    expect(watched()).toEqual(['.', '.flightdeck', '.flightdeck/beta', '.trees', '.trees/alpha', '.trees/alpha/.flightdeck', '.trees/alpha/.flightdeck/alpha', '.trees/gamma']);
  });

  it('a state file changed after the last scan but before the watch began is reconciled without a list', async () => {
    // Files older than the racy window (only Date is faked): the scan records their identities.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 5_000);
    await index.reconcile(repo.path);
    expect(rowOf('alpha')?.state?.total.turns).toBe(1);
    // Not watched yet: nothing reports it.
    writeState(activeStatePath(repo.path, 'alpha'), stateFor('alpha', { phases: [{ name: 'p', turns: 6, cost: 0.1 }] }));
    changed = 0;
    index.watch([repo.path]);
    await waitFor(() => rowOf('alpha')?.state?.total.turns === 6, 'the state changed before the watch, in the index');
    expect(changed).toBeGreaterThan(0);
  });

  it('an issue file written after the last scan but before the watch began is linked without a list', async () => {
    await index.reconcile(repo.path);
    expect(index.cached(repo.path).issues.get('beta')).toBeUndefined();
    writeFileSync(join(dirname(mergedStatePath(repo.path, 'beta')), ISSUE_FILE), formatIssueRecord({ number: 77, url: 'https://github.com/o/r/issues/77', title: 'Seventy-seven' }));
    changed = 0;
    index.watch([repo.path]);
    await waitFor(() => index.cached(repo.path).issues.get('beta')?.number === 77, 'the issue recorded before the watch');
    expect(changed).toBeGreaterThan(0);
  });
});
