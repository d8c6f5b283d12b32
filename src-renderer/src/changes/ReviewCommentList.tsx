import { useState } from 'react';
import type { ReviewComment } from '../../../src-preload/contract/review-comments';
import { useAppStore } from '../store';
import { COMMENT_STATUS_WORDS } from './diff-comments';

const statusText = (s: ReviewComment['status']) => (COMMENT_STATUS_WORDS[s] ?? s).replace(/^./, (c) => c.toUpperCase());

/**
 * Review comments as the user collects them on a diff (a feature's or a session's): each with
 * where it stands after the last fix, Reopen for an addressed or outdated one, Delete for one not
 * sent, and Send to agent for the open ones.
 */
export function ReviewCommentList({
  comments,
  blocked,
  send,
  reopen,
  remove,
  onChange,
}: {
  comments: readonly ReviewComment[];
  /** Why sending waits (the agent is working), or null. */
  blocked: string | null;
  send(): Promise<string>;
  reopen(id: string): Promise<unknown>;
  remove(id: string): Promise<unknown>;
  onChange(): void;
}) {
  const toast = useAppStore((s) => s.toast);
  const [busy, setBusy] = useState(false);
  const open = comments.filter((c) => c.status === 'open').length;
  const act = async (what: () => Promise<unknown>) => {
    setBusy(true);
    try {
      const done = await what();
      if (typeof done === 'string') toast({ level: 'success', title: done });
      onChange();
    } catch (e) {
      toast({ level: 'error', title: e instanceof Error ? e.message : String(e) });
    } finally {
      setBusy(false);
    }
  };
  if (comments.length === 0) {
    return <p className="muted small review-comments-hint">Click a line number in the diff (shift-click for a range), or Comment on a hunk or file, to leave a comment for the agent.</p>;
  }
  return (
    <section className="review-comments" data-testid="review-comments" aria-label="Review comments">
      <header className="review-comments-head">
        <h3>Review comments</h3>
        <span className="spacer" />
        <button className="button primary small" disabled={busy || blocked !== null || open === 0} title={blocked ?? (open === 0 ? 'No open comment' : undefined)} onClick={() => void act(send)} data-testid="send-comments">
          Send {open > 0 ? open : ''} to agent
        </button>
      </header>
      <ul className="review-comment-list">
        {comments.map((c) => (
          <li key={c.id} className={`review-comment review-comment-${c.status}`} data-testid="review-comment" data-status={c.status}>
            <span className={`badge ${c.status === 'addressed' ? 'badge-ok' : ''}`}>{statusText(c.status)}</span>
            <span className="mono small truncate" title={c.file}>
              {c.file}:{c.lineStart === c.lineEnd ? c.lineStart : `${c.lineStart}-${c.lineEnd}`}
            </span>
            <span className="review-comment-body">{c.body}</span>
            {(c.status === 'addressed' || c.status === 'outdated') && (
              <button className="button small ghost" disabled={busy} onClick={() => void act(() => reopen(c.id))} data-testid="reopen-comment">
                Reopen
              </button>
            )}
            {c.status !== 'sent' && (
              <button className="button small ghost" disabled={busy} onClick={() => void act(() => remove(c.id))} aria-label={`Delete the comment on ${c.file}`}>
                Delete
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
