import { useContext, useEffect } from 'react';
import { StoreContext, useAppStore, useClient } from '../store';
import { HISTORY_AHEAD_AFTER_MS, HISTORY_AHEAD_REFRESH_MS, readHistoriesAhead, retainHistoryAhead } from './history-ahead';
import { loadedTerminalViews } from './loaded-views';
import { afterIdle } from '../lib/after-idle';

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
    if (!loaded) return;
    const ids = new Set(terminals.map((t) => t.id));
    loadedTerminalViews()?.retain(ids);
    retainHistoryAhead(ids);
  }, [terminals, loaded]);
  // Once the page has settled, the scrollbacks of terminals not shown yet are read ahead; going to
  // the Terminals view brings the older ones up to date (history-ahead.ts).
  const store = useContext(StoreContext);
  useEffect(() => {
    if (!loaded || !store) return;
    let stop: (() => void) | null = null;
    const current = () => store.getState().terminals;
    const read = (refreshOlderThanMs?: number) => {
      stop?.();
      const hasView = (id: string) => loadedTerminalViews()?.has(id) ?? false;
      stop = readHistoriesAhead(client, { current, hasView, ...(refreshOlderThanMs !== undefined ? { refreshOlderThanMs } : {}) });
    };
    // Not before the first read: going to the Terminals view as the page starts would read every
    // terminal at once, the one about to be shown too (its view's code still loading).
    let settled = false;
    let stopWarmUp: (() => void) | null = null;
    let unmounted = false;
    const timer = setTimeout(() => {
      settled = true;
      read();
      // With terminals to show, the first one shown need not be slower than the next (terminal-view.ts).
      if (current().length === 0) return;
      stopWarmUp = afterIdle(() => {
        void import('./terminal-view')
          .then((m) => {
            if (unmounted) return;
            const s = store.getState();
            m.warmUpTerminalViews(s.settings?.terminalFontSize, s.terminalGpu);
          })
          .catch(() => undefined);
      }, 5_000);
    }, HISTORY_AHEAD_AFTER_MS);
    const offView = store.subscribe((s, prev) => {
      if (settled && s.view.name === 'terminals' && prev.view.name !== 'terminals') read(HISTORY_AHEAD_REFRESH_MS);
    });
    return () => {
      unmounted = true;
      clearTimeout(timer);
      stopWarmUp?.();
      offView();
      stop?.();
    };
  }, [loaded, client, store]);
}
