import { useState, type ReactNode } from 'react';
import { computeNewLineNumber, getChangeKey, type ChangeData, type HunkData } from 'react-diff-view';

/**
 * Comments on a diff's lines (a feature branch's changes): the lines chosen (a click on a line
 * number, shift-click for a range, a hunk's or a file's button from the keyboard), a box to write
 * the comment in under them, and the comments already made shown under their last line with
 * where they stand. Only lines of the new side can be commented: they are what the agent changes.
 */
export interface DiffCommenting {
  comments: ReadonlyArray<{ id: string; file: string; lineStart: number; lineEnd: number; status: string; body: string }>;
  add(path: string, lineStart: number, lineEnd: number, body: string): Promise<void>;
}

export interface LineRange {
  start: number;
  end: number;
}

/** The new-side line of a change; null for a removed line (it is not in the file any more). */
export function newLineOf(change: ChangeData): number | null {
  return change.type === 'delete' ? null : computeNewLineNumber(change);
}

/** The new-side lines a set of hunks covers, first to last; null when they only remove. */
export function rangeOfHunks(hunks: readonly HunkData[]): LineRange | null {
  const lines = hunks.flatMap((h) => h.changes.map(newLineOf)).filter((n): n is number => n !== null && n > 0);
  return lines.length ? { start: Math.min(...lines), end: Math.max(...lines) } : null;
}

/** The change keys of the lines in `range` (what the diff highlights), and the key of its last line. */
export function keysInRange(hunks: readonly HunkData[], range: LineRange): { keys: string[]; last: string | null } {
  const keys: string[] = [];
  let last: { n: number; key: string } | null = null;
  for (const h of hunks)
    for (const c of h.changes) {
      const n = newLineOf(c);
      if (n === null || n < range.start || n > range.end) continue;
      const key = getChangeKey(c);
      keys.push(key);
      if (!last || n >= last.n) last = { n, key };
    }
  return { keys, last: last?.key ?? null };
}

/** The key of the change showing new-side line `n`, if the diff shows it. */
function keyOfLine(hunks: readonly HunkData[], n: number): string | null {
  for (const h of hunks) for (const c of h.changes) if (newLineOf(c) === n) return getChangeKey(c);
  return null;
}

export function linesLabel(r: { start: number; end: number } | { lineStart: number; lineEnd: number }): string {
  const [a, b] = 'start' in r ? [r.start, r.end] : [r.lineStart, r.lineEnd];
  return a === b ? `line ${a}` : `lines ${a}–${b}`;
}

/** Where a comment stands, in words (the list capitalises them). */
export const COMMENT_STATUS_WORDS: Record<string, string> = { open: 'open', sent: 'with the agent', addressed: 'addressed', outdated: 'outdated' };

/** The widgets under the diff's lines: the box for the chosen lines, and the comments made so far. */
export function commentWidgets(o: {
  path: string;
  hunks: readonly HunkData[];
  commenting: DiffCommenting;
  chosen: LineRange | null;
  form: ReactNode;
}): Record<string, ReactNode> {
  const widgets: Record<string, ReactNode[]> = {};
  const put = (key: string | null, node: ReactNode) => {
    if (key) (widgets[key] ??= []).push(node);
  };
  for (const c of o.commenting.comments.filter((x) => x.file === o.path)) {
    put(
      keyOfLine(o.hunks, c.lineEnd) ?? keyOfLine(o.hunks, c.lineStart),
      <div key={c.id} className={`diff-comment diff-comment-${c.status}`} data-testid="diff-comment" data-status={c.status}>
        <span className="badge">{COMMENT_STATUS_WORDS[c.status] ?? c.status}</span> <span className="muted small">{linesLabel(c)}</span>
        <p>{c.body}</p>
      </div>,
    );
  }
  if (o.chosen) put(keysInRange(o.hunks, o.chosen).last, <div key="form">{o.form}</div>);
  return Object.fromEntries(Object.entries(widgets).map(([k, v]) => [k, <div className="diff-comment-stack">{v}</div>]));
}

/** The box under the chosen lines. */
export function CommentForm({ path, range, onAdd, onCancel }: { path: string; range: LineRange; onAdd(body: string): Promise<void>; onCancel(): void }) {
  const [body, setBody] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    if (!body.trim() || busy) return;
    setBusy(true);
    setError(null);
    try {
      await onAdd(body.trim());
      setBody('');
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="diff-comment-form"
      data-testid="diff-comment-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label className="small">
        Comment on {path}, {linesLabel(range)}
        <textarea
          className="input"
          rows={3}
          value={body}
          // The form closes once the comment is added: nothing typed meanwhile would be kept.
          readOnly={busy}
          autoFocus
          onChange={(e) => setBody(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') onCancel();
            if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) {
              e.preventDefault();
              void submit();
            }
          }}
          data-testid="diff-comment-input"
        />
      </label>
      {error && (
        <p className="field-help error" role="alert">
          {error}
        </p>
      )}
      <div className="diff-comment-actions">
        <button type="button" className="button small" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button small primary" disabled={busy || !body.trim()} data-testid="diff-comment-add">
          {busy ? 'Adding…' : 'Add comment'}
        </button>
      </div>
    </form>
  );
}
