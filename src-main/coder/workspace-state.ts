/**
 * What a run changed in cd: a fingerprint of the working folder before and after, so that
 * (seed 000) a failed attempt that changed files is never retried blindly, and a run that
 * touched paths its contract puts out of scope is reported as failed.
 *
 * In a git repository: `git status --porcelain` (untracked files listed one by one) plus a
 * content hash of every dirty path, plus HEAD (commits the agent made are diffed too). Outside
 * git: a walk of the folder (size, mtime and, for small files, a content hash).
 */
import { createHash } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { git } from '../git/git';

/** Files up to this size are hashed; bigger ones are fingerprinted by size and mtime. */
const HASH_LIMIT_BYTES = 4 * 1024 * 1024;
/**
 * A non-git folder bigger than this is not walked to the end (a home folder by mistake);
 * its state is then "unknown" and treated as changed, which only ever prevents a retry.
 */
const MAX_WALK_ENTRIES = 20_000;
/** Never part of a work product; walking them would dominate the time. */
const SKIPPED_DIRS = new Set(['.git', 'node_modules']);

export interface WorkspaceSnapshot {
  kind: 'git' | 'tree' | 'unknown';
  /** cd, real path. */
  cd: string;
  /** Path relative to cd (`/`-separated, `../x` when outside cd) → fingerprint. */
  entries: Map<string, string>;
  /** git only: the top level and HEAD (null before the first commit). */
  top?: string;
  head?: string | null;
}

function toRel(cd: string, absolute: string): string {
  const rel = relative(cd, absolute);
  return sep === '/' ? rel : rel.split(sep).join('/');
}

/** A FIFO opens at once instead of waiting for a writer; a symlink swapped in is not followed. */
const OPEN_NOWAIT = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

async function fingerprint(path: string): Promise<string> {
  try {
    const st = await lstat(path);
    if (st.isSymbolicLink()) return `link`;
    if (st.isDirectory()) return 'dir';
    // A FIFO, socket or device is never read: opening or reading one can wait forever (and
    // would hold a thread-pool thread, wedging the run). Its kind and times stand for it.
    if (!st.isFile()) return `special:${specialName(st)}:${st.mtimeMs}`;
    if (st.size > HASH_LIMIT_BYTES) return `big:${st.size}:${st.mtimeMs}`;
    const fh = await open(path, OPEN_NOWAIT);
    try {
      const now = await fh.stat();
      // Replaced by something else since the lstat: fingerprint what is there now, without reading it.
      if (!now.isFile()) return `special:${specialName(now)}:${now.mtimeMs}`;
      return `sha1:${createHash('sha1').update(await fh.readFile()).digest('hex')}`;
    } finally {
      await fh.close();
    }
  } catch {
    return 'missing';
  }
}

function specialName(st: Stats): string {
  if (st.isFIFO()) return 'fifo';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice()) return 'chardev';
  if (st.isBlockDevice()) return 'blockdev';
  return 'other';
}

async function gitSnapshot(cd: string, top: string): Promise<WorkspaceSnapshot> {
  // A nested repository counts by its HEAD only (the app's git never looks into its work tree).
  const status = await git(['status', '--porcelain=v1', '-z', '--untracked-files=all'], { cwd: top });
  const head = await git(['rev-parse', '--verify', '-q', 'HEAD'], { cwd: top }).then(
    (s) => s.trim(),
    () => null,
  );
  const entries = new Map<string, string>();
  const parts = status.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i]!;
    if (entry.length < 4) continue;
    const code = entry.slice(0, 2);
    const path = entry.slice(3);
    // Renames and copies are followed by their source path: both changed.
    if (code[0] === 'R' || code[0] === 'C') {
      const from = parts[++i];
      if (from) entries.set(toRel(cd, join(top, from)), `${code}:gone`);
    }
    entries.set(toRel(cd, join(top, path)), `${code}:${await fingerprint(join(top, path))}`);
  }
  return { kind: 'git', cd, entries, top, head };
}

async function treeSnapshot(cd: string): Promise<WorkspaceSnapshot> {
  const entries = new Map<string, string>();
  const stack = [cd];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      // An unreadable folder cannot be compared; its absence is recorded as is.
      entries.set(toRel(cd, dir), 'unreadable');
      continue;
    }
    for (const name of names) {
      if (entries.size >= MAX_WALK_ENTRIES) return { kind: 'unknown', cd, entries };
      const path = join(dir, name);
      const st = await lstat(path).catch(() => null);
      if (!st) continue;
      if (st.isDirectory()) {
        if (!SKIPPED_DIRS.has(name)) stack.push(path);
        continue;
      }
      const small = st.isFile() && st.size <= HASH_LIMIT_BYTES;
      entries.set(toRel(cd, path), small ? await fingerprint(path) : `${st.size}:${st.mtimeMs}`);
    }
  }
  return { kind: 'tree', cd, entries };
}

export async function snapshotWorkspace(cdPath: string): Promise<WorkspaceSnapshot> {
  const cd = await realpath(cdPath);
  const top = await git(['rev-parse', '--show-toplevel'], { cwd: cd }).then(
    (s) => s.trim(),
    () => null,
  );
  if (top && isAbsolute(top)) return gitSnapshot(cd, await realpath(top));
  return treeSnapshot(cd);
}

/**
 * Paths (relative to cd) that differ between two snapshots, including files changed by
 * commits made in between. null = cannot tell (treat as changed).
 */
export async function changedPaths(before: WorkspaceSnapshot, after: WorkspaceSnapshot): Promise<string[] | null> {
  if (before.kind === 'unknown' || after.kind === 'unknown' || before.kind !== after.kind) return null;
  const changed = new Set<string>();
  for (const [path, fp] of after.entries) if (before.entries.get(path) !== fp) changed.add(path);
  for (const path of before.entries.keys()) if (!after.entries.has(path)) changed.add(path);
  if (before.kind === 'git' && before.head !== after.head) {
    if (!before.head || !after.head) return null;
    const names = await git(['diff', '--name-only', '-z', before.head, after.head], { cwd: after.top! }).catch(() => null);
    if (names === null) return null;
    for (const name of names.split('\0')) if (name) changed.add(toRel(after.cd, join(after.top!, name)));
  }
  return [...changed].sort();
}
