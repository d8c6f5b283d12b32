import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { TerminalInfo } from '../../../src-preload/contract';
import { useAppStore } from '../store';
import { PANES_PER_LAYOUT, type TerminalLayout } from '../store/terminals-slice';
import { Icon, type IconName } from '../components/Icon';
import { shortPath } from '../lib/format';
import { NewShellMenu } from './NewShellMenu';
import { terminalStatus } from './status';
import { XtermPane } from './XtermPane';
import { terminalTabs } from './terminal-tabs';
import './terminals.css';

const LAYOUTS: Array<{ value: TerminalLayout; label: string; icon: IconName }> = [
  { value: 'single', label: 'One pane', icon: 'paneSingle' },
  { value: 'columns', label: 'Two side by side', icon: 'paneColumns' },
  { value: 'grid', label: 'Grid of four', icon: 'paneGrid' },
];

export function TerminalsView() {
  const terminals = useAppStore((s) => s.terminals);
  const loaded = useAppStore((s) => s.terminalsLoaded);
  const layout = useAppStore((s) => s.terminalLayout);
  const panes = useAppStore((s) => s.terminalPanes);
  const focused = useAppStore((s) => s.focusedPane);
  const setLayout = useAppStore((s) => s.setTerminalLayout);
  const show = useAppStore((s) => s.showTerminal);
  const projectNames = useAppStore(useShallow((s) => Object.fromEntries(s.projects.map((p) => [p.id, p.name]))));
  const sessionTitles = useAppStore(useShallow((s) => Object.fromEntries(s.sessions.map((x) => [x.id, x.title]))));
  // Which agent sessions' command lists are unfolded in the tab bar.
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setExpanded((cur) => {
      const next = new Set(cur);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  // Opened from a link (#/terminals/<id>): that terminal comes to the front once it is known.
  const wanted = useAppStore((s) => (s.view.name === 'terminals' ? (s.view.terminalId ?? null) : null));
  const wantedKnown = wanted !== null && terminals.some((t) => t.id === wanted);
  useEffect(() => {
    if (wanted && wantedKnown) show(wanted);
  }, [wanted, wantedKnown, show]);

  return (
    <section className="view terminals-view" data-testid="terminals-view">
      <header className="view-header">
        <div>
          <h1>Terminals</h1>
          <p className="muted">Shells you opened and the commands your agents run, live. Exited ones stay readable until you close them.</p>
        </div>
        {!(loaded && terminals.length === 0) && (
          <div className="view-actions">
            <div className="segmented" role="radiogroup" aria-label="Layout">
              {LAYOUTS.map((l) => (
                <button key={l.value} role="radio" aria-checked={layout === l.value} aria-label={l.label} title={l.label} className={layout === l.value ? 'active' : ''} onClick={() => setLayout(l.value)}>
                  <Icon name={l.icon} />
                </button>
              ))}
            </div>
            <NewShellMenu primary />
          </div>
        )}
      </header>

      {loaded && terminals.length === 0 ? (
        <NoTerminals />
      ) : (
        <>
          <div className="term-tabs" role="tablist" aria-label="Terminals">
            {terminalTabs(terminals).map((e) => {
              if (e.kind === 'terminal') return <TerminalTab key={e.terminal.id} t={e.terminal} />;
              const open = expanded.has(e.sessionId);
              const shownMember = e.terminals.find((t) => panes.includes(t.id));
              const lead = shownMember ?? e.terminals[0]!;
              const live = e.terminals.filter((t) => t.status === 'running').length;
              const title = sessionTitles[e.sessionId] ?? 'Agent session';
              return (
                <div key={e.sessionId} className={`term-group ${open ? 'open' : ''}`} data-testid="terminal-group" data-session-id={e.sessionId}>
                  <div className={`term-tab ${shownMember ? 'shown' : ''} ${shownMember && panes.indexOf(shownMember.id) === focused ? 'active' : ''}`} role="tab" aria-selected={!!shownMember && panes.indexOf(shownMember.id) === focused}>
                    <button className="term-tab-main" onClick={() => show(lead.id)} title={`${title}: the agent's commands (${e.terminals.length}); shows ${lead.title}`} data-testid="terminal-group-main">
                      <span className={`status-dot ${live > 0 ? 'ok' : ''}`} />
                      <span className="truncate">{title}</span>
                      <span className="term-tab-owner truncate">
                        {e.terminals.length} commands{live > 0 ? ` · ${live} running` : ''}
                      </span>
                    </button>
                    <button className="icon-button term-tab-close" aria-expanded={open} aria-label={`${open ? 'Hide' : 'Show'} the commands of ${title}`} title={open ? 'Hide its commands' : 'Show its commands'} onClick={() => toggle(e.sessionId)} data-testid="terminal-group-toggle">
                      <Icon name={open ? 'chevronUp' : 'chevronDown'} size={13} />
                    </button>
                  </div>
                  {open && e.terminals.map((t) => <TerminalTab key={t.id} t={t} nested />)}
                </div>
              );
            })}
          </div>
          <div className={`term-grid layout-${layout}`}>
            {Array.from({ length: PANES_PER_LAYOUT[layout] }, (_, i) => {
              const id = panes[i] ?? null;
              const info = id ? terminals.find((t) => t.id === id) : undefined;
              return <PaneFrame key={i} index={i} info={info ?? null} focused={i === focused} projectName={info?.owner.projectId ? projectNames[info.owner.projectId] : undefined} />;
            })}
          </div>
        </>
      )}
    </section>
  );
}

/** One terminal's tab: its status, title (numbered when several read alike) and where it runs. */
function TerminalTab({ t, nested = false }: { t: TerminalInfo; nested?: boolean }) {
  const terminals = useAppStore((s) => s.terminals);
  const panes = useAppStore((s) => s.terminalPanes);
  const focused = useAppStore((s) => s.focusedPane);
  const show = useAppStore((s) => s.showTerminal);
  const close = useAppStore((s) => s.closeTerminal);
  const projectNames = useAppStore(useShallow((s) => Object.fromEntries(s.projects.map((p) => [p.id, p.name]))));
  const pane = panes.indexOf(t.id);
  const st = terminalStatus(t);
  const where = whereOf(t, projectNames);
  const title = shownTitle(t, terminals, projectNames);
  return (
    <div className={`term-tab ${nested ? 'nested' : ''} ${pane >= 0 ? 'shown' : ''} ${pane >= 0 && pane === focused ? 'active' : ''}`} role="tab" aria-selected={pane === focused}>
      <button className="term-tab-main" onClick={() => show(t.id)} title={`${t.title}\n${t.cwd}`} data-testid="terminal-tab" data-terminal-id={t.id}>
        <span className={`status-dot ${st.tone === 'ok' ? 'ok' : st.tone === 'bad' ? 'bad' : st.tone === 'warn' ? 'warn' : ''}`} />
        <span className="truncate">{title}</span>
        <span className="term-tab-owner truncate">{where}</span>
      </button>
      <button className="icon-button term-tab-close" aria-label={`Close ${title}`} title="Close (ends it if still running)" onClick={() => void close(t.id)}>
        <Icon name="x" size={13} />
      </button>
    </div>
  );
}

/** Where a terminal runs, in the user's words: its project, else its folder. */
function whereOf(t: TerminalInfo, projectNames: Record<string, string>): string {
  const project = t.owner.projectId ? projectNames[t.owner.projectId] : undefined;
  return project ?? (t.cwd.split('/').filter(Boolean).pop() || t.cwd);
}

/**
 * A terminal's title as its tab and its pane show it: several shells in one place read alike, so
 * the later ones are numbered (in the order they were opened).
 */
function shownTitle(t: TerminalInfo, terminals: TerminalInfo[], projectNames: Record<string, string>): string {
  const where = whereOf(t, projectNames);
  const same = terminals.filter((o) => o.startedAt < t.startedAt && o.title === t.title && whereOf(o, projectNames) === where).length;
  return same > 0 ? `${t.title} ${same + 1}` : t.title;
}

function PaneFrame({ index, info, focused, projectName }: { index: number; info: TerminalInfo | null; focused: boolean; projectName: string | undefined }) {
  const terminals = useAppStore((s) => s.terminals);
  const projectNames = useAppStore(useShallow((s) => Object.fromEntries(s.projects.map((p) => [p.id, p.name]))));
  const focus = useAppStore((s) => s.focusPane);
  const kill = useAppStore((s) => s.killTerminal);
  const close = useAppStore((s) => s.closeTerminal);
  const setView = useAppStore((s) => s.setView);

  if (!info) return <EmptyPane index={index} focused={focused} />;
  const st = terminalStatus(info);
  const owner = info.owner;
  return (
    <div className={`term-pane ${focused ? 'focused' : ''}`} data-testid="terminal-pane" data-terminal-id={info.id} data-status={info.status} onMouseDown={() => focus(index)}>
      <header className="term-pane-header">
        <Icon name="terminal" size={14} />
        <strong className="truncate" title={info.command ?? info.title} data-testid="terminal-pane-title">
          {shownTitle(info, terminals, projectNames)}
        </strong>
        <span className="term-pane-where truncate" title={info.cwd}>
          {projectName ?? shortPath(info.cwd)}
          {owner.sessionId ? ' · agent session' : ''}
          {owner.phase ? ` · ${owner.phase}` : ''}
        </span>
        <span className={`badge ${st.tone === 'neutral' ? '' : `badge-${st.tone}`}`} title={info.problem ?? undefined} data-testid="terminal-status">
          {st.label}
        </span>
        <span className="spacer" />
        {owner.sessionId ? (
          <button className="icon-button" title="Open the agent session" aria-label="Open session" onClick={() => setView({ name: 'session', sessionId: owner.sessionId! })}>
            <Icon name="chat" />
          </button>
        ) : owner.projectId ? (
          <button className="icon-button" title="Open the project" aria-label="Open project" onClick={() => setView({ name: 'project', projectId: owner.projectId! })}>
            <Icon name="external" />
          </button>
        ) : null}
        {info.status === 'running' && (
          <button className="icon-button" title="Stop the process" aria-label="Stop" onClick={() => void kill(info.id)}>
            <Icon name="stop" />
          </button>
        )}
        <button className="icon-button danger" title="Close the terminal (ends it if still running)" aria-label="Close terminal" onClick={() => void close(info.id)}>
          <Icon name="x" />
        </button>
      </header>
      <XtermPane
        terminalId={info.id}
        focused={focused}
        running={info.status === 'running'}
        endLabel={info.status === 'running' ? null : `${st.label.toLowerCase()}${info.problem ? ` — ${info.problem}` : ''}`}
        endAt={info.outputEnd}
        onFocus={() => focus(index)}
      />
    </div>
  );
}

function EmptyPane({ index, focused }: { index: number; focused: boolean }) {
  const terminals = useAppStore((s) => s.terminals);
  const panes = useAppStore((s) => s.terminalPanes);
  const show = useAppStore((s) => s.showTerminal);
  const focus = useAppStore((s) => s.focusPane);
  const hidden = terminals.filter((t) => !panes.includes(t.id));
  return (
    <div className={`term-pane empty ${focused ? 'focused' : ''}`} data-testid="terminal-pane-empty" onMouseDown={() => focus(index)}>
      <div className="term-empty">
        <Icon name="terminal" size={28} />
        <p>{hidden.length > 0 ? 'Show a terminal here:' : 'Every terminal is already on screen.'}</p>
        {hidden.length > 0 && (
          <div className="term-empty-list">
            {hidden.slice(0, 6).map((t) => (
              <button key={t.id} className="button" onClick={() => show(t.id, index)}>
                <span className={`status-dot ${t.status === 'running' ? 'ok' : ''}`} /> <span className="truncate">{t.title}</span>
              </button>
            ))}
          </div>
        )}
        <NewShellMenu />
      </div>
    </div>
  );
}

function NoTerminals() {
  const projects = useAppStore((s) => s.projects);
  const openTerminal = useAppStore((s) => s.openTerminal);
  return (
    <div className="empty-state" data-testid="terminals-empty">
      <div className="empty-icon">
        <Icon name="terminal" size={36} />
      </div>
      <h2>No terminals yet</h2>
      <p>Open a shell in one of your projects to run commands next to your agents. When an agent runs a command, it shows up here live.</p>
      {projects.length > 0 ? (
        <div className="term-empty-list">
          {projects.slice(0, 6).map((p) => (
            <button key={p.id} className="button" onClick={() => void openTerminal({ kind: 'project', projectId: p.id })}>
              <Icon name="terminal" /> Shell in {p.name}
            </button>
          ))}
        </div>
      ) : (
        <p className="muted small">Add a project on the Board first, or open a shell in any folder:</p>
      )}
      <NewShellMenu />
    </div>
  );
}
