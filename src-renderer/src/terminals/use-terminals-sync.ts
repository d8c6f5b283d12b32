import { useEffect } from 'react';
import { useAppStore, useClient } from '../store';
import { loadedTerminalViews } from './loaded-views';

/** Keeps the terminal list (metadata only) current: loaded at start and on reconnect, then pushed. */
export function useTerminalsSync(): void {
  const client = useClient();
  const loadTerminals = useAppStore((s) => s.loadTerminals);
  const setTerminals = useAppStore((s) => s.setTerminals);
  useEffect(() => {
    void loadTerminals();
    const off = client.on('terminals.changed', ({ terminals }) => setTerminals(terminals));
    const offStatus = client.transport.onStatus?.((s) => s === 'open' && void loadTerminals());
    return () => {
      off();
      offStatus?.();
    };
  }, [client, loadTerminals, setTerminals]);
  // A closed terminal's hidden view and snapshot go with it (none exist before a terminal pane loaded the views).
  const terminals = useAppStore((s) => s.terminals);
  const loaded = useAppStore((s) => s.terminalsLoaded);
  useEffect(() => {
    if (loaded) loadedTerminalViews()?.retain(new Set(terminals.map((t) => t.id)));
  }, [terminals, loaded]);
}
