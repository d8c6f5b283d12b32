import { createContext, useContext } from 'react';
import { createStore, useStore, type StoreApi } from 'zustand';
import type { Client } from '../../../src-preload/client/client';
import { createAppSlice, type AppSlice } from './app-slice';
import { createProjectsSlice, type ProjectsSlice } from './projects-slice';
import { createToastSlice, type ToastSlice } from './toast-slice';
import { createAgentsSlice, type AgentsSlice } from './agents-slice';
import { createCoderSlice, type CoderSlice } from './coder-slice';
import { createTerminalsSlice, type TerminalsSlice } from './terminals-slice';
import { createAutopilotSlice, type AutopilotSlice } from './autopilot-slice';
import { createFeaturesSlice, type FeaturesSlice } from './features-slice';

export type AppState = AppSlice & ProjectsSlice & ToastSlice & AgentsSlice & CoderSlice & TerminalsSlice & AutopilotSlice & FeaturesSlice;
export type AppStore = StoreApi<AppState>;
export type SliceCreator<S> = (set: StoreApi<AppState>['setState'], get: StoreApi<AppState>['getState'], client: Client) => S;

/** One store of typed slices; a new one per app start (and per test). */
export function createAppStore(client: Client): AppStore {
  return createStore<AppState>()((set, get) => ({
    ...createAppSlice(set, get, client),
    ...createProjectsSlice(set, get, client),
    ...createToastSlice(set, get, client),
    ...createAgentsSlice(set, get, client),
    ...createCoderSlice(set, get, client),
    ...createTerminalsSlice(set, get, client),
    ...createAutopilotSlice(set, get, client),
    ...createFeaturesSlice(set, get, client),
  }));
}

export const StoreContext = createContext<AppStore | null>(null);
export const ClientContext = createContext<Client | null>(null);

export function useAppStore<T>(selector: (s: AppState) => T): T {
  const store = useContext(StoreContext);
  if (!store) throw new Error('StoreContext missing');
  return useStore(store, selector);
}

export function useClient(): Client {
  const client = useContext(ClientContext);
  if (!client) throw new Error('ClientContext missing');
  return client;
}
