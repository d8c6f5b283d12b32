/**
 * Reading a file the app reads by itself from a repository or a data folder (a project's
 * config, package.json, .gitignore, a key file) where anyone, an agent included, may have put
 * a FIFO, a socket or a device instead. Opening a FIFO waits for its other end and reading a
 * device can wait forever: done synchronously that froze the whole host, done on the thread
 * pool it held a thread for good. These readers refuse anything that is not a regular file
 * (after following symlinks: a linked config is fine) before opening it, open with O_NONBLOCK,
 * and check the opened descriptor again (the path may have been swapped in between).
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, statSync, type Stats } from 'node:fs';
import { lstat, open, stat } from 'node:fs/promises';

// Not defined on Windows, which has no FIFOs of this kind.
const OPEN_NOWAIT = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** The error for a path that is not a regular file; `code` lets callers tell it from ENOENT. */
export class NotRegularFileError extends Error {
  override readonly name = 'NotRegularFileError';
  readonly code = 'ENOTREG';
  constructor(readonly path: string, readonly kind: string) {
    super(`${path} is ${kind}, not a regular file; it is not read (reading it could wait forever)`);
  }
}

export function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/** Like readFileSync (ENOENT and other errors are thrown as they are), but never waits on a special file. */
export function readFileNoWait(path: string): Buffer;
export function readFileNoWait(path: string, encoding: BufferEncoding): string;
export function readFileNoWait(path: string, encoding?: BufferEncoding): Buffer | string {
  const st = statSync(path);
  if (!st.isFile()) throw new NotRegularFileError(path, kindOf(st));
  const fd = openSync(path, OPEN_NOWAIT);
  try {
    const now = fstatSync(fd);
    if (!now.isFile()) throw new NotRegularFileError(path, kindOf(now));
    const buf = readFileSync(fd);
    return encoding ? buf.toString(encoding) : buf;
  } finally {
    closeSync(fd);
  }
}

/** The asynchronous form (off the main thread, and never holding a thread-pool thread on a FIFO). */
export async function readFileNoWaitAsync(path: string): Promise<Buffer>;
export async function readFileNoWaitAsync(path: string, encoding: BufferEncoding): Promise<string>;
export async function readFileNoWaitAsync(path: string, encoding?: BufferEncoding): Promise<Buffer | string> {
  // Checked before opening too: opening some devices has effects of its own.
  const before = await stat(path);
  if (!before.isFile()) throw new NotRegularFileError(path, kindOf(before));
  const fh = await open(path, OPEN_NOWAIT);
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new NotRegularFileError(path, kindOf(st));
    const buf = await fh.readFile();
    return encoding ? buf.toString(encoding) : buf;
  } finally {
    await fh.close();
  }
}

/** What {@link readFileHeadNoWaitAsync} read: at most `maxBytes`, and whether more was there. */
export interface FileHead {
  bytes: Buffer;
  truncated: boolean;
}

/**
 * The first `maxBytes` of a regular file that is itself no symlink (O_NOFOLLOW): for a file
 * an agent may have planted in its own folder and the app then reads outside any sandbox, where
 * a link could point at a file the sandbox hides (a key) and an endless or huge file would
 * hold memory. ELOOP (a symlink) is reported as {@link NotRegularFileError}.
 */
export async function readFileHeadNoWaitAsync(path: string, maxBytes: number): Promise<FileHead> {
  // Checked before opening too: opening some devices has effects of its own.
  const before = await lstat(path);
  if (before.isSymbolicLink()) throw new NotRegularFileError(path, 'a symbolic link');
  if (!before.isFile()) throw new NotRegularFileError(path, kindOf(before));
  const fh = await open(path, OPEN_NOWAIT | (constants.O_NOFOLLOW ?? 0)).catch((e: NodeJS.ErrnoException) => {
    throw e.code === 'ELOOP' ? new NotRegularFileError(path, 'a symbolic link') : e;
  });
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new NotRegularFileError(path, kindOf(st));
    // One byte more than allowed tells a file of exactly maxBytes from a longer one.
    const buf = Buffer.alloc(maxBytes + 1);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return { bytes: buf.subarray(0, Math.min(got, maxBytes)), truncated: got > maxBytes };
  } finally {
    await fh.close();
  }
}

/**
 * The first `maxBytes` (`from: 'start'`) or the last (`from: 'end'`) of a regular file, never
 * reading more, never waiting on a special file: for a report or a log shown to the user, which
 * anyone writing the folder could make as large as the disk.
 */
export function readFilePartNoWait(path: string, maxBytes: number, from: 'start' | 'end'): FileHead {
  const st = statSync(path);
  if (!st.isFile()) throw new NotRegularFileError(path, kindOf(st));
  const fd = openSync(path, OPEN_NOWAIT);
  try {
    const now = fstatSync(fd);
    if (!now.isFile()) throw new NotRegularFileError(path, kindOf(now));
    const want = Math.min(now.size, maxBytes);
    const buf = Buffer.alloc(want);
    const start = from === 'end' ? now.size - want : 0;
    let got = 0;
    while (got < want) {
      const n = readSync(fd, buf, got, want - got, start + got);
      if (n === 0) break;
      got += n;
    }
    return { bytes: buf.subarray(0, got), truncated: now.size > maxBytes };
  } finally {
    closeSync(fd);
  }
}
