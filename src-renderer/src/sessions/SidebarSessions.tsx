import { useState } from 'react';
import type { Session } from '../../../src-preload/contract/agents';
import { archivedSessions, type MadeGroup } from './session-filter';
import './sessions.css';

/** The sidebar's search over session titles. */
export function SessionSearch({ value, onChange }: { value: string; onChange(v: string): void }) {
  return (
    <div className="session-search nav-label">
      <input
        className="input"
        type="search"
        placeholder="Search sessions"
        aria-label="Search sessions by title"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => e.key === 'Escape' && onChange('')}
        data-testid="session-search"
      />
    </div>
  );
}

/** "Archived (n)": the sessions hidden from the lists, opened on demand (always while searching). */
export function ArchivedSessions({ sessions, query, activeId, onOpen }: { sessions: readonly Session[]; query: string; activeId: string | null; onOpen(id: string): void }) {
  const [open, setOpen] = useState(false);
  const archived = archivedSessions(sessions, query);
  if (archived.length === 0) return null;
  const shown = open || query.trim() !== '';
  return (
    <div className="sidebar-project-group sidebar-archived" data-testid="sidebar-archived">
      <button className="nav-item nav-session nav-more nav-archived-toggle" aria-expanded={shown} onClick={() => setOpen((o) => !o)} data-testid="sidebar-archived-toggle">
        <span className="truncate nav-label">
          {shown ? '▾' : '▸'} Archived ({archived.length})
        </span>
      </button>
      {shown &&
        archived.map((x) => (
          <button key={x.id} className={`nav-item nav-session ${activeId === x.id ? 'active' : ''}`} onClick={() => onOpen(x.id)} title={x.title} data-testid="sidebar-archived-session">
            <span className="status-dot" />
            <span className="truncate">{x.title}</span>
          </button>
        ))}
    </div>
  );
}

/**
 * The sessions the app made for its own work, under what made them, folded by default: a
 * feature run's phases or the mailbox's tasks never push the user's sessions out of sight.
 */
export function MadeSessions({ groups, activeId, onOpen }: { groups: ReadonlyArray<MadeGroup<Session>>; activeId: string | null; onOpen(id: string): void }) {
  const holdsActive = groups.some((g) => g.sessions.some((s) => s.id === activeId));
  const [open, setOpen] = useState<boolean | null>(null);
  const count = groups.reduce((n, g) => n + g.sessions.length, 0);
  if (count === 0) return null;
  // Open while one of them is the session in view, until the user folds it.
  const shown = open ?? holdsActive;
  const waiting = groups.reduce((n, g) => n + g.sessions.reduce((m, s) => m + s.pendingApprovals, 0), 0);
  return (
    <div className="sidebar-made" data-testid="sidebar-made">
      <button className="nav-item nav-session nav-more nav-made-toggle" aria-expanded={shown} onClick={() => setOpen(!shown)} title="Sessions Flightdeck started for init, plans, feature runs, autopilot and the mailbox" data-testid="sidebar-made-toggle">
        <span className="truncate nav-label">
          {shown ? '▾' : '▸'} Made by Flightdeck ({count})
        </span>
        {waiting > 0 && <span className="nav-badge">{waiting}</span>}
      </button>
      {shown &&
        groups.map((g) => (
          <div key={g.label} className="sidebar-made-group" data-testid="sidebar-made-group">
            <div className="nav-subheading nav-made-label" title={g.label}>
              <span className="truncate">{g.label}</span>
            </div>
            {g.sessions.map((x) => (
              <button key={x.id} className={`nav-item nav-session nav-made-session ${activeId === x.id ? 'active' : ''}`} onClick={() => onOpen(x.id)} title={x.title} data-testid="sidebar-made-session">
                <span className={`status-dot ${x.status === 'running' ? 'ok' : x.status === 'awaiting_approval' ? 'warn' : x.status === 'interrupted' ? 'bad' : ''}`} />
                <span className="truncate">{x.title}</span>
                {x.pendingApprovals > 0 && <span className="nav-badge">{x.pendingApprovals}</span>}
              </button>
            ))}
          </div>
        ))}
    </div>
  );
}
