/**
 * The app's git starts with its stdio only, also while the process holds a descriptor any child
 * would inherit (node-pty's forkpty leaves its pty master without close-on-exec: a git, and what
 * git itself starts, could then write into that terminal). A stand-in `git` first on the call's
 * PATH lists the descriptors it was started with; a pty opened in this process is the leak.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { git } from '../../../src-main/git/git';
import { requireNative } from '../../../src-main/platform/native';
import { tempDir } from '../../support/temp';

const dir = tempDir('fd-git-fds-');
afterAll(() => dir.cleanup());

/** "N -> target" of a descriptor listing, without the handle `ls` holds on the folder it lists. */
function descriptors(listing: string): string[] {
  return listing
    .split('\n')
    .map((l) => /\s(\d+) -> (.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null && !/^\/proc\/\d+\/fd$/.test(m[2]!))
    .map((m) => `${m[1]} -> ${m[2]}`);
}

describe.runIf(process.platform === 'linux')("the app's git and this process's descriptors", () => {
  it('a pty master held by the process does not reach git', async () => {
    const pty = requireNative<typeof import('node-pty')>('node-pty');
    const term = pty.spawn('/bin/sh', ['-c', 'sleep 30'], { cols: 80, rows: 24, cwd: dir.path, env: { PATH: process.env.PATH ?? '' } });
    try {
      // The control: a program started without the app's care inherits the master.
      const plain = descriptors(String(spawnSync('ls', ['-l', '/proc/self/fd'], { encoding: 'utf8' }).stdout));
      expect(plain.some((d) => d.endsWith('/dev/ptmx'))).toBe(true);

      const bin = join(dir.path, 'bin');
      spawnSync('mkdir', [bin]);
      writeFileSync(join(bin, 'git'), '#!/bin/sh\nexec ls -l /proc/self/fd\n');
      chmodSync(join(bin, 'git'), 0o755);
      const seen = descriptors(await git(['status'], { cwd: dir.path, env: { PATH: `${bin}:${process.env.PATH ?? ''}` } }));
      expect(seen.map((d) => Number(d.split(' ')[0])).sort()).toEqual([0, 1, 2]);
      expect(seen.join('\n')).not.toContain('ptmx');
    } finally {
      term.kill();
    }
  });
});
