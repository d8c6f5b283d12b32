/**
 * Undoing what a run changed outside its Implementation Contract's scope. Before a run under a
 * contract, the content git cannot give back is kept (files dirty or untracked in a
 * repository, every small file of a folder outside git); after it, each out-of-scope path is
 * put back as the snapshot found it: the kept content, else the file at the HEAD of then,
 * else "it did not exist" (removed). A path whose earlier content is unknown is left alone and
 * reported, never guessed.
 */
import { constants } from 'node:fs';
import { mkdir, open, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { git, gitBuffer } from '../git/git';
import type { WorkspaceSnapshot } from './workspace-state';

/** Files above this are not kept (nor hashed by the snapshot): a work product is source, not media. */
const MAX_KEPT_FILE_BYTES = 4 * 1024 * 1024;
/** All kept content of one run; beyond it changed files are reported as not revertible. */
const MAX_KEPT_BYTES = 64 * 1024 * 1024;
/** A FIFO opens at once instead of waiting for a writer; a symlink swapped in is not followed. */
const OPEN_NOWAIT = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

export type PreImages = Map<string, Buffer>;

async function readRegular(path: string): Promise<Buffer | null> {
  try {
    const fh = await open(path, OPEN_NOWAIT);
    try {
      const st = await fh.stat();
      return st.isFile() && st.size <= MAX_KEPT_FILE_BYTES ? await fh.readFile() : null;
    } finally {
      await fh.close();
    }
  } catch {
    // Missing, a symlink or unreadable: nothing to keep (revert reports it if it changes).
    return null;
  }
}

/** The content of every path the snapshot lists that git could not give back later. */
export async function keepPreImages(s: WorkspaceSnapshot): Promise<PreImages> {
  const kept: PreImages = new Map();
  let bytes = 0;
  for (const rel of s.entries.keys()) {
    const content = await readRegular(join(s.cd, rel));
    if (!content || bytes + content.length > MAX_KEPT_BYTES) continue;
    bytes += content.length;
    kept.set(rel, content);
  }
  return kept;
}

export interface RevertReport {
  reverted: string[];
  failed: Array<{ path: string; reason: string }>;
}

function existedBefore(s: WorkspaceSnapshot, rel: string): boolean | 'unknown' {
  const fp = s.entries.get(rel);
  if (fp === undefined) return 'unknown';
  return !(fp === 'missing' || fp.endsWith(':missing'));
}

function posixRel(from: string, to: string): string {
  const r = relative(from, to);
  return sep === '/' ? r : r.split(sep).join('/');
}

/** Puts `paths` (relative to cd, as changedPaths gives them) back as `before` found them. */
export async function revertPaths(before: WorkspaceSnapshot, kept: PreImages, paths: readonly string[]): Promise<RevertReport> {
  const report: RevertReport = { reverted: [], failed: [] };
  for (const rel of paths) {
    const abs = join(before.cd, rel);
    try {
      let content: Buffer | null;
      const listed = existedBefore(before, rel);
      if (kept.has(rel)) content = kept.get(rel)!;
      else if (listed === true) {
        report.failed.push({ path: rel, reason: 'its earlier content was not kept (too big, or not a regular file)' });
        continue;
      } else if (listed === false) content = null;
      else if (before.kind === 'git' && before.head) {
        // Clean before the run: what HEAD had, or nothing when HEAD did not have it (a new file).
        // A git failure here throws (reported), never reads as "did not exist".
        const inTop = posixRel(before.top!, abs);
        const listedInHead = await git(['ls-tree', '-z', before.head, '--', inTop], { cwd: before.top! });
        content = listedInHead === '' ? null : await gitBuffer(['show', `${before.head}:${inTop}`], { cwd: before.top! });
      } else content = null;
      await rm(abs, { force: true, recursive: true });
      if (content !== null) {
        await mkdir(dirname(abs), { recursive: true });
        await writeFile(abs, content);
      }
      report.reverted.push(rel);
    } catch (e) {
      report.failed.push({ path: rel, reason: e instanceof Error ? e.message : String(e) });
    }
  }
  return report;
}
