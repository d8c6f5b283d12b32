import { useContext, useEffect, useMemo, useState } from 'react';
import { StoreContext, useAppStore } from '../store';
import { Modal } from '../components/Modal';
import { AddProjectDialog } from '../components/AddProjectDialog';
import { NewSessionDialog } from '../session-worktrees/NewSessionDialog';
import { dialogOpen } from '../components/dialog-open';
import { MODES } from '../agents/modes';
import { CommandPalette } from './CommandPalette';
import { contextProjectId, paletteEntries, type PaletteEntry } from './palette-model';
import { chordText, isMac, isTyping, shortcutList, shortcutOf } from './shortcuts';
import { requestChanges } from './events';
import './keyboard.css';

type Open = null | 'palette' | 'pick-project' | 'shortcuts' | 'add-project';

const mac = typeof navigator !== 'undefined' && isMac(navigator.platform);
/** Plan, Default, Auto-edit: YOLO is switched on from the header only, where its warning is. */
const PALETTE_MODES = MODES.filter((m) => m.value !== 'yolo');

/**
 * The app's global keys and what they open: the command palette (Ctrl/Cmd+K), a new session
 * (Ctrl/Cmd+N), the open session's Changes (Ctrl/Cmd+Shift+G) and the shortcut list (`?`).
 * A terminal keeps every key it is given (xterm stops them): Ctrl+K there is the shell's.
 */
export function KeyboardLayer() {
  const store = useContext(StoreContext)!;
  const [open, setOpen] = useState<Open>(null);
  /** The project a "New session" dialog is open for. */
  const [newIn, setNewIn] = useState<string | null>(null);
  const setView = useAppStore((s) => s.setView);

  useEffect(() => {
    const startNewSession = () => {
      const s = store.getState();
      const here = contextProjectId(s.view, s.sessions);
      if (here && s.projects.some((p) => p.id === here)) setNewIn(here);
      else if (s.projects.length === 1) setNewIn(s.projects[0]!.id);
      else if (s.projects.length === 0) {
        s.toast({ level: 'info', title: 'Add a project first', message: 'A session works in a project’s folder.' });
        setOpen('add-project');
      } else setOpen('pick-project');
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.isComposing) return;
      const id = shortcutOf(e, mac);
      if (!id) return;
      const s = store.getState();
      if (id === 'shortcuts') {
        if (isTyping(document.activeElement) || dialogOpen()) return;
        e.preventDefault();
        setOpen('shortcuts');
        return;
      }
      e.preventDefault();
      if (id === 'palette') {
        // The chord toggles: pressed again in the palette it closes it.
        if (document.querySelector('[data-testid="command-palette"]')) setOpen(null);
        else if (!dialogOpen()) setOpen('palette');
        return;
      }
      if (dialogOpen()) return;
      if (id === 'newSession') startNewSession();
      else if (id === 'changes') {
        if (s.view.name === 'session') requestChanges(s.view.sessionId);
        else s.toast({ level: 'info', title: 'Changes belong to a session', message: 'Open a session first (Ctrl/Cmd+K finds one).' });
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [store]);

  const pick = (entry: PaletteEntry) => {
    setOpen(null);
    const a = entry.action;
    const s = store.getState();
    switch (a.type) {
      case 'view':
        setView(a.view);
        break;
      case 'new-session':
        setNewIn(a.projectId);
        break;
      case 'add-project':
        setOpen('add-project');
        break;
      case 'open-changes':
        if (s.view.name !== 'session' || s.view.sessionId !== a.sessionId) setView({ name: 'session', sessionId: a.sessionId });
        requestChanges(a.sessionId);
        break;
      case 'set-mode':
        void s.updateSession(a.sessionId, { mode: a.mode });
        break;
      case 'shortcuts':
        setOpen('shortcuts');
        break;
      case 'open-terminal':
        setView({ name: 'terminals', terminalId: a.terminalId });
        break;
    }
  };

  return (
    <>
      {open === 'palette' && <PaletteHost onPick={pick} onClose={() => setOpen(null)} />}
      {open === 'pick-project' && <ProjectPicker onPick={pick} onClose={() => setOpen(null)} />}
      {open === 'shortcuts' && <ShortcutsDialog onClose={() => setOpen(null)} />}
      {open === 'add-project' && <AddProjectDialog onClose={() => setOpen(null)} />}
      {newIn && (
        <NewSessionDialog
          projectId={newIn}
          onClose={() => setNewIn(null)}
          onStarted={(session) => {
            setNewIn(null);
            setView({ name: 'session', sessionId: session.id });
          }}
        />
      )}
    </>
  );
}

/** Reads the lists only while the palette is open: the layer itself re-renders for nothing. */
function PaletteHost({ onPick, onClose }: { onPick(e: PaletteEntry): void; onClose(): void }) {
  const view = useAppStore((s) => s.view);
  const projects = useAppStore((s) => s.projects);
  const sessions = useAppStore((s) => s.sessions);
  const featureProjects = useAppStore((s) => s.featureProjects);
  const terminals = useAppStore((s) => s.terminals);
  const loadFeatures = useAppStore((s) => s.loadFeatures);
  // Features change on disk without an event reaching every window (a project just added, a state file edited): read them afresh.
  useEffect(() => void loadFeatures(), [loadFeatures]);
  const entries = useMemo(
    () =>
      paletteEntries({
        view,
        projects,
        sessions,
        featureProjects,
        terminals: terminals.map((t) => ({ id: t.id, title: t.title, exited: t.status !== 'running' })),
        modes: PALETTE_MODES,
        chords: { newSession: chordText('newSession', mac), changes: chordText('changes', mac), shortcuts: chordText('shortcuts', mac), modeCycle: chordText('modeCycle', mac) },
      }),
    [view, projects, sessions, featureProjects, terminals],
  );
  return <CommandPalette title="Command palette" placeholder="Go to a view, project, session, feature, terminal, or run an action…" entries={entries} onPick={onPick} onClose={onClose} />;
}

function ProjectPicker({ onPick, onClose }: { onPick(e: PaletteEntry): void; onClose(): void }) {
  const projects = useAppStore((s) => s.projects);
  const entries = useMemo<PaletteEntry[]>(() => projects.map((p) => ({ id: `new-session:${p.id}`, kind: 'project', label: p.name, detail: p.path, action: { type: 'new-session', projectId: p.id } })), [projects]);
  return <CommandPalette title="New session in…" placeholder="Which project? Type to filter, Enter to choose" entries={entries} onPick={onPick} onClose={onClose} testId="project-picker" />;
}

function ShortcutsDialog({ onClose }: { onClose(): void }) {
  return (
    <Modal title="Keyboard shortcuts" onClose={onClose} testId="shortcuts-dialog" className="shortcuts-modal">
      <table className="shortcuts-table">
        <tbody>
          {shortcutList(mac).map((s) => (
            <tr key={s.keys}>
              <td>
                <kbd>{s.keys}</kbd>
              </td>
              <td>{s.what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted small">In a terminal every key goes to the shell (Ctrl+K included): click outside it to use these.</p>
    </Modal>
  );
}

/** The first stop of Tab on every page: straight to the view, past the sidebar's links. */
export function SkipLink() {
  return (
    <a
      className="skip-link"
      href="#main-content"
      onClick={(e) => {
        // The address's hash is the route: move focus without navigating.
        e.preventDefault();
        const main = document.getElementById('main-content');
        const first = main?.querySelector<HTMLElement>('h1, h2, [data-autofocus], textarea, input, button');
        main?.focus();
        first?.scrollIntoView({ block: 'nearest' });
      }}
      data-testid="skip-link"
    >
      Skip to main content
    </a>
  );
}
