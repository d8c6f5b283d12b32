import { useEffect, useState } from 'react';
import type { ContainerPlacement } from '../../../src-preload/contract/containers';
import { Icon } from '../components/Icon';
import { useAppStore, useClient } from '../store';

export type ContainerTerminalKind = 'console' | 'shell';

/** Opens a session container's agent console or a shell in it, and shows it in the Terminals view. */
export function useOpenContainerTerminal(): (sessionId: string, kind: ContainerTerminalKind, name?: string) => Promise<void> {
  const client = useClient();
  const adopt = useAppStore((s) => s.adoptTerminal);
  const toastError = useAppStore((s) => s.toastError);
  return async (sessionId, kind, name) => {
    try {
      const info = await client.invoke(kind === 'console' ? 'containers.console.open' : 'containers.terminal.open', { sessionId, cols: 100, rows: 30 });
      adopt(info);
    } catch (e) {
      toastError(kind === 'console' ? `Could not open the agent console${name ? ` of ${name}` : ''}` : `Could not open a shell${name ? ` in ${name}` : ''}`, e);
    }
  };
}

/** The session's container placement (null when it runs on this machine), re-read when its status moves. */
export function useSessionPlacement(sessionId: string, status: string): ContainerPlacement | null {
  const client = useClient();
  const [placement, setPlacement] = useState<ContainerPlacement | null>(null);
  useEffect(() => {
    let live = true;
    // A placement changes at the user's hand (dialog, Containers view): re-read when the session's state moves.
    client
      .invoke('containers.placement.get', { sessionId })
      .then((p) => live && setPlacement(p))
      .catch(() => live && setPlacement(null));
    return () => {
      live = false;
    };
  }, [client, sessionId, status]);
  return placement;
}

/**
 * In a session's header when the session is placed in a container: where it runs, and its agent
 * console (what the agent runs there, live) and a shell, one click away.
 */
export function SessionContainerButtons({ sessionId, placement }: { sessionId: string; placement: ContainerPlacement | null }) {
  const open = useOpenContainerTerminal();
  if (!placement) return null;
  const where = `In a container${placement.engine ? ` on ${placement.engine}` : ''} (${placement.image})`;
  return (
    <span className="container-buttons" data-testid="session-container">
      <button className="button small" title={`${where}: open its agent console, the agent's commands and output as they run`} onClick={() => void open(sessionId, 'console')} data-testid="session-container-console">
        <Icon name="terminal" size={14} /> <span className="wide-label">Container console</span>
        <span className="narrow-label">Console</span>
      </button>
      <button className="button small" title={`${where}: open a shell in it`} onClick={() => void open(sessionId, 'shell')} data-testid="session-container-shell">
        Shell
      </button>
    </span>
  );
}
