import { useState } from 'react';
import type { Session } from '../../../src-preload/contract/agents';
import { useAppStore } from '../store';
import { Icon } from './Icon';
import { AddProjectDialog } from './AddProjectDialog';
import { TerminalsNavItem } from '../terminals/OpenTerminalButton';
import { groupSessions } from '../lib/session-groups';
import { activeSessions, splitByMaker } from '../sessions/session-filter';
import { ArchivedSessions, MadeSessions, SessionSearch } from '../sessions/SidebarSessions';

/** Sessions listed per project before "Show all": the recent ones are what people switch between. */
const SESSIONS_PER_GROUP = 4;

const sessionDot = (x: Session) => (x.status === 'running' ? 'ok' : x.status === 'awaiting_approval' ? 'warn' : x.status === 'interrupted' ? 'bad' : '');

export function Sidebar() {
  const view = useAppStore((s) => s.view);
  const setView = useAppStore((s) => s.setView);
  const all = useAppStore((s) => s.projects);
  const projects = all.map((p) => ({ id: p.id, name: p.name, dirty: p.git?.dirty ?? false, problem: p.problem !== null }));
  const sessions = useAppStore((s) => s.sessions);
  const [adding, setAdding] = useState(false);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  // Narrow windows show the sidebar as icons; this opens it in full over the page.
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  // Archived sessions and those not matching the search leave the groups (Archived lists them apart).
  const groups = groupSessions(activeSessions(sessions, query), all);
  const go = (v: Parameters<typeof setView>[0]) => {
    setView(v);
    setOpen(false);
  };

  return (
    <>
      {open && <div className="sidebar-scrim" onClick={() => setOpen(false)} />}
      <nav className={`sidebar ${open ? 'open' : ''}`} aria-label="Main" data-testid="sidebar">
        <div className="brand">
          <button className="icon-button sidebar-toggle" aria-label={open ? 'Close the menu' : 'Open the menu'} aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid="sidebar-toggle">
            <Icon name="menu" size={18} />
          </button>
          <Icon name="plane" size={20} className="brand-icon" />
          <span className="nav-label">Flightdeck</span>
        </div>
        <div className="nav-group">
          <button className={`nav-item ${view.name === 'board' ? 'active' : ''}`} onClick={() => go({ name: 'board' })} title="Board">
            <Icon name="board" /> <span className="nav-label">Board</span>
          </button>
          <TerminalsNavItem />
          <button className={`nav-item ${view.name === 'containers' ? 'active' : ''}`} onClick={() => go({ name: 'containers' })} title="Containers: engines, agent containers, the agent image" data-testid="nav-containers">
            <Icon name="box" /> <span className="nav-label">Containers</span>
          </button>
          <button className={`nav-item ${view.name === 'autopilot' ? 'active' : ''}`} onClick={() => go({ name: 'autopilot' })} title="Autopilot" data-testid="nav-autopilot">
            <Icon name="autopilot" /> <span className="nav-label">Autopilot</span>
          </button>
          <button className={`nav-item ${view.name === 'mailbox' ? 'active' : ''}`} onClick={() => go({ name: 'mailbox' })} title="Mailbox: reports, ADRs, tasks" data-testid="nav-mailbox">
            <Icon name="chat" /> <span className="nav-label">Mailbox</span>
          </button>
          <button className={`nav-item ${view.name === 'settings' ? 'active' : ''}`} onClick={() => go({ name: 'settings' })} title="Settings" data-testid="nav-settings">
            <Icon name="settings" /> <span className="nav-label">Settings</span>
          </button>
        </div>
        <div className="nav-heading">
          <span className="nav-label">Projects</span>
          <button className="icon-button" title="Add project" aria-label="Add project" onClick={() => setAdding(true)}>
            <Icon name="plus" />
          </button>
        </div>
        <div className="nav-group nav-projects" data-testid="sidebar-projects">
          {projects.length === 0 && <p className="nav-empty nav-label">No projects yet.</p>}
          {projects.map((p) => (
            <button
              key={p.id}
              className={`nav-item ${view.name === 'project' && view.projectId === p.id ? 'active' : ''}`}
              onClick={() => go({ name: 'project', projectId: p.id })}
              title={p.name}
            >
              <span className={`status-dot ${p.problem ? 'bad' : p.dirty ? 'warn' : 'ok'}`} />
              <span className="nav-initial" aria-hidden="true">
                {p.name.slice(0, 1).toUpperCase()}
              </span>
              <span className="truncate nav-label">{p.name}</span>
            </button>
          ))}
        </div>
        {sessions.length > 0 && (
          <div className="nav-sessions">
            <div className="nav-heading">
              <span className="nav-label">Sessions</span>
            </div>
            <SessionSearch value={query} onChange={setQuery} />
            <div className="nav-group" data-testid="sidebar-sessions">
              {groups.map((g) => {
                const showAll = expanded.has(g.key);
                // The user's own sessions are listed; those the app made (init, plans, feature runs, autopilot, mailbox) go in a group of their own.
                const { own, made } = splitByMaker(g.sessions);
                const shown = showAll ? own : own.slice(0, SESSIONS_PER_GROUP);
                return (
                  <div className="sidebar-project-group" key={g.key} data-testid="sidebar-session-group">
                    <div className="nav-subheading" title={g.label}>
                      <Icon name="folder" size={13} />
                      <span className="truncate">{g.label}</span>
                    </div>
                    {shown.map((x) => (
                      <button
                        key={x.id}
                        className={`nav-item nav-session ${view.name === 'session' && view.sessionId === x.id ? 'active' : ''}`}
                        onClick={() => go({ name: 'session', sessionId: x.id })}
                        title={`${x.title} — ${g.label}`}
                      >
                        <span className={`status-dot ${sessionDot(x)}`} />
                        <span className="truncate">{x.title}</span>
                        {x.pendingApprovals > 0 && (
                          <span className="nav-badge" title={`${x.pendingApprovals} waiting for approval`}>
                            {x.pendingApprovals}
                          </span>
                        )}
                      </button>
                    ))}
                    {own.length > SESSIONS_PER_GROUP && (
                      <button
                        className="nav-item nav-session nav-more"
                        onClick={() =>
                          setExpanded((s) => {
                            const n = new Set(s);
                            if (showAll) n.delete(g.key);
                            else n.add(g.key);
                            return n;
                          })
                        }
                        data-testid="sidebar-show-all"
                      >
                        {showAll ? 'Show fewer' : `Show all ${own.length}`}
                      </button>
                    )}
                    <MadeSessions groups={made} activeId={view.name === 'session' ? view.sessionId : null} onOpen={(id) => go({ name: 'session', sessionId: id })} />
                  </div>
                );
              })}
              {groups.length === 0 && query.trim() !== '' && <p className="nav-empty nav-label">No session title matches.</p>}
              <ArchivedSessions sessions={sessions} query={query} activeId={view.name === 'session' ? view.sessionId : null} onOpen={(id) => go({ name: 'session', sessionId: id })} />
            </div>
          </div>
        )}
        {adding && <AddProjectDialog onClose={() => setAdding(false)} />}
      </nav>
    </>
  );
}
