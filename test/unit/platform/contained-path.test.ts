/**
 * The contained read (contained-path.ts) that state files, templates and notes go through: inside
 * the root it reads, through a root that is itself reached by a link too; a link on the way, a
 * path leaving the root, a FIFO or an oversized file is refused, the synchronous and the
 * asynchronous form alike.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileTooLargeError, readFileInside, readFileInsideAsync, UnsafePathError } from '../../../src-main/platform/contained-path';
import { tempDir } from '../../support/temp';

const dirs: Array<{ cleanup(): void }> = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

function setUp(): { root: string; outside: string } {
  const d = tempDir('fd-contained-');
  dirs.push(d);
  const root = join(d.path, 'repo');
  const outside = join(d.path, 'home');
  mkdirSync(join(root, '.flightdeck', 'alpha'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(root, '.flightdeck', 'alpha', 'state.yml'), 'status: planned\n');
  writeFileSync(join(outside, 'state.yml'), 'secret: yes\n');
  return { root, outside };
}

const LIMIT = { maxBytes: 1024, what: 'state file' };
const both = [
  ['sync', (root: string, target: string) => Promise.resolve().then(() => readFileInside(root, target, LIMIT))],
  ['async', (root: string, target: string) => readFileInsideAsync(root, target, LIMIT)],
] as const;

describe.each(both)('the contained read (%s)', (_, read) => {
  it('reads a file inside the root, also when the root is reached through a link', async () => {
    const { root } = setUp();
    expect((await read(root, '.flightdeck/alpha/state.yml')).toString()).toBe('status: planned\n');
    const linkedRoot = `${root}-link`;
    symlinkSync(root, linkedRoot);
    expect((await read(linkedRoot, join(linkedRoot, '.flightdeck/alpha/state.yml'))).toString()).toBe('status: planned\n');
    // The root's real path is what the file's real path is compared with.
    expect(realpathSync(linkedRoot)).toBe(realpathSync(root));
  });

  it('refuses a folder on the way that is a link (inside or out), naming it', async () => {
    const { root, outside } = setUp();
    symlinkSync(outside, join(root, '.flightdeck', 'beta'));
    await expect(read(root, '.flightdeck/beta/state.yml')).rejects.toThrow(UnsafePathError);
    await expect(read(root, '.flightdeck/beta/state.yml')).rejects.toThrow(`${join(root, '.flightdeck', 'beta')} is a symbolic link`);
    symlinkSync(join(root, '.flightdeck', 'alpha'), join(root, '.flightdeck', 'gamma'));
    await expect(read(root, '.flightdeck/gamma/state.yml')).rejects.toThrow(UnsafePathError);
  });

  it('refuses the file itself as a link, a path leaving the root, a FIFO and a file over the limit', async () => {
    const { root, outside } = setUp();
    symlinkSync(join(outside, 'state.yml'), join(root, '.flightdeck', 'alpha', 'link.yml'));
    await expect(read(root, '.flightdeck/alpha/link.yml')).rejects.toThrow(UnsafePathError);
    await expect(read(root, '../home/state.yml')).rejects.toThrow(/outside/);
    execFileSync('mkfifo', [join(root, '.flightdeck', 'alpha', 'fifo.yml')]);
    await expect(read(root, '.flightdeck/alpha/fifo.yml')).rejects.toThrow(/not a regular file/);
    writeFileSync(join(root, '.flightdeck', 'alpha', 'big.yml'), 'x'.repeat(2000));
    await expect(read(root, '.flightdeck/alpha/big.yml')).rejects.toThrow(FileTooLargeError);
  });

  it('says ENOENT for a file that is not there', async () => {
    const { root } = setUp();
    await expect(read(root, '.flightdeck/alpha/none.yml')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
