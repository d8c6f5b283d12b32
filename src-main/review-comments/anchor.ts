/**
 * Where a review comment stands after a fix, from the file as it was when the comment was sent
 * and as it is now. Pure.
 *
 * - outdated: its lines are gone (the file was deleted, or the fix removed them all and put
 *   nothing in their place);
 * - addressed: the fix touched them: changed or removed one, or wrote next to or between them
 *   (a doc comment above a function leaves the function's lines as they were);
 * - open: the fix left them and their surroundings as they were (they may have moved).
 */
import { diffLines } from 'diff';

export type AnchorVerdict = 'open' | 'addressed' | 'outdated';

/** Lines `start`..`end` (1-based, inclusive) of `text`; null when the text has fewer lines. */
export function linesOf(text: string, start: number, end: number): string | null {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (start < 1 || end < start || end > lines.length) return null;
  return lines.slice(start - 1, end).join('\n');
}

export function judgeAnchor(c: { lineStart: number; lineEnd: number }, before: string, now: string | null): AnchorVerdict {
  if (now === null) return 'outdated';
  const norm = (t: string) => (t.endsWith('\n') || t === '' ? t : `${t}\n`).replace(/\r\n/g, '\n');
  let line = 1; // the next line of `before`
  let removed = 0;
  let touched = false;
  let addedInside = false;
  for (const part of diffLines(norm(before), norm(now))) {
    const n = part.count ?? 0;
    if (part.added) {
      // Written between line-1 and line: touching when it borders or falls inside the anchor.
      if (line >= c.lineStart && line <= c.lineEnd + 1) {
        touched = true;
        if (line > c.lineStart && line <= c.lineEnd) addedInside = true;
      }
      continue;
    }
    const first = line;
    const last = line + n - 1;
    line += n;
    if (!part.removed) continue;
    const from = Math.max(first, c.lineStart);
    const to = Math.min(last, c.lineEnd);
    if (from <= to) {
      removed += to - from + 1;
      touched = true;
    }
  }
  const size = c.lineEnd - c.lineStart + 1;
  if (removed === size && !addedInside && !replacedAt(before, now, c)) return 'outdated';
  return touched ? 'addressed' : 'open';
}

/** Whether lines took the removed anchor's place (a rewrite, not a deletion). */
function replacedAt(before: string, now: string, c: { lineStart: number; lineEnd: number }): boolean {
  let line = 1;
  let prevRemovedAnchor = false;
  for (const part of diffLines(before.endsWith('\n') ? before : `${before}\n`, now.endsWith('\n') ? now : `${now}\n`)) {
    const n = part.count ?? 0;
    if (part.added) {
      if (prevRemovedAnchor) return true;
      continue;
    }
    prevRemovedAnchor = part.removed === true && line <= c.lineEnd && line + n - 1 >= c.lineStart;
    line += n;
  }
  return false;
}

/** One fix round's request: each comment anchored as file, line range, the quoted code and the text. */
export function fixRoundText(comments: ReadonlyArray<{ file: string; lineStart: number; lineEnd: number; quote: string; body: string }>): string {
  const fence = (code: string) => {
    const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
    const f = '`'.repeat(longest + 1);
    return `${f}\n${code}\n${f}`;
  };
  const items = comments.map((c, i) => {
    const where = c.lineStart === c.lineEnd ? `line ${c.lineStart}` : `lines ${c.lineStart}-${c.lineEnd}`;
    return `### ${i + 1}. ${c.file}, ${where}\n\n${fence(c.quote)}\n\n${c.body.trim()}`;
  });
  return [
    `The user reviewed the diff and left ${comments.length === 1 ? 'a comment' : `${comments.length} comments`} on it. Address each one in the code (the line numbers are those of the commit they were made on), then say in one line per comment what you did.`,
    '',
    ...items.flatMap((t) => [t, '']),
  ].join('\n');
}
