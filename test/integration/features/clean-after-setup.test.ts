import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { activeStatePath } from '../../../src-main/features/scanner';
import { writeState } from '../../../src-main/features/state';
import { recordSetupArtifacts, untrackedEntries } from '../../../src-main/worktrees/setup-artifacts';
import { cli } from '../../support/cli';
import { gitIn, tempDir } from '../../support/temp';
import { commitFile, ignoreTrees, makeActiveFeature, repoWithOrigin, stateFor } from './support/feature-repos';

/**
 * Issue 21 item 4, on a repository set up the way a user has it: the feature was squash-merged
 * on origin (not fetched here), its worktree holds only what setup created, and the next
 * `git pull` must work after clean.
 */
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

describe('feature clean after setup and a merge on origin', () => {
  it('fetches first, sees the squash merge on origin, removes a worktree holding only setup artifacts, and leaves nothing that blocks the next pull', async () => {
    const repo = repoWithOrigin('fd-clean-setup-');
    cleanups.push(repo.cleanup);
    ignoreTrees(repo.path);
    gitIn(repo.path, 'push', '-q', 'origin', 'main');
    const wt = makeActiveFeature(repo.path, 'login');
    commitFile(wt, 'login.js', 'module.exports = () => true;\n', 'login: work');
    gitIn(wt, 'push', '-q', 'origin', 'feature/login');
    // Setup ran `npm install` in the worktree: an untracked lockfile and node_modules.
    const before = await untrackedEntries(wt);
    writeFileSync(join(wt, 'package-lock.json'), '{}\n');
    gitIn(wt, 'rev-parse', 'HEAD'); // the worktree is a real checkout
    await recordSetupArtifacts(wt, before);

    // Someone squash-merges the PR on the host: a second clone merges and pushes.
    const other = tempDir('fd-clean-setup-other-');
    cleanups.push(other.cleanup);
    gitIn(other.path, 'clone', '-q', repo.origin, 'c');
    const c = join(other.path, 'c');
    gitIn(c, 'config', 'user.email', 'o@example.com');
    gitIn(c, 'config', 'user.name', 'Other');
    gitIn(c, 'fetch', '-q', 'origin', 'feature/login');
    gitIn(c, 'merge', '-q', '--squash', 'origin/feature/login');
    gitIn(c, 'commit', '-q', '-m', 'Login (#1)');
    gitIn(c, 'push', '-q', 'origin', 'main');

    const data = tempDir('fd-clean-setup-data-');
    cleanups.push(data.cleanup);
    const fd = (...a: string[]) => cli(...a, `--data-dir=${data.path}`, '--repo', repo.path);
    const done = await fd('feature', 'clean', '--yes', '--json');
    expect(done.code, done.err).toBe(0);
    const report = JSON.parse(done.out) as { removed: { slug: string; historyPath: string | null }[]; failed: unknown[]; notes?: string[] };
    expect(report.failed).toEqual([]);
    expect(report.removed.map((r) => r.slug)).toEqual(['login']);
    // The merge brings the record: no untracked copy in the checkout to collide with it.
    expect(report.removed[0]!.historyPath).toBeNull();
    expect(existsSync(join(repo.path, '.flightdeck', 'login', 'state.yml'))).toBe(false);
    expect(existsSync(wt)).toBe(false);
    // The setup artifact is in the archive.
    const archive = gitIn(repo.path, 'for-each-ref', '--format=%(refname)', 'refs/flightdeck/archive/').trim();
    expect(archive).toContain('refs/flightdeck/archive/login/');

    gitIn(repo.path, 'pull', '-q', '--ff-only', 'origin', 'main');
    expect(existsSync(join(repo.path, '.flightdeck', 'login', 'state.yml'))).toBe(true);
    expect(existsSync(join(repo.path, 'login.js'))).toBe(true);
  }, 90_000);

  it('a base branch that exists nowhere is named, not a failed git merge-base', async () => {
    const repo = repoWithOrigin('fd-clean-nobase-');
    cleanups.push(repo.cleanup);
    ignoreTrees(repo.path);
    const wt = makeActiveFeature(repo.path, 'orphan');
    const s = stateFor('orphan');
    writeState(activeStatePath(repo.path, 'orphan'), { ...s, git: { ...s.git, base_branch: 'develop' } });
    gitIn(wt, 'commit', '-q', '-am', 'base develop');
    const data = tempDir('fd-clean-nobase-data-');
    cleanups.push(data.cleanup);
    const r = await cli('feature', 'clean', '--dry-run', `--data-dir=${data.path}`, '--repo', repo.path);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('its base branch "develop" does not exist in this repository (neither locally nor as origin/develop)');
    expect(r.out).not.toContain('exit 128');
  }, 60_000);
});
