/**
 * How file tools touch files without ever blocking the host. Opening a FIFO for reading (or
 * for writing with no reader) waits forever, and so does reading a terminal or some devices;
 * done on the main thread that froze every request and every session, done on the thread pool
 * it wedged the turn past any cancel. So:
 * - anything that is not a regular file or a folder is refused by `lstat` before it is opened,
 *   with a message saying what it is;
 * - files are opened with O_NONBLOCK (a FIFO opens at once instead of waiting for its other
 *   end) and O_NOFOLLOW (the path was resolved inside the root: a symlink appearing there since
 *   is a swap), and `fstat` of the opened descriptor must show the same regular file that
 *   `lstat` saw, so a swap between the check and the open is caught too;
 * - on Linux the opened descriptor's real path must still be inside the root (a folder on the
 *   way swapped for a symlink);
 * - every call is asynchronous: nothing runs on the main thread's stack.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, readlink, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, relative } from 'node:path';
import { ToolError } from './root-guard';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = constants;
// Not defined on Windows, where neither FIFOs nor symlink swaps of this kind apply.
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** What a non-regular file is, in words the model and the user understand. */
export function specialKind(st: Stats): string | null {
  if (st.isFile() || st.isDirectory()) return null;
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

export function notRegularError(rel: string, kind: string): ToolError {
  return new ToolError(`${rel} is ${kind}, not a regular file: file tools only read and write regular files (opening it could wait forever). Use bash if you really mean to use it.`);
}

/** lstat, or null when the path does not exist. */
export async function lstatOrNull(abs: string): Promise<Stats | null> {
  try {
    return await lstat(abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw e;
  }
}

function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** Linux: the opened descriptor's path must still be inside the root (elsewhere: no way to ask, the lstat/fstat pair stands). */
async function assertOpenedInside(fh: FileHandle, realRoot: string, rel: string): Promise<void> {
  if (process.platform !== 'linux') return;
  let target: string;
  try {
    target = await readlink(`/proc/self/fd/${fh.fd}`);
  } catch {
    // No /proc (a minimal container): the checks before the open are what we have.
    return;
  }
  const r = relative(realRoot, target);
  if (r.startsWith('..') || isAbsolute(r)) throw new ToolError(`${rel} led outside the session root while it was opened (a folder on its path was replaced); refused.`);
}

/**
 * Opens an existing regular file. `st` is the lstat taken by the caller (it decided from it);
 * the descriptor is checked to be that same file. Throws ToolError for anything else.
 */
export async function openChecked(abs: string, rel: string, realRoot: string, flags: number, st: Stats): Promise<FileHandle> {
  const kind = specialKind(st);
  if (kind) throw notRegularError(rel, kind);
  if (st.isDirectory()) throw new ToolError(`${rel} is a directory.`);
  let fh: FileHandle;
  try {
    fh = await open(abs, flags | O_NONBLOCK | O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // ELOOP: a symlink was put in its place; ENXIO: a FIFO without a reader opened for writing.
    if (code === 'ELOOP' || code === 'ENXIO') throw new ToolError(`${rel} changed while it was being opened (it is no longer a regular file); refused.`);
    throw e;
  }
  try {
    const now = await fh.stat();
    if (!now.isFile() || !sameFile(now, st)) throw new ToolError(`${rel} changed while it was being opened (it is no longer the same regular file); refused.`);
    await assertOpenedInside(fh, realRoot, rel);
    return fh;
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/** Reads a whole regular file (at most `maxBytes`, else ToolError from `tooBig`). */
export async function readRegularFile(abs: string, rel: string, realRoot: string, opts: { maxBytes: number; tooBig(size: number): string }): Promise<Buffer> {
  const st = await lstatOrNull(abs);
  if (!st) throw new ToolError(`${rel} does not exist.`);
  if (st.isFile() && st.size > opts.maxBytes) throw new ToolError(opts.tooBig(st.size));
  const fh = await openChecked(abs, rel, realRoot, O_RDONLY, st);
  try {
    const buf = await fh.readFile();
    if (buf.length > opts.maxBytes) throw new ToolError(opts.tooBig(buf.length));
    return buf;
  } finally {
    await fh.close();
  }
}

export interface WriteOutcome {
  existed: boolean;
}

/**
 * Replaces a regular file's content in place (keeping its mode and owner), or creates it with
 * its folders. A FIFO, socket or device is refused; a file that appears between the check and
 * the create is not overwritten blindly (O_EXCL), it is checked like an existing one.
 */
export async function writeRegularFile(abs: string, rel: string, realRoot: string, content: string | Buffer): Promise<WriteOutcome> {
  const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  let st = await lstatOrNull(abs);
  let fh: FileHandle | null = null;
  let existed = st !== null;
  if (!st) {
    await mkdir(dirname(abs), { recursive: true });
    try {
      fh = await open(abs, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o666);
      await assertOpenedInside(fh, realRoot, rel).catch(async (e: unknown) => {
        // Created (empty, by us: O_EXCL) outside the root through a swapped folder: take it back.
        await fh!.close();
        await unlink(abs).catch(() => undefined);
        throw e;
      });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // Created by someone else meanwhile: treat it as existing (checked below).
      st = await lstatOrNull(abs);
      if (!st) throw new ToolError(`${rel} appeared and disappeared while it was being written; try again.`);
      existed = true;
    }
  }
  if (!fh) fh = await openChecked(abs, rel, realRoot, O_WRONLY, st!);
  try {
    await fh.truncate(0);
    let off = 0;
    while (off < data.length) off += (await fh.write(data, off, data.length - off, off)).bytesWritten;
  } finally {
    await fh.close();
  }
  return { existed };
}

/** How many names (hard links) a regular file has; 1 for anything else or a missing file. */
export async function linkCount(abs: string): Promise<number> {
  const st = await lstatOrNull(abs).catch(() => null);
  return st?.isFile() ? st.nlink : 1;
}
