import { useState } from 'react';
import type { Session } from '../../../src-preload/contract/agents';
import { useAppStore } from '../store';
import { plural, relativeTime, usd } from '../lib/format';
import { Icon } from '../components/Icon';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ApproveBadge, STATUS_LABEL, statusBadgeClass } from './SessionHeader';
import { NewSessionDialog } from '../session-worktrees/NewSessionDialog';

export function SessionList({ projectId }: { projectId: string }) {
  const all = useAppStore((s) => s.sessions);
  // Archived sessions are listed only under Archived in the sidebar.
  const sessions = all.filter((x) => x.projectId === projectId && !x.archived);
  const setView = useAppStore((s) => s.setView);
  const remove = useAppStore((s) => s.removeSession);
  const [deleting, setDeleting] = useState<Session | null>(null);
  // "New session" asks where the agent works (a new worktree by default) before starting.
  const [starting, setStarting] = useState(false);

  return (
    <div className="panel" data-testid="session-list">
      <div className="panel-head">
        <h3>Agent sessions</h3>
        <button className="button primary" onClick={() => setStarting(true)} data-testid="new-session">
          <Icon name="plus" /> New session
        </button>
      </div>
      {sessions.length === 0 ? (
        <p className="muted">No sessions yet. Start one to chat with an agent that works in this repository.</p>
      ) : (
        <ul className="session-rows">
          {sessions.map((s) => (
            <li key={s.id} className="session-row">
              <button className="link session-row-main" onClick={() => setView({ name: 'session', sessionId: s.id })} data-testid="session-row">
                <Icon name="chat" size={14} />
                <span className="truncate">{s.title}</span>
              </button>
              <span className={`badge ${statusBadgeClass(s.status)}`}>{STATUS_LABEL[s.status]}</span>
              <ApproveBadge session={s} />
              <span className="muted small">{s.mode}</span>
              <span className="muted small" title={`$${s.cost.usd.toFixed(6)}`}>
                {usd(s.cost.usd)}
              </span>
              <span className="muted small">{relativeTime(s.updatedAt)}</span>
              <button className="icon-button danger" aria-label={`Delete ${s.title}`} title="Delete session (files are not touched)" onClick={() => setDeleting(s)} disabled={s.status === 'running'}>
                <Icon name="trash" />
              </button>
            </li>
          ))}
        </ul>
      )}
      {starting && (
        <NewSessionDialog
          projectId={projectId}
          onClose={() => setStarting(false)}
          onStarted={(s) => {
            setStarting(false);
            setView({ name: 'session', sessionId: s.id });
          }}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title="Delete this session?"
          confirmLabel="Delete session"
          onCancel={() => setDeleting(null)}
          onConfirm={() => {
            const id = deleting.id;
            setDeleting(null);
            void remove(id);
          }}
        >
          <p>
            <strong>{deleting.title}</strong> — {plural(deleting.turnCount, 'turn')}, {usd(deleting.cost.usd)}.
          </p>
          <p className="muted">Its conversation, approvals and event log are deleted and cannot be restored. Files in the repository are not touched.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
