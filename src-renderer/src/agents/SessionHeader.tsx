import { memo, useEffect, useRef, useState } from 'react';
import type { Session } from '../../../src-preload/contract/agents';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Icon } from '../components/Icon';
import { useAppStore } from '../store';
import { usd } from '../lib/format';
import { ExecutorControl } from '../coder/ExecutorControl';
import { SandboxBadge, SandboxControl } from './SandboxControl';
import { ChangesButton } from '../changes/SessionChanges';
import { SessionIdentity } from '../sessions/SessionIdentity';
import { SessionWorktreeBar } from '../session-worktrees/SessionWorktreeBar';
import { SessionContainerButtons, useSessionPlacement } from '../containers/ContainerTerminalButtons';
import { MODES } from './modes';

export { MODES };

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

/** "1 to approve" as a button: it brings the session's oldest pending approval back into the dialog. */
export function ApproveBadge({ session }: { session: Session }) {
  const review = useAppStore((s) => s.reviewApproval);
  if (session.pendingApprovals === 0) return null;
  return (
    <button className="badge badge-warn badge-button" onClick={() => review({ sessionId: session.id })} title="Needs approval: show the approval" data-testid="approve-badge">
      {session.pendingApprovals} to approve
    </button>
  );
}

/**
 * The session's title, status, cost and controls. Memoized: the view around it renders again as
 * its transcript is read and streams in, and the header only changes with the session.
 */
export const SessionHeader = memo(function SessionHeader({ session }: { session: Session }) {
  const update = useAppStore((s) => s.updateSession);
  const profiles = useAppStore((s) => s.profiles);
  const c = session.cost;
  // In a narrow window the controls live behind one overflow button, so the header stays one row.
  const [menuOpen, setMenuOpen] = useState(false);
  const [confirmYolo, setConfirmYolo] = useState(false);
  const hardFloor = useAppStore((s) => s.agentSettings?.hardFloor ?? true);
  const headerRef = useRef<HTMLElement>(null);
  const placement = useSessionPlacement(session.id, session.status);
  const container = placement ? `${placement.image}${placement.engine ? ` on ${placement.engine}` : ''}` : null;
  useEffect(() => {
    if (!menuOpen) return;
    const onDown = (e: MouseEvent) => {
      if (headerRef.current && e.target instanceof Node && !headerRef.current.contains(e.target)) setMenuOpen(false);
    };
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setMenuOpen(false);
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [menuOpen]);
  return (
    <header className={`session-header ${menuOpen ? 'menu-open' : ''}`} ref={headerRef} data-testid="session-header">
      <div className="session-title">
        <SessionIdentity session={session} />
        {/* session-status-redundant: with an approval pending, the narrow header keeps only the clickable "N to approve". */}
        <span className={`badge session-status ${statusBadgeClass(session.status)} ${session.pendingApprovals > 0 ? 'session-status-redundant' : ''}`} data-testid="session-status">
          {STATUS_LABEL[session.status]}
        </span>
        <ApproveBadge session={session} />
        <SandboxBadge session={session} container={container} />
        <span className="spacer" />
        <SessionContainerButtons sessionId={session.id} placement={placement} />
        <ChangesButton session={session} />
        <div className="cost" data-testid="session-cost" title={`${c.calls} model calls · ↑ ${c.inputTokens.toLocaleString()} in · ↓ ${c.outputTokens.toLocaleString()} out · cache read ${c.cacheReadTokens.toLocaleString()} · cache write ${c.cacheWriteTokens.toLocaleString()}`}>
          <span className="cost-tokens">↑ {tokens(c.inputTokens)}</span>
          <span className="cost-tokens">↓ {tokens(c.outputTokens)}</span>
          <strong>{usd(c.usd)}</strong>
        </div>
        <button className="icon-button header-overflow" aria-label="Session controls" aria-expanded={menuOpen} title="Executor, mode and model" onClick={() => setMenuOpen((o) => !o)} data-testid="header-overflow">
          <Icon name="more" />
        </button>
      </div>
      <SessionWorktreeBar session={session} />
      <div className="session-controls" data-testid="session-controls">
        <ExecutorControl session={session} />
        <div className="sandbox-state-row">
          {/* Shown only in the narrow menu: the header row drops the confined sandbox badge there. */}
          <span className="menu-sandbox-state">
            <SandboxBadge session={session} container={container} testId="sandbox-badge-menu" />
          </span>
          <SandboxControl session={session} />
        </div>
        <div className="segmented small" role="radiogroup" aria-label="Mode" data-testid="mode-switcher">
          {MODES.map((m) => (
            <button
              key={m.value}
              role="radio"
              aria-checked={session.mode === m.value}
              title={m.help}
              className={session.mode === m.value ? 'active' : ''}
              onClick={() => (m.value === 'yolo' && session.mode !== 'yolo' ? setConfirmYolo(true) : void update(session.id, { mode: m.value }))}
            >
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
      {confirmYolo && (
        <ConfirmDialog
          title="Switch to YOLO mode?"
          confirmLabel="Switch to YOLO"
          onCancel={() => setConfirmYolo(false)}
          onConfirm={() => {
            setConfirmYolo(false);
            void update(session.id, { mode: 'yolo' });
          }}
        >
          <p>Files change and every command runs without asking, high-risk ones included.</p>
          {/* The hard floor is Flightdeck's one exception to "everything runs": say so, and where it is switched. */}
          <p data-testid="yolo-hard-floor">
            {hardFloor
              ? 'The hard floor is on: catastrophic commands (rm -rf / or ~, mkfs, dd onto a disk, fork bombs, force push to the base branch, DROP DATABASE) are still refused. Turn it off in Settings → Agents → Hard floor.'
              : 'The hard floor is OFF: nothing is refused, catastrophic commands included. Turn it back on in Settings → Agents → Hard floor.'}
          </p>
        </ConfirmDialog>
      )}
    </header>
  );
});
