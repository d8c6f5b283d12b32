import type { SliceCreator } from '.';
import type { AppInfo, Settings } from '../../../src-preload/contract';
import type { TransportStatus } from '../../../src-preload/client/transport';
import { hashToView, viewToHash } from '../lib/route';

export type View = { name: 'board' } | { name: 'settings' } | { name: 'project'; projectId: string } | { name: 'session'; sessionId: string } | { name: 'terminals' };

export interface AppSlice {
  info: AppInfo | null;
  settings: Settings | null;
  connection: TransportStatus;
  view: View;
  setView(view: View): void;
  setConnection(status: TransportStatus): void;
  loadApp(): Promise<void>;
  applySettings(s: Settings): void;
  updateSettings(patch: Partial<Settings>): Promise<void>;
}

export const createAppSlice: SliceCreator<AppSlice> = (set, get, client) => ({
  info: null,
  settings: null,
  connection: 'connecting',
  view: typeof location === 'undefined' ? { name: 'board' } : hashToView(location.hash),
  setView: (view) => {
    set({ view });
    if (typeof location !== 'undefined' && location.hash !== viewToHash(view)) location.hash = viewToHash(view);
  },
  setConnection: (connection) => {
    set({ connection });
    if (connection === 'open') get().clearConnectionToasts();
  },
  async loadApp() {
    const [info, settings] = await Promise.all([client.invoke('app.info', {}), client.invoke('settings.get', {})]);
    set({ info, settings });
  },
  applySettings: (settings) => set({ settings }),
  async updateSettings(patch) {
    try {
      set({ settings: await client.invoke('settings.update', patch) });
    } catch (e) {
      get().toastError('Could not save settings', e);
    }
  },
});
