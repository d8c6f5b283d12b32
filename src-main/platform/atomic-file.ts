/**
 * Replacing a small file so that a crash, a full disk or a failed rename at any moment leaves
 * either the old content or the new, never a truncated mix: write a temporary file in the same
 * folder (a rename is atomic only within one file system), flush it to disk, rename it over the
 * target, then flush the folder so the rename itself survives a power loss.
 */
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync, constants } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/** The file-system calls used, replaceable so tests can make one of them fail like a crash would. */
export interface AtomicFileIo {
  openSync: typeof openSync;
  writeSync: (fd: number, data: Buffer, offset: number, length: number) => number;
  fsyncSync: typeof fsyncSync;
  closeSync: typeof closeSync;
  renameSync: typeof renameSync;
  unlinkSync: typeof unlinkSync;
}

export const NODE_IO: AtomicFileIo = { openSync, writeSync: (fd, data, offset, length) => writeSync(fd, data, offset, length), fsyncSync, closeSync, renameSync, unlinkSync };

export interface AtomicWriteOptions {
  /** Permissions of the new file (the temporary file is created with them, so it is never wider). */
  mode: number;
  io?: AtomicFileIo;
  /**
   * Flush the folder after the rename (default true). Off for a file rewritten several times a
   * second where the previous version is a valid one to come back to: a power loss may then undo
   * the last rename (never leave a mix: the data is flushed before it either way), while a crash
   * of the app itself loses nothing (the kernel holds the rename). Saves one flush per write.
   */
  syncFolder?: boolean;
}

/** Writes `data` to `file` atomically (see the module comment). Throws the first failure; the old file is then untouched. */
export function writeFileAtomic(file: string, data: string | Buffer, opts: AtomicWriteOptions): void {
  const io = opts.io ?? NODE_IO;
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  // O_EXCL: never write through a file (or a planted symlink) that already has the temporary name.
  const fd = io.openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), opts.mode);
  let renamed = false;
  try {
    try {
      for (let off = 0; off < buf.length; ) off += io.writeSync(fd, buf, off, buf.length - off);
      io.fsyncSync(fd);
    } finally {
      io.closeSync(fd);
    }
    io.renameSync(tmp, file);
    renamed = true;
  } finally {
    if (!renamed) {
      try {
        io.unlinkSync(tmp);
      } catch {
        // Already gone or never fully created: there is nothing to clean up.
      }
    }
  }
  if (opts.syncFolder !== false) syncFolder(dirname(file), io);
}

/**
 * Creates `file`, which must not exist yet (EEXIST is thrown as it is), writes all of `data` and
 * flushes it to disk. Not atomic for readers: one may see it while it is being written.
 */
export function writeNewFile(file: string, data: string | Buffer, mode: number): void {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  try {
    for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Flushes a folder's entries (a rename, a link) to disk. */
export function syncFolder(dir: string, io: AtomicFileIo = NODE_IO): void {
  let fd: number;
  try {
    fd = io.openSync(dir, constants.O_RDONLY);
  } catch {
    // Windows cannot open a folder as a file; its renames are durable without this step.
    return;
  }
  try {
    io.fsyncSync(fd);
  } catch {
    // Some file systems (and platforms) refuse fsync on a folder: the rename has happened; only
    // its durability across a power loss is then up to the file system.
  } finally {
    io.closeSync(fd);
  }
}
