/**
 * Files the app itself reads or writes inside a folder whose contents it does not control: a
 * repository someone cloned, a worktree or workspace an agent (or a container) writes to. A
 * committed symlink there (`.flightdeck/<slug>` → `~/.ssh`, `.context/notes.md` → `~/.aws/credentials`)
 * would otherwise make the host read the user's secrets into a prompt, or write Flightdeck's files
 * wherever the link points, with the user's rights and outside any sandbox.
 *
 * The rule is the same for reads and writes: the path must lie inside the root lexically, no
 * component below the root may be a symbolic link (each is lstat'ed), the file is opened with
 * O_NOFOLLOW (and O_NONBLOCK: a FIFO is refused, not waited on), must be a regular file, and its
 * real path must lie inside the root's real path (a last check against a component swapped
 * between the walk and the open). The root itself is trusted: it is the folder the caller chose.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readlinkSync, readSync, realpathSync, writeSync } from 'node:fs';
import { lstat, open, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { formatBytes } from '../../src-preload/contract/units';
import { writeFileAtomic } from './atomic-file';
import { kindOf } from './read-no-wait';

const OPEN_READ = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** A path refused because it leaves its root, goes through a symlink or is not a regular file. */
export class UnsafePathError extends Error {
  override readonly name = 'UnsafePathError';
  readonly code = 'EUNSAFEPATH';
  /** `path`: the file asked for; `offender`: the component that is a link, or the path that leaves the root. */
  constructor(
    message: string,
    readonly path: string,
    readonly offender: string,
  ) {
    super(message);
  }
}

/** A file over the size limit its reader set: refused before a byte of it is read. */
export class FileTooLargeError extends Error {
  override readonly name = 'FileTooLargeError';
  readonly code = 'EFILETOOLARGE';
  constructor(
    readonly path: string,
    readonly size: number,
    readonly limit: number,
    what = 'file',
  ) {
    super(`${path} is ${formatBytes(size)}, over the ${formatBytes(limit)} limit for a ${what}; it is not read`);
  }
}

/** Whether `target` is `root` or lies below it (lexically, both absolute and resolved). */
export function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel));
}

/** `target` (absolute, or relative to root) as an absolute path inside `root`, or an UnsafePathError. */
function insidePath(root: string, target: string): { abs: string; parts: string[] } {
  const base = resolve(root);
  const abs = resolve(base, target);
  if (!isInside(base, abs)) throw new UnsafePathError(`${abs} is outside ${base}; it is refused`, abs, abs);
  const rel = relative(base, abs);
  return { abs, parts: rel === '' ? [] : rel.split(sep) };
}

function symlinkError(abs: string, link: string): UnsafePathError {
  return new UnsafePathError(`${link} is a symbolic link; Flightdeck does not follow links inside a repository or workspace (it could point anywhere, your home folder included), so ${abs} is refused`, abs, link);
}

/**
 * Checks that `target` lies inside `root` and that no existing component of it below `root` is a
 * symbolic link; a component that does not exist ends the walk (the rest can only be created).
 * Returns the absolute path. Throws UnsafePathError naming the offending component.
 */
export function checkInside(root: string, target: string): string {
  const { abs, parts } = insidePath(root, target);
  let cur = resolve(root);
  for (const part of parts) {
    cur = join(cur, part);
    let st;
    try {
      st = lstatSync(cur);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return abs;
      throw e;
    }
    if (st.isSymbolicLink()) throw symlinkError(abs, cur);
  }
  return abs;
}

/** The asynchronous form of {@link checkInside}. */
export async function checkInsideAsync(root: string, target: string): Promise<string> {
  const { abs, parts } = insidePath(root, target);
  let cur = resolve(root);
  for (const part of parts) {
    cur = join(cur, part);
    let st;
    try {
      st = await lstat(cur);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return abs;
      throw e;
    }
    if (st.isSymbolicLink()) throw symlinkError(abs, cur);
  }
  return abs;
}

function checkRealInside(root: string, abs: string, real: string, rootReal: string): void {
  if (!isInside(rootReal, real)) throw new UnsafePathError(`${abs} resolves to ${real}, outside ${root}; it is refused`, abs, real);
}

/** Node's own realpath walks the path with an lstat per component; the native one is one call (Windows keeps Node's: the native one fails on some volumes). */
const realpathQuick = process.platform === 'win32' ? realpathSync : realpathSync.native;

/** The kernel's path of an open descriptor (Linux, /proc mounted), or null. */
function descriptorPath(fd: number): string | null {
  try {
    const p = readlinkSync(`/proc/self/fd/${fd}`);
    return p.startsWith('/') && !p.endsWith(' (deleted)') ? p : null;
  } catch {
    // No /proc (a minimal container).
    return null;
  }
}

/**
 * Where the file open as `fd` and its root really are. On Linux both are the kernel's paths of
 * open descriptors (/proc/self/fd): the file that was opened, whatever its path became since,
 * and the root spelled as the kernel spells it (on a case-insensitive file system the file's
 * path keeps the spelling of the folder's first lookup, not the caller's). Elsewhere, or without
 * /proc, or for a file removed since, the real paths now. A first index reads a thousand state
 * files: these are a few calls each, where Node's realpath made an lstat per component.
 */
function realPaths(fd: number, abs: string, root: string): { real: string; rootReal: string } {
  if (process.platform === 'linux') {
    const real = descriptorPath(fd);
    if (real !== null) {
      let dir: number | null = null;
      try {
        dir = openSync(root, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
        const rootReal = descriptorPath(dir);
        if (rootReal !== null) return { real, rootReal };
      } catch {
        // The root cannot be opened (no read permission): its real path as below.
      } finally {
        if (dir !== null) closeSync(dir);
      }
      return { real, rootReal: realpathQuick(root) };
    }
  }
  return { real: realpathQuick(abs), rootReal: realpathQuick(root) };
}

export interface ReadInsideOptions {
  /** Refused (FileTooLargeError) above this size, checked on the opened file before reading. */
  maxBytes: number;
  /** Named in the size error: "a state file", "a template". */
  what?: string;
}

/** Reads a regular file inside `root` by the rule in the module comment. ENOENT is thrown as it is. */
export function readFileInside(root: string, target: string, o: ReadInsideOptions): Buffer {
  const abs = checkInside(root, target);
  let fd: number;
  try {
    fd = openSync(abs, OPEN_READ);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw symlinkError(abs, abs);
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UnsafePathError(`${abs} is ${kindOf(st)}, not a regular file; it is refused`, abs, abs);
    const { real, rootReal } = realPaths(fd, abs, root);
    checkRealInside(root, abs, real, rootReal);
    if (st.size > o.maxBytes) throw new FileTooLargeError(abs, st.size, o.maxBytes, o.what);
    // One byte more than allowed: a file that grew after the fstat is still caught.
    const buf = Buffer.alloc(st.size + 1);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    if (got > o.maxBytes) throw new FileTooLargeError(abs, got, o.maxBytes, o.what);
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** The asynchronous form of {@link readFileInside}. */
export async function readFileInsideAsync(root: string, target: string, o: ReadInsideOptions): Promise<Buffer> {
  const abs = await checkInsideAsync(root, target);
  const fh = await open(abs, OPEN_READ).catch((e: NodeJS.ErrnoException) => {
    throw e.code === 'ELOOP' ? symlinkError(abs, abs) : e;
  });
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new UnsafePathError(`${abs} is ${kindOf(st)}, not a regular file; it is refused`, abs, abs);
    checkRealInside(root, abs, await realpath(abs), await realpath(root));
    if (st.size > o.maxBytes) throw new FileTooLargeError(abs, st.size, o.maxBytes, o.what);
    const buf = Buffer.alloc(st.size + 1);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    if (got > o.maxBytes) throw new FileTooLargeError(abs, got, o.maxBytes, o.what);
    return buf.subarray(0, got);
  } finally {
    await fh.close();
  }
}

/**
 * Creates `dir` and its missing parents inside `root`, one at a time, refusing any component that
 * is (or, raced in, becomes) a symbolic link. Returns the absolute folder.
 */
export function mkdirInside(root: string, dir: string, mode = 0o755): string {
  const { abs, parts } = insidePath(root, dir);
  let cur = resolve(root);
  // The root is the caller's choice (trusted); it may simply not exist yet.
  mkdirSync(cur, { recursive: true, mode });
  for (const part of parts) {
    cur = join(cur, part);
    try {
      mkdirSync(cur, { mode });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const st = lstatSync(cur);
    if (st.isSymbolicLink()) throw symlinkError(abs, cur);
    if (!st.isDirectory()) throw new UnsafePathError(`${cur} is ${kindOf(st)}, not a folder; ${abs} cannot be created`, abs, cur);
  }
  return abs;
}

/**
 * Writes `data` to `file` inside `root` atomically (a temporary file renamed over it: a symlink
 * at the file's own name is replaced, never written through), creating its folders with
 * {@link mkdirInside}. Refuses a symlinked folder component, naming it.
 */
export function writeFileInside(root: string, file: string, data: string | Buffer, mode = 0o644, o: { syncFolder?: boolean } = {}): string {
  const { abs } = insidePath(root, file);
  const dir = mkdirInside(root, resolve(abs, '..'));
  checkRealInside(root, dir, realpathSync(dir), realpathSync(root));
  writeFileAtomic(abs, data, { mode, ...o });
  return abs;
}

/**
 * The permission bits of the regular file at `abs`, read with lstat (never those of what a link
 * there points at); `fallback` when there is none. For a file written again with its mode kept.
 */
export function regularFileMode(abs: string, fallback = 0o644): number {
  const st = lstatSync(abs, { throwIfNoEntry: false });
  return st?.isFile() ? st.mode & 0o777 : fallback;
}

/**
 * Appends `data` to `file` inside `root` (a log), creating it and its folders as
 * {@link writeFileInside} does; the file itself is opened with O_NOFOLLOW and must be regular.
 */
export function appendFileInside(root: string, file: string, data: string, mode = 0o644): void {
  const { abs } = insidePath(root, file);
  mkdirInside(root, resolve(abs, '..'));
  let fd: number;
  try {
    fd = openSync(abs, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0), mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw symlinkError(abs, abs);
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UnsafePathError(`${abs} is ${kindOf(st)}, not a regular file; it is refused`, abs, abs);
    const buf = Buffer.from(data, 'utf8');
    for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
  } finally {
    closeSync(fd);
  }
}
