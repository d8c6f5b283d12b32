/**
 * gitThen: two git commands as one call (a feature run's add and commit). The second runs only
 * when the first succeeded; a failure is the first's when it failed; each command starts with its
 * stdio only; a timeout or a cancel ends the first command too, not only the shell that waits for
 * it; and what the repository's config would make either command run is refused before anything runs.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import { GitError, gitThen, observeGit } from '../../../src-main/git/git';
import { requireNative } from '../../../src-main/platform/native';
import { waitFor } from '../../support/processes';
import { gitIn, makeRepo, setGitIdentity, tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => {
  observeGit(null);
  while (cleanups.length) cleanups.pop()!();
});

function repo(): string {
  const r = makeRepo('fd-git-then-');
  cleanups.push(r.cleanup);
  setGitIdentity(r.path);
  return r.path;
}

/** A stand-in `git` (first on the call's PATH) running `body` with the call's arguments; its folder. */
function standIn(body: string): { dir: string; env: Record<string, string> } {
  const d = tempDir('fd-git-then-bin-');
  cleanups.push(d.cleanup);
  const bin = join(d.path, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'git'), `#!/bin/sh\n${body}\n`);
  chmodSync(join(bin, 'git'), 0o755);
  return { dir: d.path, env: { PATH: `${bin}:${process.env.PATH ?? ''}` } };
}

/** The state letter of a process (Z: ended, not yet reaped), or null when it is gone. */
function processState(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0]!;
  } catch {
    return null;
  }
}

describe('gitThen', () => {
  it('runs the second command after the first, in one call, and answers with what it printed', async () => {
    const wt = repo();
    writeFileSync(join(wt, 'a.txt'), 'a\n');
    writeFileSync(join(wt, 'b.txt'), 'b\n');
    const calls: Array<{ args: readonly string[]; then?: readonly string[] }> = [];
    observeGit((c) => calls.push({ args: c.args, ...(c.then ? { then: c.then } : {}) }));
    expect(await gitThen(['add', '--', 'a.txt'], ['diff', '--cached', '--name-only'], { cwd: wt })).toBe('a.txt\n');
    expect(await gitThen(['add', '--all', '--', '.'], ['commit', '--quiet', '-m', 'both'], { cwd: wt })).toBe('');
    expect(gitIn(wt, 'show', '--name-only', '--format=%s', 'HEAD').trim().split('\n')).toEqual(['both', '', 'a.txt', 'b.txt']);
    expect(calls.map((c) => `${c.args[0]}+${c.then?.[0]}`)).toEqual(['add+diff', 'add+commit']);
  });

  it('a first command that fails is the failure, with its exit code and message, and the second never runs', async () => {
    const wt = repo();
    writeFileSync(join(wt, 'a.txt'), 'a\n');
    gitIn(wt, 'add', 'a.txt');
    gitIn(wt, 'commit', '-q', '-m', 'one');
    const head = gitIn(wt, 'rev-parse', 'HEAD');
    writeFileSync(join(wt, 'a.txt'), 'changed\n');
    const e = await gitThen(['add', '--', 'missing.txt'], ['commit', '--quiet', '-a', '-m', 'never'], { cwd: wt }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(GitError);
    expect((e as GitError).exitCode).toBe(128);
    expect((e as GitError).message).toBe("fatal: pathspec 'missing.txt' did not match any files");
    expect(gitIn(wt, 'rev-parse', 'HEAD')).toBe(head);
    // A second command that fails is the failure too: git's own answer, on stdout.
    gitIn(wt, 'checkout', '--', 'a.txt');
    const nothing = await gitThen(['add', '--', 'a.txt'], ['commit', '--quiet', '-m', 'nothing'], { cwd: wt }).catch((x: unknown) => x);
    expect((nothing as GitError).exitCode).toBe(1);
    expect((nothing as GitError).stdout).toMatch(/nothing to commit/);
  });

  it("a failing second command is reported in its own words, not the first's warnings", async () => {
    const wt = repo();
    // `git add` warns on stderr about the line endings it will change, and succeeds.
    gitIn(wt, 'config', 'core.autocrlf', 'true');
    writeFileSync(join(wt, 'a.txt'), 'a\n');
    // The control: the same add alone does warn.
    writeFileSync(join(wt, 'b.txt'), 'b\n');
    expect(spawnSync('git', ['add', '--', 'b.txt'], { cwd: wt, encoding: 'utf8' }).stderr).toMatch(/LF will be replaced/);
    gitIn(wt, 'reset', '-q', '--', 'b.txt');
    const e = await gitThen(['add', '--', 'a.txt'], ['commit', '--no-such-option'], { cwd: wt }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(GitError);
    expect((e as GitError).exitCode).toBe(129);
    expect((e as GitError).message).toBe("error: unknown option `no-such-option'");
    expect((e as GitError).stderr).not.toMatch(/LF will be replaced/);
    // The add ran (the warning was its own): the file is staged.
    expect(gitIn(wt, 'diff', '--cached', '--name-only')).toBe('a.txt\n');
  });

  it('takes only git add as the first command (both are checked before either runs)', async () => {
    const wt = repo();
    await expect(gitThen(['tag', 'v1'], ['commit', '--allow-empty', '-m', 'x'], { cwd: wt })).rejects.toThrow(/first command must be git add/);
    expect(gitIn(wt, 'tag', '--list')).toBe('');
  });

  it("refuses before either command runs when the repository's config names a program they would run", async () => {
    const wt = repo();
    const marker = join(wt, '..', `then-pwned-${process.pid}`);
    cleanups.push(() => spawnSync('rm', ['-f', marker]));
    gitIn(wt, 'config', 'filter.pwn.clean', `touch ${marker}; cat`);
    const commits = gitIn(wt, 'rev-list', '--all');
    writeFileSync(join(wt, '.gitattributes'), '* filter=pwn\n');
    writeFileSync(join(wt, 'a.txt'), 'a\n');
    // The add's refusal (it would run the filter) and the commit's are both checked before either runs.
    for (const [first, then] of [
      [['add', '--', 'a.txt'], ['commit', '--quiet', '--allow-empty', '-m', 'x']],
      [['add', '--intent-to-add', '--', 'a.txt'], ['commit', '--quiet', '--allow-empty', '-m', 'x']],
    ] as const) {
      const e = await gitThen(first, then, { cwd: wt }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).code).toBe('forbidden');
      expect((e as AppError).message).toContain('filter.pwn.clean');
    }
    expect(existsSync(marker)).toBe(false);
    // Only the second command refused (a signing program the commit would run): the add never ran either.
    gitIn(wt, 'config', '--unset', 'filter.pwn.clean');
    gitIn(wt, 'config', 'gpg.program', `sh -c 'touch ${marker}'`);
    const signing = await gitThen(['add', '--', 'a.txt'], ['commit', '--quiet', '-m', 'x'], { cwd: wt }).catch((x: unknown) => x);
    expect((signing as AppError).code).toBe('forbidden');
    expect((signing as AppError).message).toContain('gpg.program');
    // Nothing staged, nothing committed (ls-files reads the index; a status would run the filter itself).
    expect(gitIn(wt, 'ls-files', '--', 'a.txt')).toBe('');
    expect(gitIn(wt, 'rev-list', '--all')).toBe(commits);
  });
});

describe.runIf(process.platform === 'linux')('gitThen: descriptors and stopping', () => {
  it('each command starts with its stdio only, while this process holds a pty master', async () => {
    const pty = requireNative<typeof import('node-pty')>('node-pty');
    const s = standIn('echo "== $(for a; do case $a in add|second) echo $a;; esac; done) $$ $PPID"; ls -l /proc/self/fd');
    const term = pty.spawn('/bin/sh', ['-c', 'sleep 30'], { cols: 80, rows: 24, cwd: s.dir, env: { PATH: process.env.PATH ?? '' } });
    try {
      const out = await gitThen(['add'], ['second'], { cwd: s.dir, env: s.env });
      const [, first, second] = out.split(/^== /m);
      const [firstName, , firstParent] = first!.split('\n')[0]!.split(' ');
      const [secondName, secondPid] = second!.split('\n')[0]!.split(' ');
      expect([firstName, secondName]).toEqual(['add', 'second']);
      // One process start: the shell that started the first command became the second.
      expect(secondPid).toBe(firstParent);
      for (const listing of [first!, second!]) {
        // "N -> target", without the handle `ls` holds on the folder it lists.
        const fds = listing
          .split('\n')
          .map((l) => /\s(\d+) -> (.*)$/.exec(l))
          .filter((m): m is RegExpExecArray => m !== null && !/^\/proc\/\d+\/fd$/.test(m[2]!))
          .map((m) => Number(m[1]));
        expect(fds.sort()).toEqual([0, 1, 2]);
      }
    } finally {
      term.kill();
    }
  });

  for (const how of ['timeout', 'cancel'] as const) {
    it(`a ${how} ends the first command, and the second never starts`, async () => {
      const pidFile = join(tempDir('fd-git-then-pid-').path, 'pid');
      cleanups.push(() => spawnSync('rm', ['-rf', join(pidFile, '..')]));
      // The first command takes half a second to end once told to (as git does, removing its lock files).
      const s = standIn(`case " $* " in *" add "*) trap 'sleep 0.5; exit 1' TERM; echo $$ > ${pidFile}.tmp; mv ${pidFile}.tmp ${pidFile}; while :; do sleep 0.05; done;; esac; touch ${pidFile}.second`);
      const abort = new AbortController();
      // The pair gets twice the call's timeout (one for each command).
      const call = gitThen(['add'], ['second'], { cwd: s.dir, env: s.env, ...(how === 'timeout' ? { timeoutMs: 2_500 } : { signal: abort.signal }) }).catch((x: unknown) => x);
      await waitFor(() => existsSync(pidFile), 'the first command started', 10_000);
      const pid = Number(readFileSync(pidFile, 'utf8'));
      if (how === 'cancel') abort.abort();
      const e = await call;
      // Gone, or a zombie until it is reaped: the call ends after the first command did (the shell
      // waited for it), so nothing of it is left holding the repository when the next git starts.
      expect([null, 'Z']).toContain(processState(pid));
      expect(existsSync(`${pidFile}.second`)).toBe(false);
      // Stopped by the app: no exit code of git's (the shell's 143 is not one).
      expect(e).toBeInstanceOf(GitError);
      expect((e as GitError).exitCode).toBeNull();
    }, 30_000);
  }
});
