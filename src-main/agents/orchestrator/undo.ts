/**
 * /undo: puts back the files the last turn changed with write/patch. Before a turn first
 * touches a file, its content is stored as a git blob (`git hash-object -w`), or recorded as
 * absent; /undo writes the blobs back and deletes files the turn created. Needs git at run
 * time (seed 001 §7). Changes made by bash commands are not tracked (they may touch anything).
 */
import { existsSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { git, gitBuffer } from '../../git/git';
import type { UndoSnapshot } from '../store/session-repo';
import { resolveInRoot } from '../tools/root-guard';

/** Turns /undo can step back through; older snapshots are dropped. */
export const MAX_UNDO_SNAPSHOTS = 20;

/** Whether git is installed and the root is inside a work tree. */
export async function gitWorkTree(root: string): Promise<boolean> {
  try {
    return (await git(['rev-parse', '--is-inside-work-tree'], { cwd: root, timeoutMs: 10_000 })).trim() === 'true';
  } catch {
    // Not installed, not a repository, or the folder vanished: all mean "no git here".
    return false;
  }
}

/** The pre-image of one root-relative file: a blob id, or null when it does not exist. */
export async function preImage(root: string, rel: string): Promise<string | null> {
  const p = resolveInRoot(root, rel);
  if (!existsSync(p.abs)) return null;
  return (await git(['hash-object', '-w', '--no-filters', '--', p.abs], { cwd: root })).trim();
}

export async function restoreSnapshot(root: string, snap: UndoSnapshot): Promise<string[]> {
  const lines: string[] = [];
  for (const f of snap.files) {
    const p = resolveInRoot(root, f.path, { write: true });
    if (f.blob === null) {
      if (existsSync(p.abs)) {
        unlinkSync(p.abs);
        lines.push(`deleted ${f.path} (created by that turn)`);
      }
      continue;
    }
    const content = await gitBlob(root, f.blob);
    mkdirSync(dirname(p.abs), { recursive: true });
    writeFileSync(p.abs, content);
    lines.push(`restored ${f.path}`);
  }
  return lines;
}

/** The largest file /undo restores; a snapshot of anything bigger is refused when read back. */
const MAX_BLOB_BYTES = 64 * 1024 * 1024;

function gitBlob(root: string, blob: string): Promise<Buffer> {
  // Blobs are written back byte for byte: read them raw, not decoded as text.
  return gitBuffer(['cat-file', 'blob', blob], { cwd: root, maxOutputBytes: MAX_BLOB_BYTES });
}
