/**
 * The plan-approval screen's logic without React: anchoring a selected passage to its place in
 * a document, the diff of a revision against the one the user reviewed before, and what an
 * approval or a request for changes sends.
 */
import { createTwoFilesPatch } from 'diff';
import type { PlanComment, PlanDocKind, PlanRevision } from '../../../src-preload/contract/features';

export const DOC_LABEL: Record<PlanDocKind, string> = { design: 'Design spec', verification: 'Verification plan' };
export const DOC_FILE: Record<PlanDocKind, string> = { design: 'specs/design.md', verification: 'specs/verification.md' };

/** Longest passage a comment keeps (the contract's limit): a longer selection is cut, not refused. */
export const MAX_QUOTE_CHARS = 4000;

/**
 * Characters the preview does not show (Markdown emphasis, code, heading, quote and table
 * marks): a passage selected in the preview is found in the source with these skipped.
 */
const MARKUP = new Set(['*', '_', '`', '#', '>', '|', '~']);

/** The text with markup dropped and whitespace runs as one space, and where each kept character came from. */
function normalize(text: string): { chars: string; at: number[] } {
  let chars = '';
  const at: number[] = [];
  let space = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (MARKUP.has(ch)) continue;
    if (/\s/.test(ch)) {
      if (!space && chars.length > 0) {
        chars += ' ';
        at.push(i);
      }
      space = true;
      continue;
    }
    space = false;
    chars += ch;
    at.push(i);
  }
  return { chars, at };
}

/**
 * Where a selected passage is in a document's source: `{ offset, quote }` with the quote as
 * the source has it (so the Planner sees the exact text), or null when it is not there. The
 * selection may come from the editor (already source text) or the rendered preview (no
 * markup, whitespace changed); `near` prefers the occurrence closest to that offset.
 */
export function locateQuote(source: string, selected: string, near = 0): { offset: number; quote: string } | null {
  const want = selected.trim();
  if (want === '') return null;
  const exact = closestIndex(source, want, near);
  if (exact >= 0) return { offset: exact, quote: want.slice(0, MAX_QUOTE_CHARS) };
  const src = normalize(source);
  const q = normalize(want).chars.trim();
  if (q === '') return null;
  const hit = closestIndex(src.chars, q, near, (i) => src.at[i]!);
  if (hit < 0) return null;
  const start = src.at[hit]!;
  const end = src.at[hit + q.length - 1]! + 1;
  return { offset: start, quote: source.slice(start, end).slice(0, MAX_QUOTE_CHARS) };
}

function closestIndex(hay: string, needle: string, near: number, toSource: (i: number) => number = (i) => i): number {
  let best = -1;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) {
    if (best < 0 || Math.abs(toSource(i) - near) < Math.abs(toSource(best) - near)) best = i;
  }
  return best;
}

/** A comment being written on the screen: anchored ones carry their document, passage and place. */
export interface DraftComment {
  id: string;
  anchor: { doc: PlanDocKind; quote: string; offset: number } | null;
  text: string;
}

/** The comments as the contract takes them (empty texts dropped: they say nothing). */
export function toPlanComments(comments: readonly DraftComment[]): PlanComment[] {
  return comments
    .filter((c) => c.text.trim() !== '')
    .map((c) => ({ ...(c.anchor ? { anchor: { ...c.anchor } } : {}), text: c.text.trim() }));
}

export interface DocDiff {
  doc: PlanDocKind;
  /** Unified diff text; empty when the document did not change. */
  patch: string;
  added: number;
  removed: number;
}

const withNewline = (s: string) => (s === '' || s.endsWith('\n') ? s : `${s}\n`);

/** What changed in each document from the revision the user reviewed to this one. */
export function revisionDiffs(previous: Pick<PlanRevision, 'designMd' | 'verificationMd'>, current: Pick<PlanRevision, 'designMd' | 'verificationMd'>): DocDiff[] {
  const docs: Array<[PlanDocKind, string, string]> = [
    ['design', previous.designMd, current.designMd],
    ['verification', previous.verificationMd, current.verificationMd],
  ];
  return docs.map(([doc, a, b]) => {
    if (a === b) return { doc, patch: '', added: 0, removed: 0 };
    const patch = createTwoFilesPatch(`a/${DOC_FILE[doc]}`, `b/${DOC_FILE[doc]}`, withNewline(a), withNewline(b), undefined, undefined, { context: 3 });
    let added = 0;
    let removed = 0;
    for (const line of patch.split('\n')) {
      if (line.startsWith('+') && !line.startsWith('+++')) added++;
      else if (line.startsWith('-') && !line.startsWith('---')) removed++;
    }
    return { doc, patch, added, removed };
  });
}
