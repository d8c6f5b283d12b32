import { useState } from 'react';
import { useAppStore } from '../store';
import { Icon } from './Icon';
import { AddProjectDialog } from './AddProjectDialog';
import { TerminalsNavItem } from '../terminals/OpenTerminalButton';

/** Recent sessions listed in the sidebar; the rest are one click away on their project. */
const SIDEBAR_SESSIONS = 8;

export function Sidebar() {
  const view = useAppStore((s) => s.view);
  const setView = useAppStore((s) => s.setView);
  const all = useAppStore((s) => s.projects);
  const projects = all.map((p) => ({ id: p.id, name: p.name, dirty: p.git?.dirty ?? false, problem: p.problem !== null }));
  const sessions = useAppStore((s) => s.sessions);
  const [adding, setAdding] = useState(false);
  const recent = sessions.slice(0, SIDEBAR_SESSIONS);

  return (
    <nav className="sidebar" aria-label="Main">
      <div className="brand">
        <Icon name="plane" size={20} />
        <span>Flightdeck</span>
      </div>
      <div className="nav-group">
        <button className={`nav-item ${view.name === 'board' ? 'active' : ''}`} onClick={() => setView({ name: 'board' })}>
          <Icon name="board" /> Board
        </button>
        <TerminalsNavItem />
        <button className={`nav-item ${view.name === 'settings' ? 'active' : ''}`} onClick={() => setView({ name: 'settings' })}>
          <Icon name="settings" /> Settings
        </button>
      </div>
      <div className="nav-heading">
        <span>Projects</span>
        <button className="icon-button" title="Add project" aria-label="Add project" onClick={() => setAdding(true)}>
          <Icon name="plus" />
        </button>
      </div>
      <div className="nav-group nav-projects" data-testid="sidebar-projects">
        {projects.length === 0 && <p className="nav-empty">No projects yet.</p>}
        {projects.map((p) => (
          <button
            key={p.id}
            className={`nav-item ${view.name === 'project' && view.projectId === p.id ? 'active' : ''}`}
            onClick={() => setView({ name: 'project', projectId: p.id })}
            title={p.name}
          >
            <span className={`status-dot ${p.problem ? 'bad' : p.dirty ? 'warn' : 'ok'}`} />
            <span className="truncate">{p.name}</span>
          </button>
        ))}
      </div>
      {recent.length > 0 && (
        <>
          <div className="nav-heading">
            <span>Sessions</span>
          </div>
          <div className="nav-group" data-testid="sidebar-sessions">
            {recent.map((x) => (
              <button
                key={x.id}
                className={`nav-item ${view.name === 'session' && view.sessionId === x.id ? 'active' : ''}`}
                onClick={() => setView({ name: 'session', sessionId: x.id })}
                title={x.title}
              >
                <span className={`status-dot ${x.status === 'running' ? 'ok' : x.status === 'awaiting_approval' ? 'warn' : x.status === 'interrupted' ? 'bad' : ''}`} />
                <span className="truncate">{x.title}</span>
                {x.pendingApprovals > 0 && <span className="nav-badge">{x.pendingApprovals}</span>}
              </button>
            ))}
          </div>
        </>
      )}
      {adding && <AddProjectDialog onClose={() => setAdding(false)} />}
    </nav>
  );
}
