import { useState } from 'react';
import { useAppStore } from '../store';
import { Icon } from '../components/Icon';

/** Opens a shell in a project's repository and shows it in the Terminals view. */
export function OpenTerminalButton({ projectId, projectName, labelled = false }: { projectId: string; projectName: string; labelled?: boolean }) {
  const openTerminal = useAppStore((s) => s.openTerminal);
  const [busy, setBusy] = useState(false);
  const open = async () => {
    setBusy(true);
    await openTerminal({ kind: 'project', projectId });
    setBusy(false);
  };
  if (labelled) {
    return (
      <button className="button" onClick={() => void open()} disabled={busy} aria-label={`Open a terminal in ${projectName}`} data-testid="open-terminal">
        <Icon name="terminal" /> Terminal
      </button>
    );
  }
  return (
    <button className="icon-button" title="Terminal: open a shell here" aria-label={`Open a terminal in ${projectName}`} onClick={() => void open()} disabled={busy} data-testid="open-terminal">
      <Icon name="terminal" />
    </button>
  );
}

/** The sidebar's "Terminals" entry, with how many are running. */
export function TerminalsNavItem() {
  const active = useAppStore((s) => s.view.name === 'terminals');
  const setView = useAppStore((s) => s.setView);
  const running = useAppStore((s) => s.terminals.filter((t) => t.status === 'running').length);
  return (
    <button className={`nav-item ${active ? 'active' : ''}`} onClick={() => setView({ name: 'terminals' })} data-testid="nav-terminals" title="Terminals">
      <Icon name="terminal" /> <span className="nav-label">Terminals</span>
      {running > 0 && (
        <span className="nav-count" title={`${running} running`}>
          {running}
        </span>
      )}
    </button>
  );
}
