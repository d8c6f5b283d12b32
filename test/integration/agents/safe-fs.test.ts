import { constants, existsSync, lstatSync, readFileSync, renameSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openChecked, readRegularFile, writeRegularFile } from '../../../src-main/agents/tools/safe-fs';
import { runSearchJob } from '../../../src-main/agents/tools/search-worker';
import { fifoValve, makeFifo } from '../../support/fifo';
import { tempDir } from '../../support/temp';

/** The file-tool primitives against files swapped between the check and the open (issue 8 item 3). */
const cleanups: Array<() => unknown> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function dir(): string {
  const d = tempDir('fd-safe-fs-');
  cleanups.push(() => d.cleanup());
  return d.path;
}

const READ = { maxBytes: 1024, tooBig: (n: number) => `too big: ${n}` };

describe('safe-fs', () => {
  it('a regular file checked, then swapped for a symlink to a FIFO before the open, is refused without waiting', async () => {
    const root = dir();
    const a = join(root, 'a.txt');
    writeFileSync(a, 'text');
    const st = lstatSync(a);
    makeFifo(join(root, 'pipe'));
    const valve = fifoValve(join(root, 'pipe'));
    cleanups.push(() => valve.stop());
    unlinkSync(a);
    symlinkSync('pipe', a);
    await expect(openChecked(a, 'a.txt', root, constants.O_RDONLY, st)).rejects.toThrow('a.txt changed while it was being opened');
  });

  it('a regular file swapped for another one (another inode) between the check and the open is refused', async () => {
    const root = dir();
    const a = join(root, 'a.txt');
    writeFileSync(a, 'first');
    const st = lstatSync(a);
    writeFileSync(join(root, 'b.txt'), 'second');
    renameSync(join(root, 'b.txt'), a);
    await expect(openChecked(a, 'a.txt', root, constants.O_RDONLY, st)).rejects.toThrow(/no longer the same regular file/);
  });

  it('refuses a file whose opened descriptor is outside the root (Linux: /proc/self/fd)', async () => {
    if (process.platform !== 'linux') return;
    const root = dir();
    const elsewhere = dir();
    writeFileSync(join(elsewhere, 'secret.txt'), 'secret');
    await expect(readRegularFile(join(elsewhere, 'secret.txt'), 'secret.txt', root, READ)).rejects.toThrow(/led outside the session root/);
  });

  it('a new file that the open finds outside the root (a folder on its path swapped) is refused and removed again', async () => {
    if (process.platform !== 'linux') return;
    const root = dir();
    const elsewhere = dir();
    await expect(writeRegularFile(join(elsewhere, 'planted.txt'), 'planted.txt', root, 'x')).rejects.toThrow(/led outside the session root/);
    expect(existsSync(join(elsewhere, 'planted.txt'))).toBe(false);
  });

  it('reads and writes regular files in place, keeping their mode, and refuses FIFOs for writing too', async () => {
    const root = dir();
    const a = join(root, 'a.sh');
    writeFileSync(a, 'old content that is longer', { mode: 0o755 });
    expect(await writeRegularFile(a, 'a.sh', root, 'new')).toEqual({ existed: true });
    expect(readFileSync(a, 'utf8')).toBe('new');
    expect(statSync(a).mode & 0o777).toBe(0o755);
    expect((await readRegularFile(a, 'a.sh', root, READ)).toString()).toBe('new');
    expect(await writeRegularFile(join(root, 'deep/er/b.txt'), 'deep/er/b.txt', root, 'b')).toEqual({ existed: false });
    makeFifo(join(root, 'pipe'));
    await expect(writeRegularFile(join(root, 'pipe'), 'pipe', root, 'x')).rejects.toThrow(/^pipe is a FIFO \(named pipe\), not a regular file/);
    await expect(readRegularFile(join(root, 'pipe'), 'pipe', root, READ)).rejects.toThrow(/^pipe is a FIFO/);
    await expect(readRegularFile(join(root, 'missing'), 'missing', root, READ)).rejects.toThrow('missing does not exist.');
    writeFileSync(join(root, 'big'), Buffer.alloc(2048));
    await expect(readRegularFile(join(root, 'big'), 'big', root, READ)).rejects.toThrow('too big: 2048');
  });

  it('the search worker, given a FIFO directly, answers at once instead of blocking its thread for good', async () => {
    const root = dir();
    makeFifo(join(root, 'pipe'));
    const out = await runSearchJob(
      { mode: 'grep', realRoot: root, baseRel: 'pipe', baseIsDir: false, pattern: 'x', flags: '', glob: null, maxMatches: 10, maxFiles: 10, maxFileBytes: 1024, skippedDirs: [] },
      { signal: new AbortController().signal, timeoutMs: 20_000 },
    );
    expect(out).toEqual({ lines: [], more: false, filesSearched: 0 });
  });
});
