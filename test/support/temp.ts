import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A fresh temporary folder (real path, so symlinked /tmp does not confuse comparisons). */
export function tempDir(prefix = 'fd-test-'): { path: string; cleanup(): void } {
  const path = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * A home folder for the user shells a test opens (HOME of a test host, or of the test process
 * while a terminal harness runs): no startup files, so the machine's own do not run in them. This
 * machine's ~/.bashrc runs `pyenv init`, whose rehash takes a lock and removes it in an EXIT trap;
 * a test that SIGKILLs a shell while it starts (as a user may) leaves that lock, and every
 * interactive bash after it, the end-to-end suite's included, then waits 60 s before its first
 * prompt. The user's git settings are copied, so git still knows who commits.
 */
export function shellHome(prefix = 'fd-home-'): { path: string; cleanup(): void } {
  const home = tempDir(prefix);
  // Both places git reads a user's settings from (the second unless XDG_CONFIG_HOME moves it).
  for (const file of ['.gitconfig', join('.config', 'git', 'config')]) {
    const from = join(homedir(), file);
    if (!existsSync(from)) continue;
    mkdirSync(dirname(join(home.path, file)), { recursive: true });
    copyFileSync(from, join(home.path, file));
  }
  return home;
}

/**
 * A fresh folder on a real, small file system of its own (tmpfs) that fills up for real: what a
 * full disk does to the app is tested on one. Root may mount it, as CI and this machine run tests.
 */
export function tmpfsDir(prefix: string, size: string): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', path]);
  return {
    path,
    cleanup() {
      execFileSync('umount', ['-l', path]);
      rmSync(path, { recursive: true, force: true });
    },
  };
}

export function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 't@example.com' },
  });
}

/** Who commits in `dir`'s repository (its own config): what a test's app or git commits need there. */
export function setGitIdentity(dir: string, name = 'Test', email = 't@example.com'): void {
  gitIn(dir, 'config', 'user.name', name);
  gitIn(dir, 'config', 'user.email', email);
}

/** A real git repository with one commit on `main` (README.md). */
export function makeRepo(prefix = 'fd-repo-'): { path: string; cleanup(): void } {
  const dir = tempDir(prefix);
  gitIn(dir.path, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir.path, 'README.md'), '# sample\n');
  gitIn(dir.path, 'add', '.');
  gitIn(dir.path, 'commit', '-q', '-m', 'initial');
  return dir;
}
