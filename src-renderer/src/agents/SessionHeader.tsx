import type { AgentMode, Session } from '../../../src-preload/contract/agents';
import { useAppStore } from '../store';
import { ExecutorControl } from '../coder/ExecutorControl';

const MODES: Array<{ value: AgentMode; label: string; help: string }> = [
  { value: 'plan', label: 'Plan', help: 'Explore and propose; no writes, no side effects' },
  { value: 'default', label: 'Default', help: 'Writes and risky commands ask first' },
  { value: 'auto-edit', label: 'Auto-edit', help: 'Reads and writes freely, verifies automatically' },
  { value: 'yolo', label: 'YOLO', help: 'Commands run unasked too (the hard floor still applies)' },
];

export const STATUS_LABEL: Record<Session['status'], string> = {
  idle: 'Idle',
  running: 'Working',
  awaiting_approval: 'Needs approval',
  interrupted: 'Interrupted',
};

export function statusBadgeClass(status: Session['status']): string {
  return status === 'running' ? 'badge-ok' : status === 'awaiting_approval' ? 'badge-warn' : status === 'interrupted' ? 'badge-bad' : '';
}

function tokens(n: number): string {
  return n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1_000 ? `${(n / 1_000).toFixed(1)}k` : String(n);
}

export function SessionHeader({ session }: { session: Session }) {
  const update = useAppStore((s) => s.updateSession);
  const profiles = useAppStore((s) => s.profiles);
  const c = session.cost;
  return (
    <header className="session-header">
      <div className="session-title">
        <h1 className="truncate">{session.title}</h1>
        <span className={`badge ${statusBadgeClass(session.status)}`} data-testid="session-status">
          {STATUS_LABEL[session.status]}
        </span>
        {session.pendingApprovals > 0 && <span className="badge badge-warn">{session.pendingApprovals} to approve</span>}
        <span className="spacer" />
        <div className="cost" data-testid="session-cost" title={`${c.calls} model calls · cache read ${c.cacheReadTokens.toLocaleString()} · cache write ${c.cacheWriteTokens.toLocaleString()}`}>
          <span>↑ {tokens(c.inputTokens)}</span>
          <span>↓ {tokens(c.outputTokens)}</span>
          <strong>${c.usd.toFixed(c.usd < 1 ? 4 : 2)}</strong>
        </div>
      </div>
      <div className="session-controls">
        <ExecutorControl session={session} />
        <div className="segmented small" role="radiogroup" aria-label="Mode" data-testid="mode-switcher">
          {MODES.map((m) => (
            <button key={m.value} role="radio" aria-checked={session.mode === m.value} title={m.help} className={session.mode === m.value ? 'active' : ''} onClick={() => void update(session.id, { mode: m.value })}>
              {m.label}
            </button>
          ))}
        </div>
        <label className="model-picker" title="Provider profile and model">
          <select className="input select" value={session.profile} onChange={(e) => void update(session.id, { profile: e.target.value })} aria-label="Provider profile" data-testid="profile-picker">
            {profiles.length === 0 && <option value={session.profile}>{session.profile}</option>}
            {profiles.map((p) => (
              <option key={p.name} value={p.name}>
                {p.label}
                {p.apiKeySet ? '' : ' (no key)'}
              </option>
            ))}
          </select>
          <span className="mono small muted truncate" data-testid="session-model">
            {session.model}
          </span>
        </label>
      </div>
    </header>
  );
}
