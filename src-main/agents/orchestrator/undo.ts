/**
 * /undo and /redo: put back the files the last turn changed with write/patch, without ever
 * destroying what the user did since.
 *
 * Recording (during a turn): before the turn first touches a file, its content is stored as a
 * git blob (`git hash-object -w`), or recorded as absent, together with the folders the write
 * will create. After each change, and again when the turn ends, the content the turn LEFT is
 * stored too (the post-image).
 *
 * Undoing compares every file with that post-image. A file still as the turn left it is put
 * back. A file changed since (by the user, an editor, another tool) is a conflict and is not
 * touched until the user chooses: keep theirs, take the pre-turn version, or a merged view
 * (`git merge-file` of the current content, the turn's post-image as base and the pre-turn
 * version: the turn's change is taken out, the user's later edits stay, overlaps get conflict
 * markers). Whatever /undo replaces or deletes is stored as a git blob first, and /redo puts
 * it back. Folders the turn created are removed when they end up empty. Needs git at run time
 * (seed 001 §7). Changes made by bash commands are not tracked (they may touch anything).
 */
import { existsSync, mkdtempSync, readdirSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { readFileNoWait } from '../../platform/read-no-wait';
import { regularFileMode, writeFileInside } from '../../platform/contained-path';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { git, gitBuffer, gitBufferWithExit } from '../../git/git';
import type { RedoRecord, UndoSnapshot } from '../store/session-repo';
import { resolveInRoot } from '../tools/root-guard';

/** Turns /undo can step back through; older snapshots are dropped. */
export const MAX_UNDO_SNAPSHOTS = 20;
/** /undo steps /redo can take back. */
export const MAX_REDO_RECORDS = 20;
/** Blobs are files the agent wrote; anything bigger than this is not a source file. */
const MAX_BLOB_BYTES = 64 * 1024 * 1024;

/** What the user chose for files changed since the turn. */
export const UNDO_CHOICES = ['keep', 'pre', 'merge'] as const;
export type UndoChoice = (typeof UNDO_CHOICES)[number];

/** Whether git is installed and the root is inside a work tree. */
export async function gitWorkTree(root: string): Promise<boolean> {
  try {
    return (await git(['rev-parse', '--is-inside-work-tree'], { cwd: root, timeoutMs: 10_000 })).trim() === 'true';
  } catch {
    // Not installed, not a repository, or the folder vanished: all mean "no git here".
    return false;
  }
}

/**
 * Whether `abs` has content git can hash: false when it does not exist or is a folder. A FIFO,
 * socket or device (or a link to one) throws: `git hash-object` would wait on it forever, and
 * a snapshot must never wedge the turn (the write tools refuse such files before this).
 */
function hashable(abs: string): boolean {
  if (!existsSync(abs)) return false;
  const st = statSync(abs);
  if (st.isDirectory()) return false;
  if (!st.isFile()) throw new Error(`${abs} is not a regular file (a FIFO, socket or device); it is not snapshotted.`);
  return true;
}

/** Stores a file's current content as a git blob; null when it does not exist (or is a folder). */
async function storeBlob(root: string, abs: string): Promise<string | null> {
  if (!hashable(abs)) return null;
  return (await git(['hash-object', '-w', '--no-filters', '--', abs], { cwd: root })).trim();
}

/** The blob id a file's current content has, without storing it; null when absent. */
async function blobIdOf(root: string, abs: string): Promise<string | null> {
  if (!hashable(abs)) return null;
  return (await git(['hash-object', '--no-filters', '--', abs], { cwd: root })).trim();
}

/** The pre-image of one root-relative file: a blob id, or null when it does not exist. */
export async function preImage(root: string, rel: string): Promise<string | null> {
  return storeBlob(root, resolveInRoot(root, rel).abs);
}

/** Folders between the root and `rel` that do not exist yet, outermost first. */
export function missingDirs(root: string, rel: string): string[] {
  const out: string[] = [];
  for (let d = dirname(rel); d !== '.' && d !== '/' && d !== ''; d = dirname(d)) {
    if (existsSync(join(root, d))) break;
    out.unshift(d);
  }
  return out;
}

/** A file's pre-image (blob id or null) and the folders a write to it will create. */
export async function capturePre(root: string, rel: string): Promise<{ blob: string | null; dirs: string[] }> {
  const blob = await preImage(root, rel);
  return { blob, dirs: blob === null ? missingDirs(root, rel) : [] };
}

/** Whether the turn's snapshot already holds this file (a resumed turn keeps what it recorded). */
export function hasPre(undo: readonly UndoSnapshot[], turnId: string, rel: string): boolean {
  return undo.some((u) => u.turnId === turnId && u.files.some((f) => f.path === rel));
}

/** The snapshot list with a file's pre-image added to the turn's snapshot. Pure. */
export function addPre(undo: readonly UndoSnapshot[], turnId: string, rel: string, pre: { blob: string | null; dirs: string[] }): UndoSnapshot[] {
  const current = undo.find((u) => u.turnId === turnId);
  if (current?.files.some((f) => f.path === rel)) return [...undo];
  const snap: UndoSnapshot = current
    ? { ...current, files: [...current.files, { path: rel, blob: pre.blob }], dirs: [...new Set([...(current.dirs ?? []), ...pre.dirs])] }
    : { turnId, at: Date.now(), files: [{ path: rel, blob: pre.blob }], dirs: pre.dirs };
  return putSnapshot(undo, snap);
}

/** The snapshot list with a turn's snapshot put last (replacing the one it had), the oldest past the limit dropped. Pure. */
export function putSnapshot(undo: readonly UndoSnapshot[], snap: UndoSnapshot): UndoSnapshot[] {
  return [...undo.filter((u) => u.turnId !== snap.turnId), snap].slice(-MAX_UNDO_SNAPSHOTS);
}

/** Stores what the files hold now (the turn's post-images): path → blob id, or null when absent. */
export async function capturePosts(root: string, paths: readonly string[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (const p of paths) out.set(p, await storeBlob(root, resolveInRoot(root, p).abs));
  return out;
}

/** The snapshot list with the turn's post-images set. Pure. */
export function setPosts(undo: readonly UndoSnapshot[], turnId: string, posts: ReadonlyMap<string, string | null>): UndoSnapshot[] {
  return undo.map((u) => (u.turnId !== turnId ? u : { ...u, files: u.files.map((f) => (posts.has(f.path) ? { ...f, post: posts.get(f.path)! } : f)) }));
}

/** How one file of a snapshot stands now. */
export type FileState =
  /** Still as the turn left it: safe to put back. */
  | 'clean'
  /** Already as before the turn: nothing to do. */
  | 'same'
  /** Changed since the turn (or the turn's result was never recorded): the user decides. */
  | 'conflict';

export interface FilePlan {
  path: string;
  abs: string;
  pre: string | null;
  post: string | null | undefined;
  current: string | null;
  state: FileState;
}

export async function planUndo(root: string, snap: UndoSnapshot): Promise<FilePlan[]> {
  const out: FilePlan[] = [];
  for (const f of snap.files) {
    const abs = resolveInRoot(root, f.path, { write: true }).abs;
    const current = await blobIdOf(root, abs);
    const state: FileState = current === f.blob ? 'same' : f.post !== undefined && current === f.post ? 'clean' : 'conflict';
    out.push({ path: f.path, abs, pre: f.blob, post: f.post, current, state });
  }
  return out;
}

export function readBlob(root: string, blob: string): Promise<Buffer> {
  // Blobs are written back byte for byte: read them raw, not decoded as text.
  return gitBuffer(['cat-file', 'blob', blob], { cwd: root, maxOutputBytes: MAX_BLOB_BYTES });
}

/**
 * The merged view: the current content with the turn's change (post → pre) taken out.
 * `git merge-file` exits with the number of conflicts (markers left in the text), or < 0 / > 127
 * on an error.
 */
export async function mergedView(root: string, p: FilePlan): Promise<{ content: Buffer; conflicts: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'fd-undo-merge-'));
  try {
    const write = async (name: string, blob: string | null | undefined) => {
      const file = join(dir, name);
      writeFileSync(file, blob ? await readBlob(root, blob) : Buffer.alloc(0));
      return file;
    };
    // The current content is read from disk: its blob id was computed, not stored.
    const yours = join(dir, 'yours');
    writeFileSync(yours, existsSync(p.abs) ? readFileNoWait(p.abs) : Buffer.alloc(0));
    const base = await write('turn', p.post);
    const before = await write('before', p.pre);
    const r = await gitBufferWithExit(
      ['merge-file', '-p', '-L', `${p.path} (yours)`, '-L', `${p.path} (as the turn left it)`, '-L', `${p.path} (before the turn)`, yours, base, before],
      { cwd: root, maxOutputBytes: MAX_BLOB_BYTES },
    );
    if (r.exitCode === 0 || (r.exitCode > 0 && r.exitCode < 128)) return { content: r.stdout, conflicts: r.exitCode };
    throw new Error(`git merge-file failed (exit code ${r.exitCode})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Writes a blob (or deletes the file when null); returns the blob id now on disk. */
async function putBack(root: string, abs: string, blob: string | null): Promise<void> {
  if (blob === null) {
    if (existsSync(abs)) unlinkSync(abs);
    return;
  }
  // Read first, then written as a new file renamed into place, with no link on the way: what the
  // agent may have made at the name, or of a folder above it, since the path was checked is
  // replaced or refused, never written through.
  writeFileInside(root, abs, await readBlob(root, blob), regularFileMode(abs));
}


/** Removes the folders the turn created when they are empty now, innermost first. */
function removeEmptyDirs(root: string, dirs: readonly string[]): string[] {
  const removed: string[] = [];
  for (const d of [...dirs].sort((a, b) => b.split('/').length - a.split('/').length)) {
    const abs = join(root, d);
    try {
      if (existsSync(abs) && statSync(abs).isDirectory() && readdirSync(abs).length === 0) {
        rmdirSync(abs);
        removed.push(d);
      }
    } catch {
      // Raced with someone creating a file there, or no permission: the folder simply stays.
    }
  }
  return removed;
}

export interface UndoApplied {
  lines: string[];
  redo: RedoRecord;
}

/**
 * Applies an undo: clean files go back to their pre-turn content; conflicted ones follow
 * `choice` (only for `paths` when given; the others are kept). Everything replaced is stored as
 * a blob first and listed in the redo record.
 */
export async function applyUndo(root: string, snap: UndoSnapshot, plan: readonly FilePlan[], choice: UndoChoice, paths: ReadonlySet<string> | null): Promise<UndoApplied> {
  const lines: string[] = [];
  const replaced: RedoRecord['replaced'] = [];
  for (const p of plan) {
    if (p.state === 'same') {
      lines.push(`${p.path}: already as before the turn`);
      continue;
    }
    const pick: UndoChoice = p.state === 'clean' ? 'pre' : paths && !paths.has(p.path) ? 'keep' : choice;
    if (pick === 'keep') {
      lines.push(`kept ${p.path} as you changed it (conflict: it changed after the turn)`);
      continue;
    }
    // Saved before anything is replaced: /redo (or `git cat-file -p <blob>`) brings it back.
    const saved = await storeBlob(root, p.abs);
    let wrote: string | null;
    let note: string;
    if (pick === 'pre') {
      await putBack(root, p.abs, p.pre);
      wrote = p.pre;
      note = p.pre === null ? `deleted ${p.path} (created by that turn)` : `restored ${p.path}`;
      if (p.state === 'conflict') note += saved ? ` — your version is saved as git blob ${saved.slice(0, 12)}` : '';
    } else {
      const m = await mergedView(root, p);
      writeFileInside(root, p.abs, m.content, regularFileMode(p.abs));
      wrote = await storeBlob(root, p.abs);
      note = `merged ${p.path}: the turn's change taken out, your edits kept${m.conflicts ? ` — ${m.conflicts} conflict${m.conflicts === 1 ? '' : 's'} marked with <<<<<<< / >>>>>>> to resolve` : ''}`;
    }
    replaced.push({ path: p.path, saved, wrote });
    lines.push(note);
  }
  const removedDirs = removeEmptyDirs(root, snap.dirs ?? []);
  for (const d of removedDirs) lines.push(`removed the empty folder ${d}/ (created by that turn)`);
  return { lines, redo: { turnId: snap.turnId, at: Date.now(), snapshot: snap, replaced, dirs: removedDirs } };
}

/** Takes an undo back: files still as /undo left them get their saved content again. */
export async function applyRedo(root: string, rec: RedoRecord): Promise<{ lines: string[]; skipped: number }> {
  const lines: string[] = [];
  let skipped = 0;
  for (const r of rec.replaced) {
    const abs = resolveInRoot(root, r.path, { write: true }).abs;
    const current = await blobIdOf(root, abs);
    if (current === r.saved) {
      lines.push(`${r.path}: already as before /undo`);
      continue;
    }
    if (current !== r.wrote) {
      skipped++;
      lines.push(`left ${r.path} alone: it changed after /undo${r.saved ? ` (the version /undo replaced is git blob ${r.saved}: git cat-file -p ${r.saved} > ${r.path})` : ''}`);
      continue;
    }
    await putBack(root, abs, r.saved);
    lines.push(r.saved === null ? `deleted ${r.path} again` : `put back ${r.path}`);
  }
  return { lines, skipped };
}
