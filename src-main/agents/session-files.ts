/**
 * The files of a session's root for `@` mentions: tracked files plus untracked ones git does not
 * ignore, read with one bounded `git ls-files`, cached briefly (typing asks on every key).
 * Outside a git repository, a bounded walk that skips dot-folders and node_modules.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { git } from '../git/git';
import { rankPaths } from './mention-rank';

/** Files listed at most: a mention picks from a project's sources, not from a monorepo's every asset. */
export const MAX_MENTION_FILES = 20_000;
/** A listing is reused this long: a burst of keystrokes is one git call, a new file shows soon after. */
const LIST_TTL_MS = 5_000;
/** git ls-files on a large repository takes well under this; longer means something is wrong. */
const LIST_TIMEOUT_MS = 10_000;
/** The walk outside git stops this deep: mentions are for nearby files. */
const WALK_MAX_DEPTH = 8;
const WALK_SKIP = new Set(['node_modules', 'target', 'dist', 'build', '__pycache__']);

const cache = new Map<string, { at: number; files: string[]; truncated: boolean }>();

async function listGit(root: string): Promise<{ files: string[]; truncated: boolean } | null> {
  let out: string;
  try {
    out = await git(['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, timeoutMs: LIST_TIMEOUT_MS, maxOutputBytes: 16 * 1024 * 1024 });
  } catch {
    // Not a repository (or git failed): the caller falls back to walking the folder.
    return null;
  }
  // --cached and --others can name a file twice (deleted from the index, still on disk).
  const files = [...new Set(out.split('\0').filter(Boolean))];
  return { files: files.slice(0, MAX_MENTION_FILES), truncated: files.length > MAX_MENTION_FILES };
}

async function walk(root: string): Promise<{ files: string[]; truncated: boolean }> {
  const files: string[] = [];
  const queue: Array<{ dir: string; rel: string; depth: number }> = [{ dir: root, rel: '', depth: 0 }];
  while (queue.length > 0) {
    const { dir, rel, depth } = queue.shift()!;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      // An unreadable folder is left out of the suggestions; the rest still helps.
      continue;
    }
    for (const e of entries) {
      if (e.name.startsWith('.') || WALK_SKIP.has(e.name)) continue;
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (depth + 1 < WALK_MAX_DEPTH) queue.push({ dir: join(dir, e.name), rel: path, depth: depth + 1 });
      } else if (e.isFile()) {
        files.push(path);
        if (files.length >= MAX_MENTION_FILES) return { files, truncated: true };
      }
    }
  }
  return { files, truncated: false };
}

export async function sessionFiles(root: string, now = Date.now()): Promise<{ files: string[]; truncated: boolean }> {
  for (const [k, v] of cache) if (now - v.at >= LIST_TTL_MS) cache.delete(k);
  const hit = cache.get(root);
  if (hit) return hit;
  const listed = (await listGit(root)) ?? (await walk(root));
  cache.set(root, { at: now, ...listed });
  return listed;
}

/** The best matches for a mention query in a session root. */
export async function suggestFiles(root: string, query: string, limit: number): Promise<{ paths: string[]; truncated: boolean }> {
  const { files, truncated } = await sessionFiles(root);
  return { paths: rankPaths(files, query, limit), truncated };
}
