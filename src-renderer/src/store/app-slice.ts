import type { SliceCreator } from '.';
import type { AppInfo, Settings, StorageStatus } from '../../../src-preload/contract';
import type { TransportStatus } from '../../../src-preload/client/transport';
import { hashToView, viewToHash } from '../lib/route';

export type View =
  | { name: 'board' }
  | { name: 'settings' }
  | { name: 'project'; projectId: string }
  | { name: 'session'; sessionId: string }
  /** The terminals; `terminalId` (a link to one terminal) brings that one to the front. */
  | { name: 'terminals'; terminalId?: string }
  /** Docker engines, Flightdeck's containers, the agent image. */
  | { name: 'containers' }
  /** The agent mailbox: reports, ADRs, mission, context, new tasks (one report open when commandId is set). */
  | { name: 'mailbox'; projectId?: string; commandId?: string }
  /** Autopilot runs, one of them open. */
  | { name: 'autopilot'; runId?: string }
  /** A feature plan: its Planner chat, or (review) the plan-approval screen. */
  | { name: 'plan'; draftId: string; screen: 'chat' | 'review' }
  /** One feature: its pipeline, phases, review and verify rounds, branch diff and timeline. */
  | { name: 'feature'; projectId: string; slug: string };

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
  /** The database: full disk, damage found at start, automatic backups (shown as a banner). */
  storage: StorageStatus | null;
  setStorage(s: StorageStatus): void;
  /** Restores the latest automatic backup; resolves true when it worked. */
  restoreDatabase(): Promise<boolean>;
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
    // Each answer as it comes: a snapshot of all three set at the end could put back settings
    // older than a change applied meanwhile (settings.changed, or the user's own update).
    await Promise.all([
      client.invoke('app.info', {}).then((info) => set({ info })),
      client.invoke('settings.get', {}).then((settings) => set({ settings })),
      client.invoke('app.storage', {}).then((storage) => set({ storage })),
    ]);
  },
  storage: null,
  setStorage: (storage) => set({ storage }),
  async restoreDatabase() {
    try {
      await client.invoke('app.storage.restore', {});
      return true;
    } catch (e) {
      get().toastError('Could not restore the database', e);
      return false;
    }
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
