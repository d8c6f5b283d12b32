/**
 * Pure diff logic of the changes view: one file's base (HEAD) and current content into hunks
 * and a git-style unified diff, and taking one hunk back out of the current content.
 * No I/O here; the service reads and writes the files.
 */
import { applyPatch, reversePatch, structuredPatch } from 'diff';
import type { ChangeHunk, FileChange } from '../../src-preload/contract/changes';

/** Lines of context around each hunk: git's default, what people read diffs with. */
export const DIFF_CONTEXT_LINES = 3;
/**
 * Files larger than this are listed without hunks: a diff of megabytes is unreadable in a
 * view and costly to compute and send; the whole file can still be reverted.
 */
export const MAX_DIFF_BYTES = 1024 * 1024;
/** Git looks for a NUL byte in the first 8,000 bytes to call a file binary; so do we. */
const BINARY_SNIFF_BYTES = 8000;

export function isBinary(b: Buffer | null): boolean {
  return b !== null && b.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/** The change of one file from `base` (null: absent at HEAD) to `current` (null: absent now). */
export function fileChange(path: string, base: Buffer | null, current: Buffer | null): FileChange | null {
  if (base !== null && current !== null && base.equals(current)) return null;
  if (base === null && current === null) return null;
  const status: FileChange['status'] = base === null ? 'added' : current === null ? 'deleted' : 'modified';
  const binary = isBinary(base) || isBinary(current);
  const tooLarge = !binary && (base?.length ?? 0) + (current?.length ?? 0) > MAX_DIFF_BYTES;
  if (binary || tooLarge) return { path, status, binary, tooLarge, added: 0, removed: 0, diff: '', hunks: [] };
  const oldText = base?.toString('utf8') ?? '';
  const newText = current?.toString('utf8') ?? '';
  const patch = structuredPatch(`a/${path}`, `b/${path}`, oldText, newText, undefined, undefined, { context: DIFF_CONTEXT_LINES });
  const hunks: ChangeHunk[] = patch.hunks.map((h) => ({ oldStart: h.oldStart, oldLines: h.oldLines, newStart: h.newStart, newLines: h.newLines, lines: [...h.lines] }));
  let added = 0;
  let removed = 0;
  for (const h of hunks)
    for (const l of h.lines) {
      if (l.startsWith('+')) added++;
      else if (l.startsWith('-')) removed++;
    }
  return { path, status, binary, tooLarge, added, removed, diff: formatGitDiff(path, status, hunks), hunks };
}

/** A hunk header as git writes it: an empty side starts at the line before (0 for an empty file). */
function hunkHeader(h: ChangeHunk): string {
  const side = (start: number, lines: number) => `${lines === 0 ? Math.max(0, start - 1) : start}${lines === 1 ? '' : `,${lines}`}`;
  return `@@ -${side(h.oldStart, h.oldLines)} +${side(h.newStart, h.newLines)} @@`;
}

/** The unified diff in git's own format, so any git diff parser (and person) reads it. */
export function formatGitDiff(path: string, status: FileChange['status'], hunks: readonly ChangeHunk[]): string {
  const out = [`diff --git a/${path} b/${path}`];
  if (status === 'added') out.push('new file mode 100644');
  if (status === 'deleted') out.push('deleted file mode 100644');
  out.push(status === 'added' ? '--- /dev/null' : `--- a/${path}`, status === 'deleted' ? '+++ /dev/null' : `+++ b/${path}`);
  for (const h of hunks) out.push(hunkHeader(h), ...h.lines);
  return out.join('\n') + '\n';
}

/**
 * The current text with one hunk taken out (the reverse hunk applied), or null when it no
 * longer applies: the lines it added are not where they were (nor near) any more.
 */
export function revertHunk(current: string, path: string, hunk: ChangeHunk): string | null {
  const forward = { oldFileName: `a/${path}`, newFileName: `b/${path}`, oldHeader: undefined, newHeader: undefined, hunks: [{ ...hunk, lines: [...hunk.lines] }] };
  const result = applyPatch(current, reversePatch(forward));
  return result === false ? null : result;
}
