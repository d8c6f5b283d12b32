import { useContext, useEffect } from 'react';
import type { Client } from '../../../src-preload/client/client';
import { StoreContext, useClient, type AppState } from '../store';
import type { View } from '../store/app-slice';

/**
 * Starts what a view reads as the app goes to it (an address, a link), before React has
 * drawn it: the store's listeners run as the view changes and React renders after, so the read
 * is under way while the page renders (10–20 ms on a switch) instead of asked for by the view's
 * effect. Each starter comes with its view's module (the terminal views with xterm, the
 * transcript with the session view), which registers it as it loads: before that, nothing runs.
 */
export type AheadOfView = (client: Client, view: View, state: AppState) => void;

const starters = new Set<AheadOfView>();

/** Called once by a view's module as it loads. */
export function registerAheadOfView(start: AheadOfView): void {
  starters.add(start);
}

/** Runs the registered starters on every change of view (App, once). */
export function useAheadOfView(): void {
  const store = useContext(StoreContext);
  const client = useClient();
  useEffect(
    () =>
      store?.subscribe((s, prev) => {
        if (s.view === prev.view) return;
        for (const start of starters) start(client, s.view, s);
      }),
    [store, client],
  );
}
