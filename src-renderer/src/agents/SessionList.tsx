import { useAppStore } from '../store';
import { relativeTime } from '../lib/format';
import { Icon } from '../components/Icon';
import { STATUS_LABEL, statusBadgeClass } from './SessionHeader';

export function SessionList({ projectId }: { projectId: string }) {
  const all = useAppStore((s) => s.sessions);
  const sessions = all.filter((x) => x.projectId === projectId);
  const setView = useAppStore((s) => s.setView);
  const create = useAppStore((s) => s.createSession);
  const remove = useAppStore((s) => s.removeSession);

  const start = async () => {
    const s = await create({ projectId });
    if (s) setView({ name: 'session', sessionId: s.id });
  };

  return (
    <div className="panel" data-testid="session-list">
      <div className="panel-head">
        <h3>Agent sessions</h3>
        <button className="button primary" onClick={() => void start()} data-testid="new-session">
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
              {s.pendingApprovals > 0 && <span className="badge badge-warn">{s.pendingApprovals} to approve</span>}
              <span className="muted small">{s.mode}</span>
              <span className="muted small">${s.cost.usd.toFixed(4)}</span>
              <span className="muted small">{relativeTime(s.updatedAt)}</span>
              <button className="icon-button danger" aria-label={`Delete ${s.title}`} title="Delete session (files are not touched)" onClick={() => void remove(s.id)} disabled={s.status === 'running'}>
                <Icon name="trash" />
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
