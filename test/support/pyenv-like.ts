/**
 * A shell startup shaped like pyenv's. `eval "$(pyenv init -)"` in ~/.bashrc runs `pyenv rehash`,
 * which takes `~/.pyenv/shims/.pyenv-shim` with noclobber and removes it in an EXIT trap; a
 * shell killed while it runs leaves the lock, and every later shell waits 60 s for it. Here the
 * rehash holds its lock until it is stopped, so a test can end a shell in the middle of it.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PyenvLikeStartup {
  /** The lock file: there while the rehash runs, gone once its EXIT trap ran. */
  lock: string;
  /** Holds the rehash's pid once it has its lock and its trap. */
  pidFile: string;
  /** A line for a startup file (~/.bashrc, ~/.bash_profile) that runs the rehash. */
  rcLine: string;
}

/** `trapSeconds`: how long its EXIT trap works before removing the lock (a second signal meanwhile cuts it short). */
export function pyenvLikeStartup(dir: string, trapSeconds = 0): PyenvLikeStartup {
  const lock = join(dir, '.pyenv-shim');
  const pidFile = join(dir, 'rehash.pid');
  const rehash = join(dir, 'rehash');
  writeFileSync(
    rehash,
    [
      '#!/usr/bin/env bash',
      'set -e',
      `lock=${JSON.stringify(lock)}`,
      'set -o noclobber',
      'echo -n > "$lock"',
      'set +o noclobber',
      trapSeconds > 0 ? `trap 'sleep ${trapSeconds}; rm -f "$lock"' EXIT` : 'trap \'rm -f "$lock"\' EXIT',
      `echo $$ > ${JSON.stringify(pidFile)}`,
      'sleep 30',
      '',
    ].join('\n'),
  );
  chmodSync(rehash, 0o755);
  return { lock, pidFile, rcLine: `command ${JSON.stringify(rehash)}` };
}

/** An interactive bash whose rc file runs the pyenv-like rehash. */
export function pyenvLikeShell(dir: string, trapSeconds = 0): PyenvLikeStartup & { args: string[] } {
  const startup = pyenvLikeStartup(dir, trapSeconds);
  const rc = join(dir, 'bashrc');
  writeFileSync(rc, `${startup.rcLine}\nPS1='ready$ '\n`);
  return { ...startup, args: ['--noprofile', '--rcfile', rc, '-i'] };
}

export const readPid = (file: string): number | null => (existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) || null : null);
