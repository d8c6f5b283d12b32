/**
 * A turn's file checkpoint taken from the whole working tree, for executors whose edits do not
 * pass through the engine's write/patch tools (Claude Code edits, creates and deletes files
 * itself, with its own tools and its shell). Before and after the turn the working tree is
 * written as a git tree object (tracked and untracked files, ignored ones not) through a
 * temporary index, so the repository's own index is never touched; the difference between the
 * two trees becomes the same UndoSnapshot the write/patch tools record (pre-image, post-image,
 * created folders), so /undo, /rewind and fork treat it exactly like theirs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, posix } from 'node:path';
import { git, gitBufferWithExit, gitThen } from '../../git/git';
import { readFileNoWaitAsync } from '../../platform/read-no-wait';
import type { UndoSnapshot } from '../store/session-repo';

/** Hashing a large untracked tree (a dependency folder git does not ignore) can take a while. */
const CAPTURE_TIMEOUT_MS = 120_000;
/** git's id of "no object" in a raw diff. */
const NO_BLOB = /^0+$/;
/** Regular files only: a link or a nested repository is not put back as file content. */
const FILE_MODES = new Set(['100644', '100755']);

/**
 * The working tree of `root` as a tree id. The repository's index is copied first so git reuses
 * its stat cache and hashes only what changed since it was written. The index lives in the git
 * folder, which the agent can write: anything but a regular file there (a FIFO would hold the
 * read forever) is not copied, and git then hashes the whole tree into an empty index.
 */
export async function captureWorkingTree(root: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'fd-turn-index-'));
  try {
    const index = join(dir, 'index');
    const own = (await git(['rev-parse', '--git-path', 'index'], { cwd: root })).trim();
    const ownPath = isAbsolute(own) ? own : join(root, own);
    const copy = await readFileNoWaitAsync(ownPath).catch(() => null);
    if (copy) await writeFile(index, copy);
    const env = { GIT_INDEX_FILE: index };
    // The add and the tree it made, one process start (gitThen).
    return (await gitThen(['add', '-A', '--', '.'], ['write-tree'], { cwd: root, env, timeoutMs: CAPTURE_TIMEOUT_MS })).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface RawChange {
  path: string;
  oldMode: string;
  newMode: string;
  oldBlob: string;
  newBlob: string;
}

/** `git diff-tree -r -z --raw` output: ":old new oldsha newsha status\0path\0" per change. */
export function parseRawDiff(out: string): RawChange[] {
  const parts = out.split('\0');
  const changes: RawChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = parts[i]!.replace(/^\s*:/, '').split(' ');
    const path = parts[i + 1]!;
    if (meta.length < 5 || path === '') continue;
    changes.push({ path, oldMode: meta[0]!, newMode: meta[1]!, oldBlob: meta[2]!, newBlob: meta[3]! });
  }
  return changes;
}

async function inTree(root: string, tree: string, dir: string): Promise<boolean> {
  return (await gitBufferWithExit(['cat-file', '-e', `${tree}:${dir}`], { cwd: root })).exitCode === 0;
}

/**
 * The turn's snapshot between two captured trees, or null when no regular file changed. Folders
 * that hold a created file and were not in the tree before are the turn's: /undo removes them
 * when they end up empty.
 */
export async function snapshotBetween(root: string, before: string, after: string, turnId: string, at = Date.now()): Promise<UndoSnapshot | null> {
  if (before === after) return null;
  const out = (await gitBufferWithExit(['diff-tree', '-r', '-z', '--raw', '--no-renames', '--no-ext-diff', before, after], { cwd: root })).stdout.toString('utf8');
  const files: UndoSnapshot['files'] = [];
  const dirs = new Set<string>();
  for (const c of parseRawDiff(out)) {
    const oldFile = FILE_MODES.has(c.oldMode) && !NO_BLOB.test(c.oldBlob);
    const newFile = FILE_MODES.has(c.newMode) && !NO_BLOB.test(c.newBlob);
    // A link or nested repository on either side is left out: its pre-image is not file content.
    if ((!oldFile && !NO_BLOB.test(c.oldBlob)) || (!newFile && !NO_BLOB.test(c.newBlob))) continue;
    files.push({ path: c.path, blob: oldFile ? c.oldBlob : null, post: newFile ? c.newBlob : null });
    if (!oldFile) {
      for (let d = posix.dirname(c.path); d !== '.' && d !== '/' && d !== ''; d = posix.dirname(d)) {
        if (dirs.has(d) || (await inTree(root, before, d))) break;
        dirs.add(d);
      }
    }
  }
  if (files.length === 0) return null;
  // Outermost first, as the write/patch tools record them.
  return { turnId, at, files, dirs: [...dirs].sort((a, b) => a.split('/').length - b.split('/').length) };
}
