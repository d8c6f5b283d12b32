/**
 * Reading a branch tip or HEAD from git's files instead of starting a git: a feature run asks
 * for HEAD several times per phase and a worktree's creation for a handful of refs, and each git
 * costs a process (several milliseconds, more on a loaded machine). Only the plain layout is
 * read — a loose ref file holding an object id, else a line of `packed-refs` — and anything else
 * (a reftable repository, a symbolic ref other than HEAD, an oversized or odd file) answers
 * `undefined`, so the caller asks git. What is read is recorded, never trusted to decide what
 * git runs or where it looks: the location comes from ./repo-location.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { readFileNoWait } from '../platform/read-no-wait';
import type { RepoLocation } from './repo-location';

/** A loose ref or HEAD is one line; anything bigger is not git's. */
const MAX_REF_FILE_BYTES = 4096;
/** packed-refs read up to this size; past it git is asked. */
const MAX_PACKED_REFS_BYTES = 4 * 1024 * 1024;
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** The file's text, null when absent, undefined when it is not a small regular file (or unreadable). */
function small(path: string, max: number): string | null | undefined {
  let st;
  try {
    st = lstatSync(path);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR' ? null : undefined;
  }
  if (!st.isFile() || st.size > max) return undefined;
  try {
    // Without waiting: a FIFO swapped in after the lstat must not hold the main thread.
    return readFileNoWait(path, 'utf8');
  } catch {
    // Replaced or removed between the lstat and the read: git is asked instead.
    return undefined;
  }
}

/** A branch name git could have written as a file under refs/heads (no `..`, no empty part, no lock). */
function plainRefName(name: string): boolean {
  return /^refs\/(heads|remotes|tags)\/[A-Za-z0-9._/+@-]+$/.test(name) && !name.split('/').some((p) => p === '' || p === '.' || p === '..' || p.endsWith('.lock'));
}

/**
 * The object id a ref (`refs/heads/main`) points to: the id, null when the ref does not exist,
 * undefined when only git can tell.
 */
export function readRef(loc: RepoLocation, name: string): string | null | undefined {
  if (!plainRefName(name)) return undefined;
  // A reftable repository keeps no ref files at all.
  if (small(join(loc.commonDir, 'reftable'), 0) !== null) return undefined;
  const loose = small(join(loc.commonDir, name), MAX_REF_FILE_BYTES);
  if (loose === undefined) return undefined;
  if (loose !== null) {
    const id = loose.trim();
    return OBJECT_ID.test(id) ? id : undefined;
  }
  const packed = small(join(loc.commonDir, 'packed-refs'), MAX_PACKED_REFS_BYTES);
  if (packed === undefined) return undefined;
  if (packed === null) return null;
  for (const line of packed.split('\n')) {
    if (line.length > 41 && line.endsWith(name) && line.charAt(line.length - name.length - 1) === ' ') {
      const id = line.slice(0, line.length - name.length - 1);
      return OBJECT_ID.test(id) ? id : undefined;
    }
  }
  return null;
}

/**
 * The commit HEAD of the work tree at `loc` points to: its id, null on an unborn branch,
 * undefined when only git can tell.
 */
export function readHead(loc: RepoLocation): string | null | undefined {
  const head = small(join(loc.gitDir, 'HEAD'), MAX_REF_FILE_BYTES);
  if (head === undefined || head === null) return undefined;
  const line = head.trim();
  if (OBJECT_ID.test(line)) return line;
  const m = /^ref: (refs\/heads\/\S+)$/.exec(line);
  return m ? readRef(loc, m[1]!) : undefined;
}
