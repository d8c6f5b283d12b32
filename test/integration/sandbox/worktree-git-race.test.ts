/**
 * A worktree command's sandbox lists the other branches of its branch folder to protect them,
 * then starts bubblewrap. The host's git keeps working meanwhile: a commit on another candidate's
 * branch holds `<branch>.lock` for a moment, a pick deletes the losers' branches. A protected
 * file gone by the time bubblewrap mounts must not fail the command (it failed a feature's check
 * with "Can't find source path", and the run with it); what is still there stays read-only.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_NETWORK } from '../../../src-main/sandbox/policy';
import { resetSandboxProbes, sandboxArgv } from '../../../src-main/sandbox/sandbox-runtime';
import { gitIn, makeRepo } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
  resetSandboxProbes();
});

describe('a worktree command while the host changes the branch folder', () => {
  it('runs when a listed branch was deleted before mounting; a lock file in flight is not held; the branches still there are read-only', async () => {
    const repo = makeRepo('fd-wt-race-');
    cleanups.push(repo.cleanup);
    const root = realpathSync(repo.path);
    const tree = join(root, '.trees', 'c1');
    gitIn(root, 'worktree', 'add', '-q', '-b', 'feature/sum--c1', tree);
    gitIn(root, 'branch', 'feature/sum--c2');
    gitIn(root, 'branch', 'feature/sum--c3');
    const heads = join(root, '.git', 'refs', 'heads', 'feature');
    // Another candidate's commit in flight: its lock file beside its ref.
    writeFileSync(join(heads, 'sum--c3.lock'), `${gitIn(root, 'rev-parse', 'main').trim()}\n`);

    const argv = await sandboxArgv(['bash', '-c', 'git status --short >/dev/null && echo ran; echo x > "$1" 2>/dev/null || echo refused', 'cmd', join(heads, 'sum--c3')], { mode: 'workspace-write', root: tree, network: DEFAULT_NETWORK }, tree);
    // The branches are listed to protect; the lock (a host git update in flight) is not.
    expect(argv.join(' ')).toContain(join(heads, 'sum--c2'));
    expect(argv.join(' ')).toContain(join(heads, 'sum--c3'));
    expect(argv.join(' ')).not.toContain('.lock');
    // Before bubblewrap starts, the commit ends (its lock renamed away) and a pick deletes c2.
    rmSync(join(heads, 'sum--c3.lock'));
    gitIn(root, 'branch', '-D', 'feature/sum--c2');
    const c3 = readFileSync(join(heads, 'sum--c3'), 'utf8');

    const r = spawnSync(argv[0]!, argv.slice(1), { cwd: tree, encoding: 'utf8' });
    expect(r.stderr).not.toMatch(/Can't find source path/);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('ran');
    // The branch still there is still protected.
    expect(r.stdout).toContain('refused');
    expect(readFileSync(join(heads, 'sum--c3'), 'utf8')).toBe(c3);
    expect(existsSync(join(heads, 'sum--c2'))).toBe(false);
  });
});
