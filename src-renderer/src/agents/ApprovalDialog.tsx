import { useEffect, useState } from 'react';
import type { Approval } from '../../../src-preload/contract/agents';
import { Icon } from '../components/Icon';
import { useAppStore } from '../store';
import { DiffView } from './DiffView';

const RISK_CLASS: Record<Approval['risk'], string> = { low: 'badge-ok', medium: '', high: 'badge-warn', critical: 'badge-bad' };

/**
 * The oldest pending approval of any session, in a dialog. "Later" hides it until the next
 * request arrives (it stays pending, with its badge on the session); nothing is decided for
 * the user by closing the dialog.
 */
export function ApprovalDialog() {
  const approvals = useAppStore((s) => s.approvals);
  const sessions = useAppStore((s) => s.sessions);
  const answer = useAppStore((s) => s.answerApproval);
  const setView = useAppStore((s) => s.setView);
  const [snoozed, setSnoozed] = useState<Set<string>>(new Set());
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const current = approvals.find((a) => !snoozed.has(a.id));

  useEffect(() => {
    setDenying(false);
    setReason('');
  }, [current?.id]);

  if (!current) return null;
  const session = sessions.find((s) => s.id === current.sessionId);
  const command = typeof current.input.command === 'string' ? current.input.command : null;
  const path = typeof current.input.path === 'string' ? current.input.path : null;
  const more = approvals.filter((a) => !snoozed.has(a.id)).length - 1;

  const decide = async (decision: 'approve_once' | 'approve_session' | 'deny') => {
    setBusy(true);
    await answer(current.id, decision, decision === 'deny' ? reason.trim() || undefined : undefined);
    setBusy(false);
  };

  return (
    <div className="modal-backdrop approval-backdrop">
      <div className="modal approval-modal" role="dialog" aria-modal="true" aria-label="Approval needed" data-testid="approval-dialog">
        <header className="modal-header">
          <div>
            <p className="muted small">
              {session ? (
                <button className="link" onClick={() => setView({ name: 'session', sessionId: session.id })}>
                  {session.title}
                </button>
              ) : (
                'A session'
              )}{' '}
              asks to run <strong>{current.tool}</strong>
              {current.source === 'claude-code' ? ' (via Claude Code)' : ''}
            </p>
            <h2 className="approval-summary mono" data-testid="approval-summary">
              {current.summary}
            </h2>
          </div>
          <span className={`badge ${RISK_CLASS[current.risk]}`}>{current.risk} risk</span>
        </header>
        <div className="modal-body">
          <p className="muted small">{current.reason}</p>
          {command && <pre className="tool-pre">{command}</pre>}
          {current.diff ? (
            <DiffView diff={current.diff} testId="approval-diff" />
          ) : path ? (
            <p className="mono small">{path}</p>
          ) : !command ? (
            <pre className="tool-pre">{JSON.stringify(current.input, null, 2)}</pre>
          ) : null}
          {denying && (
            <label className="field">
              <span>Why not? The agent reads this and can try another way.</span>
              <textarea className="input textarea" autoFocus value={reason} onChange={(e) => setReason(e.target.value)} placeholder="e.g. Don't touch the lockfile; edit src/ only." data-testid="deny-reason" />
            </label>
          )}
        </div>
        <footer className="modal-footer approval-actions">
          <button className="button" onClick={() => setSnoozed((s) => new Set(s).add(current.id))} title="Keep it pending and decide later">
            Later{more > 0 ? ` (${more} more)` : ''}
          </button>
          <span className="spacer" />
          {denying ? (
            <>
              <button className="button" onClick={() => setDenying(false)} disabled={busy}>
                Back
              </button>
              <button className="button danger" onClick={() => void decide('deny')} disabled={busy} data-testid="confirm-deny">
                Deny
              </button>
            </>
          ) : (
            <>
              <button className="button" onClick={() => setDenying(true)} disabled={busy} data-testid="deny">
                <Icon name="x" /> Deny…
              </button>
              <button className="button" onClick={() => void decide('approve_session')} disabled={busy} title={`Remember for this session: ${current.sessionRule}`} data-testid="approve-session">
                Always in this session <span className="mono small">{current.sessionRule}</span>
              </button>
              <button className="button primary" onClick={() => void decide('approve_once')} disabled={busy} data-testid="approve-once">
                <Icon name="check" /> Approve once
              </button>
            </>
          )}
        </footer>
      </div>
    </div>
  );
}
