/**
 * Files git ignores that exist only in a worktree (a `.env` the agent wrote, a local database, a
 * key it generated): a worktree's archive is a git tree, which leaves ignored files out, so
 * removing the worktree lost them for good. They are found here, to be archived with the rest
 * when they are small enough, and named when they are not.
 *
 * Left out: what the worktree's setup created (recorded: node_modules, a lockfile — made again by
 * setup) and what the main checkout has too (`worktree.copy` brought it over; a folder such as
 * node_modules or dist that the checkout has as well is regenerable, not the worktree's own).
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '../git/git';
import { setupArtifacts } from './setup-artifacts';

/**
 * The ignored files archived with a worktree: at most this many bytes in all. An archive is git
 * objects kept in the repository; a `.env` or a small database fits, a build folder does not
 * (it is named to the user instead).
 */
export const MAX_ARCHIVED_IGNORED_BYTES = 20 * 1024 * 1024;
/** And at most this many files: an ignored folder of thousands is a cache, not the user's work. */
export const MAX_ARCHIVED_IGNORED_FILES = 2_000;

export interface IgnoredOnlyHere {
  /** Files (paths relative to the worktree) that fit the limits: archived with the worktree. */
  files: string[];
  bytes: number;
  /** Set when the limits are passed: what was found (files and folders), none of it archived. */
  tooLarge: { entries: string[]; bytes: number; files: number } | null;
}

function isArtifact(artifacts: readonly string[], path: string): boolean {
  return artifacts.some((a) => (a.endsWith('/') ? path === a || path.startsWith(a) : path === a || path.startsWith(`${a}/`)));
}

/** Same regular file (or any entry, for folders) at the same path in the main checkout. */
function inCheckout(root: string, worktree: string, entry: string): boolean {
  const rel = entry.replace(/\/$/, '');
  let there;
  try {
    there = lstatSync(join(root, rel));
  } catch {
    // Not in the checkout: the worktree's own.
    return false;
  }
  if (entry.endsWith('/')) return there.isDirectory();
  if (!there.isFile()) return false;
  try {
    const here = lstatSync(join(worktree, rel));
    return here.size === there.size && readFileSync(join(worktree, rel)).equals(readFileSync(join(root, rel)));
  } catch {
    // Unreadable on either side: counted as the worktree's own (archived if it can be).
    return false;
  }
}

/** The regular files under an ignored folder, stopping once past the limits. */
function walk(worktree: string, dir: string, out: { files: string[]; bytes: number }): void {
  let names: string[];
  try {
    names = readdirSync(join(worktree, dir));
  } catch {
    // Vanished or unreadable: nothing of it to archive.
    return;
  }
  for (const name of names) {
    if (out.files.length > MAX_ARCHIVED_IGNORED_FILES || out.bytes > MAX_ARCHIVED_IGNORED_BYTES) return;
    const rel = `${dir}${name}`;
    let st;
    try {
      st = lstatSync(join(worktree, rel));
    } catch {
      continue; // Gone meanwhile.
    }
    if (st.isDirectory()) walk(worktree, `${rel}/`, out);
    else if (st.isFile()) {
      out.files.push(rel);
      out.bytes += st.size;
    }
  }
}

/** The ignored files of `worktree` found nowhere else (see the module comment). */
export async function ignoredOnlyHere(root: string, worktree: string): Promise<IgnoredOnlyHere> {
  const listed = (await git(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'], { cwd: worktree })).split('\0').filter(Boolean);
  const artifacts = await setupArtifacts(worktree);
  const entries = listed.filter((e) => !isArtifact(artifacts, e) && !inCheckout(root, worktree, e));
  const found = { files: [] as string[], bytes: 0 };
  for (const e of entries) {
    if (e.endsWith('/')) walk(worktree, e, found);
    else {
      try {
        const st = lstatSync(join(worktree, e));
        if (!st.isFile()) continue; // A symlink or a special file: git keeps links, never what they point at.
        found.files.push(e);
        found.bytes += st.size;
      } catch {
        continue; // Gone meanwhile.
      }
    }
    if (found.files.length > MAX_ARCHIVED_IGNORED_FILES || found.bytes > MAX_ARCHIVED_IGNORED_BYTES) {
      return { files: [], bytes: 0, tooLarge: { entries, bytes: found.bytes, files: found.files.length } };
    }
  }
  return { files: found.files.sort(), bytes: found.bytes, tooLarge: null };
}
