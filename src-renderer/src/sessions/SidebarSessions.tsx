import { useState } from 'react';
import type { Session } from '../../../src-preload/contract/agents';
import { archivedSessions } from './session-filter';
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
