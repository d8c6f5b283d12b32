import { diffChangesNothing } from './diff-parse';
import { useRef, useState, type KeyboardEvent } from 'react';
import type { Approval } from '../../../src-preload/contract/agents';
import { Icon } from '../components/Icon';
import { isSubmitChord, useFocusTrap } from '../components/use-focus-trap';
import { useAppStore } from '../store';
import { DiffView } from './DiffView';

const RISK_CLASS: Record<Approval['risk'], string> = { low: 'badge-ok', medium: '', high: 'badge-warn', critical: 'badge-bad' };

/** What the call does, in words, for the dialog's subject line. */
function subjectOf(a: Approval): string {
  switch (a.tool) {
    case 'bash':
      return 'The agent asks to run a command';
    case 'write':
      return 'The agent asks to write a file';
    case 'patch':
      return 'The agent asks to change a file';
    default:
      return `The agent asks to use ${a.tool}`;
  }
}

/**
 * The approval the user asked to see, else the oldest pending one not put off, in a dialog.
 * "Later" (or Escape) keeps it pending: the session's badge, its tool card and the session
 * list bring it back. Nothing is decided for the user by closing the dialog.
 *
 * Keyboard: focus moves into the dialog and stays there (Tab cycles); Escape = Later;
 * Ctrl/Cmd+Enter = Approve once (or Deny, while writing a reason); Enter in the reason = Deny.
 */
export function ApprovalDialog() {
  const approvals = useAppStore((s) => s.approvals);
  const snoozed = useAppStore((s) => s.snoozedApprovals);
  const reviewing = useAppStore((s) => s.reviewingApproval);
  const sessions = useAppStore((s) => s.sessions);
  const projects = useAppStore((s) => s.projects);
  const answer = useAppStore((s) => s.answerApproval);
  const snooze = useAppStore((s) => s.snoozeApproval);
  const setView = useAppStore((s) => s.setView);
  const open = approvals.filter((a) => !snoozed.has(a.id));
  const current = approvals.find((a) => a.id === reviewing) ?? open[0];

  if (!current) return null;
  return (
    <ApprovalModal
      key={current.id}
      approval={current}
      more={open.filter((a) => a.id !== current.id).length}
      sessionTitle={sessions.find((s) => s.id === current.sessionId)?.title ?? null}
      projectName={(() => {
        const pid = sessions.find((s) => s.id === current.sessionId)?.projectId;
        return pid ? (projects.find((p) => p.id === pid)?.name ?? null) : null;
      })()}
      onLater={() => snooze(current.id)}
      onOpenSession={() => setView({ name: 'session', sessionId: current.sessionId })}
      onDecide={(decision, reason) => answer(current.id, decision, reason)}
    />
  );
}

function ApprovalModal(p: {
  approval: Approval;
  more: number;
  sessionTitle: string | null;
  projectName: string | null;
  onLater(): void;
  onOpenSession(): void;
  onDecide(d: 'approve_once' | 'approve_session' | 'deny', reason: string | undefined): Promise<unknown>;
}) {
  const a = p.approval;
  // Keyed by the approval: a new one starts with no reason and the deny form closed.
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const decide = async (d: 'approve_once' | 'approve_session' | 'deny') => {
    setBusy(true);
    await p.onDecide(d, d === 'deny' ? reason.trim() || undefined : undefined);
    setBusy(false);
  };
  const ref = useRef<HTMLDivElement>(null);
  useFocusTrap(ref);
  const command = typeof a.input.command === 'string' ? a.input.command : null;
  const path = typeof a.input.path === 'string' ? a.input.path : null;

  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      if (denying) setDenying(false);
      else p.onLater();
      return;
    }
    if (isSubmitChord(e) && !busy) {
      e.preventDefault();
      void decide(denying ? 'deny' : 'approve_once');
    }
  };

  return (
    <div className="modal-backdrop approval-backdrop">
      <div className="modal approval-modal" role="dialog" aria-modal="true" aria-labelledby="approval-subject" ref={ref} tabIndex={-1} onKeyDown={onKey} data-testid="approval-dialog">
        <header className="modal-header">
          <div className="approval-head">
            <p className="approval-subject" id="approval-subject" data-testid="approval-subject">
              {subjectOf(a)}
              {a.source === 'claude-code' ? ' (via Claude Code)' : ''}
            </p>
            <h2 className="approval-summary mono" data-testid="approval-summary">
              {a.summary}
            </h2>
            <p className="muted small approval-where">
              <button className="link truncate" onClick={p.onOpenSession} title="Open this session">
                {p.projectName ? `${p.projectName} · ` : ''}
                {p.sessionTitle ?? 'a session'}
              </button>
            </p>
          </div>
          <span className={`badge ${RISK_CLASS[a.risk]}`}>{a.risk} risk</span>
        </header>
        <div className="modal-body">
          <p className="muted small">{a.reason}</p>
          {command && <pre className="tool-pre">{command}</pre>}
          {(a.tool === 'write' || a.tool === 'patch') && typeof a.diff === 'string' && diffChangesNothing(a.diff) ? (
            <p className="approval-no-change" data-testid="approval-no-change">
              No change: <span className="mono">{path ?? 'the file'}</span> would stay exactly as it is.
            </p>
          ) : a.diff ? (
            <DiffView diff={a.diff} testId="approval-diff" />
          ) : path ? (
            <p className="mono small">{path}</p>
          ) : !command ? (
            <pre className="tool-pre">{JSON.stringify(a.input, null, 2)}</pre>
          ) : null}
          <p className="muted small">
            “Always” remembers <code>{a.sessionRule}</code> for this session.
          </p>
          {denying && (
            <label className="field">
              <span>Why not? The agent reads this and can try another way. Enter denies; Shift+Enter for a new line.</span>
              <textarea
                className="input textarea"
                autoFocus
                value={reason}
                onChange={(e) => setReason(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' && !e.shiftKey && !e.ctrlKey && !e.metaKey) {
                    e.preventDefault();
                    if (!busy) void decide('deny');
                  }
                }}
                placeholder="e.g. Don't touch the lockfile; edit src/ only."
                data-testid="deny-reason"
              />
            </label>
          )}
        </div>
        <footer className="modal-footer approval-actions">
          <button className="button" onClick={p.onLater} title="Keep it pending and decide later (Escape)" data-testid="later">
            Later{p.more > 0 ? ` (${p.more} more)` : ''}
          </button>
          <span className="spacer" />
          {denying ? (
            <>
              <button className="button" onClick={() => setDenying(false)} disabled={busy}>
                Back
              </button>
              <button className="button danger" onClick={() => void decide('deny')} disabled={busy} data-testid="confirm-deny" title="Deny (Enter in the reason, or Ctrl+Enter)">
                Deny
              </button>
            </>
          ) : (
            <>
              <button className="button" onClick={() => setDenying(true)} disabled={busy} data-testid="deny">
                <Icon name="x" /> Deny…
              </button>
              <button className="button" onClick={() => void decide('approve_session')} disabled={busy} title={`Approve, and remember ${a.sessionRule} for this session`} data-testid="approve-session">
                Always
              </button>
              <button className="button primary" onClick={() => void decide('approve_once')} disabled={busy} title="Approve once (Ctrl+Enter)" data-testid="approve-once">
                <Icon name="check" /> Approve once
              </button>
            </>
          )}
        </footer>
      </div>
    </div>
  );
}
