/**
 * A cancelled git call ends when git has ended, not when it was told to: git removes its lock
 * files (index.lock, a ref's lock) on SIGTERM, and the caller's next git in the same repository
 * must not find them. Node's execFile answers an abort at once; git.ts waits for the exit, and
 * kills a git that does not end within its grace.
 */
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, GitError, gitThen } from '../../../src-main/git/git';
import { isAlive, waitFor } from '../../support/processes';
import { makeRepo, tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

/** A pid a stand-in wrote (whole: written aside and moved into place); never 0, which would mean the whole group. */
function pidIn(file: string): number {
  const pid = Number(readFileSync(file, 'utf8'));
  if (!(pid > 0)) throw new Error(`no pid in ${file}`);
  return pid;
}

/** A stand-in `git` (first on the call's PATH) running `body`; its folder and environment. */
function standIn(body: string): { dir: string; env: Record<string, string>; pidFile: string } {
  const d = tempDir('fd-git-cancel-');
  cleanups.push(d.cleanup);
  const bin = join(d.path, 'bin');
  mkdirSync(bin);
  const pidFile = join(d.path, 'pid');
  writeFileSync(join(bin, 'git'), `#!/bin/sh\necho $$ > ${pidFile}.tmp; mv ${pidFile}.tmp ${pidFile}\n${body}\n`);
  chmodSync(join(bin, 'git'), 0o755);
  return { dir: d.path, env: { PATH: `${bin}:${process.env.PATH ?? ''}` }, pidFile };
}

describe('a cancelled git call', () => {
  it('answers once git has ended: the lock file git removes on SIGTERM is gone by then', async () => {
    // Like git: holds a lock while it works, and removes it (slowly here) when told to stop.
    const s = standIn(`trap 'sleep 0.4; rm -f "$PWD/index.lock"; exit 143' TERM; touch "$PWD/index.lock"; while :; do sleep 0.05; done`);
    const abort = new AbortController();
    const call = git(['status'], { cwd: s.dir, env: s.env, signal: abort.signal }).catch((e: unknown) => e);
    await waitFor(() => existsSync(s.pidFile) && existsSync(join(s.dir, 'index.lock')), 'git started and took its lock', 10_000);
    const pid = pidIn(s.pidFile);
    abort.abort();
    const e = await call;
    expect(existsSync(join(s.dir, 'index.lock'))).toBe(false);
    expect(isAlive(pid)).toBe(false);
    // Stopped by the app: no exit code of git's.
    expect(e).toBeInstanceOf(GitError);
    expect((e as GitError).exitCode).toBeNull();
  }, 30_000);

  it('kills a git that does not end when told to, after its grace', async () => {
    const s = standIn(`trap '' TERM; while :; do sleep 0.05; done`);
    const abort = new AbortController();
    const call = git(['status'], { cwd: s.dir, env: s.env, signal: abort.signal }).catch((e: unknown) => e);
    await waitFor(() => existsSync(s.pidFile), 'git started', 10_000);
    const pid = pidIn(s.pidFile);
    abort.abort();
    const e = await call;
    expect(isAlive(pid)).toBe(false);
    expect(e).toBeInstanceOf(GitError);
  }, 30_000);

  it("kills gitThen's first command too when it ignores the stop: nothing is left holding the repository", async () => {
    const s = standIn(`case " $* " in *" add "*) trap '' TERM; while :; do sleep 0.05; done;; esac`);
    const abort = new AbortController();
    const call = gitThen(['add'], ['commit'], { cwd: s.dir, env: s.env, signal: abort.signal }).catch((e: unknown) => e);
    await waitFor(() => existsSync(s.pidFile), 'the first command started', 10_000);
    const pid = pidIn(s.pidFile);
    abort.abort();
    expect(await call).toBeInstanceOf(GitError);
    await waitFor(() => !isAlive(pid), 'the first command ended', 2_000);
  }, 30_000);
});

describe('a cancelled git on a real repository', () => {
  it('git add of a real package, cancelled mid-way: no index.lock is left when the call answers, and the next git in the repository works', async () => {
    const repo = makeRepo('fd-git-cancel-real-');
    cleanups.push(repo.cleanup);
    // A real package (23 MB of TypeScript's compiler): git add hashes it for a few hundred ms.
    cpSync(join(process.cwd(), 'node_modules/typescript'), join(repo.path, 'typescript'), { recursive: true });
    const lock = join(repo.path, '.git/index.lock');
    const abort = new AbortController();
    const call = git(['add', '-A', '--', '.'], { cwd: repo.path, signal: abort.signal }).catch((e: unknown) => e);
    await waitFor(() => existsSync(lock), 'git add to take the index lock', 10_000, 2);
    // Git makes the lock file a moment before it sets up its removal on a signal: a stop in
    // between would leave the lock (git's own window, not the app's); hashing the package takes
    // a few hundred ms, so 20 ms on the stop still comes mid-way.
    await new Promise((r) => setTimeout(r, 20));
    abort.abort();
    expect(await call).toBeInstanceOf(GitError);
    expect(existsSync(lock)).toBe(false);
    // The next git of the caller: not "Unable to create '.git/index.lock': File exists".
    await git(['add', '-A', '--', '.'], { cwd: repo.path });
    expect(await git(['diff', '--cached', '--name-only', '--', 'typescript/package.json'], { cwd: repo.path })).toBe('typescript/package.json\n');
  }, 60_000);
});

describe('a git call past its time limit', () => {
  it('is killed when it ignores the timeout\'s SIGTERM, and the call ends', async () => {
    const s = standIn(`trap '' TERM; while :; do sleep 0.05; done`);
    const call = git(['status'], { cwd: s.dir, env: s.env, timeoutMs: 300 }).catch((e: unknown) => e);
    await waitFor(() => existsSync(s.pidFile), 'git started', 10_000);
    const pid = pidIn(s.pidFile);
    const e = await call;
    expect(isAlive(pid)).toBe(false);
    expect(e).toBeInstanceOf(GitError);
    expect((e as GitError).exitCode).toBeNull();
  }, 30_000);
});

describe('what git started', () => {
  /**
   * A stand-in git that starts a helper (as git starts pack-objects, ssh or a filter) and waits
   * on it (an ignored SIGTERM is inherited: `trap '' TERM` makes the helper ignore it too). A killed helper closes its end of git's output a moment before the kernel marks it
   * dead, so the tests allow it that moment (without the group stop it lives for 1,000 s).
   */
  function withHelper(trap: string): { s: ReturnType<typeof standIn>; helperPid: () => number } {
    // The helper is git's grandchild (git → a shell → the helper), as ssh is under a remote helper.
    const s = standIn(`${trap}; sh -c 'sleep 1000 & echo $! > "$0.tmp"; mv "$0.tmp" "$0"; wait' "${'$'}{0%/bin/git}/helper" & wait`);
    return { s, helperPid: () => pidIn(join(s.dir, 'helper')) };
  }

  it('is stopped with git on a cancel: no helper of git is left running after the call answers', async () => {
    const { s, helperPid } = withHelper(':');
    const abort = new AbortController();
    const call = git(['fetch'], { cwd: s.dir, env: s.env, signal: abort.signal }).catch((e: unknown) => e);
    await waitFor(() => existsSync(join(s.dir, 'helper')), 'git started its helper', 10_000);
    const helper = helperPid();
    expect(isAlive(helper)).toBe(true);
    abort.abort();
    const e = await call;
    expect(e).toBeInstanceOf(GitError);
    expect((e as GitError).stoppedFor).toBe('cancel');
    await waitFor(() => !isAlive(helper), 'the helper ended', 2_000);
  }, 30_000);

  it('is killed with git at the time limit, also when git and its helper ignore SIGTERM', async () => {
    const { s, helperPid } = withHelper(`trap '' TERM`);
    const call = git(['fetch'], { cwd: s.dir, env: s.env, timeoutMs: 300 }).catch((e: unknown) => e);
    await waitFor(() => existsSync(join(s.dir, 'helper')), 'git started its helper', 10_000);
    const helper = helperPid();
    const e = await call;
    expect(e).toBeInstanceOf(GitError);
    expect((e as GitError).stoppedFor).toBe('timeout');
    expect((e as GitError).message).toMatch(/did not finish within 300 ms/);
    await waitFor(() => !isAlive(helper), 'the helper ended', 2_000);
  }, 30_000);

  it('is stopped with git when git prints past the output limit, and the call says why', async () => {
    const s = standIn(`sleep 1000 & echo $! > "${'$'}{0%/bin/git}/helper.tmp"; mv "${'$'}{0%/bin/git}/helper.tmp" "${'$'}{0%/bin/git}/helper"; head -c 200000 /dev/zero; wait`);
    const e = await git(['show'], { cwd: s.dir, env: s.env, maxOutputBytes: 64 * 1024 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(GitError);
    expect((e as GitError).stoppedFor).toBe('overflow');
    const helper = pidIn(join(s.dir, 'helper'));
    await waitFor(() => !isAlive(helper), 'the helper ended', 2_000);
  }, 30_000);

  it('does not keep a cancelled call waiting when a process that left the group holds git\'s output open', async () => {
    // setsid: out of git's group (the stop cannot reach it), with git's stdout still open.
    const s = standIn(`setsid sleep 1000 & echo $! > "${'$'}{0%/bin/git}/helper.tmp"; mv "${'$'}{0%/bin/git}/helper.tmp" "${'$'}{0%/bin/git}/helper"; while :; do sleep 0.05; done`);
    const abort = new AbortController();
    const call = git(['fetch'], { cwd: s.dir, env: s.env, signal: abort.signal }).catch((e: unknown) => e);
    await waitFor(() => existsSync(join(s.dir, 'helper')) && existsSync(s.pidFile), 'git started its helper', 10_000);
    const helper = pidIn(join(s.dir, 'helper'));
    cleanups.push(() => process.kill(helper, 'SIGKILL'));
    abort.abort();
    const e = await call;
    // Answered without git's output ever closing: given up on after the kill.
    expect((e as GitError).stoppedFor).toBe('cancel');
    expect(isAlive(pidIn(s.pidFile))).toBe(false);
    expect(isAlive(helper)).toBe(true);
  }, 30_000);

  /** Runs the fixture that starts a git and then ends as `how` says; git's and its helper's pids. */
  function endWhileGitRuns(how: 'exit' | 'sigint' | 'sigint-handled'): { r: ReturnType<typeof spawnSync>; s: ReturnType<typeof standIn>; gitPid: number; helper: number } {
    const { s, helperPid } = withHelper(':');
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(process.cwd(), 'test/fixtures/git/exit-while-git-runs.ts'), s.dir, how], { encoding: 'utf8', timeout: 20_000 });
    const gitPid = pidIn(s.pidFile);
    const helper = helperPid();
    cleanups.push(() => {
      for (const pid of [gitPid, helper]) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    });
    return { r, s, gitPid, helper };
  }

  it("is told to stop when the app exits while git runs (git no longer shares the app's process group)", async () => {
    const { r, gitPid, helper } = endWhileGitRuns('exit');
    expect(r.status, String(r.stderr)).toBe(0);
    await waitFor(() => !isAlive(gitPid) && !isAlive(helper), 'git and its helper ended', 2_000);
  }, 30_000);

  it('is told to stop on a Ctrl+C nothing in the app handles, and the app still dies of the signal', async () => {
    const { r, gitPid, helper } = endWhileGitRuns('sigint');
    expect(r.signal, String(r.stderr)).toBe('SIGINT');
    await waitFor(() => !isAlive(gitPid) && !isAlive(helper), 'git and its helper ended', 2_000);
  }, 30_000);

  it("leaves a Ctrl+C to the app's own handler, and stops git when that handler exits", async () => {
    const { r, s, gitPid, helper } = endWhileGitRuns('sigint-handled');
    expect(r.status, String(r.stderr)).toBe(0);
    // Once: the app's own handler is left to it, not followed by a SIGINT raised again.
    expect(readFileSync(join(s.dir, 'handled'), 'utf8')).toBe('handled\n');
    await waitFor(() => !isAlive(gitPid) && !isAlive(helper), 'git and its helper ended', 2_000);
  }, 30_000);

  it('is left alone when git ends by itself (a helper that outlives git on purpose)', async () => {
    // Like a credential cache daemon: started by git, meant to outlive it; its output closed.
    const s = standIn(`sleep 1000 >/dev/null 2>&1 & echo $! > "${'$'}{0%/bin/git}/helper.tmp"; mv "${'$'}{0%/bin/git}/helper.tmp" "${'$'}{0%/bin/git}/helper"; echo done`);
    expect(await git(['status'], { cwd: s.dir, env: s.env })).toBe('done\n');
    const helper = pidIn(join(s.dir, 'helper'));
    cleanups.push(() => process.kill(helper, 'SIGKILL'));
    expect(isAlive(helper)).toBe(true);
  }, 30_000);
});

describe('a git that cannot be started', () => {
  it('fails at once when too few file descriptors are left to start it, instead of an uncaught error or a wait for the time limit', () => {
    const fixture = join(process.cwd(), 'test/fixtures/git/git-without-descriptors.ts');
    const r = spawnSync('/bin/sh', ['-c', `ulimit -n 512 && exec "$0" --import tsx "$1"`, process.execPath, fixture], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status, r.stderr).toBe(0);
    // Answered by the failed start itself (its time limit is 10 minutes, past this test's 30 s).
    const outcome = JSON.parse(r.stdout.trim().split('\n').pop()!) as { ok: boolean; message: string };
    expect(outcome).toMatchObject({ ok: false, message: expect.stringMatching(/too many files are open \(EMFILE\)/) });
  }, 40_000);
});

