import { AppError } from '../../src-preload/contract';
import type { Router } from '../bridge/router';
import { appVersion } from './version';
import type { AppServices } from './services';

/** What the runtime (Electron or browser mode) provides beyond the shared services. */
export interface Platform {
  runtime: 'electron' | 'browser';
  pickFolder?: (title?: string) => Promise<string | null>;
  openExternal?: (url: string) => Promise<void>;
}

export function registerAppHandlers(router: Router, app: AppServices, platform: Platform): void {
  router.handle('app.info', () => ({
    version: appVersion(),
    runtime: platform.runtime,
    dataDir: app.dataDir,
    platform: process.platform,
    capabilities: { folderDialog: platform.pickFolder !== undefined },
  }));
  router.handle('settings.get', () => app.settings.get());
  router.handle('settings.update', (patch) => app.settings.update(patch));
  router.handle('app.storage', () => app.storageStatus());
  router.handle('app.storage.restore', ({ file }) => app.restoreDatabase(file));
  router.handle('dialog.pickFolder', async ({ title }) => {
    if (!platform.pickFolder) throw new AppError('unavailable', 'There is no folder dialog in browser mode; type the path instead.');
    return { path: await platform.pickFolder(title) };
  });
  router.handle('shell.openExternal', async ({ url }) => {
    if (!platform.openExternal) return { opened: false };
    await platform.openExternal(url);
    return { opened: true };
  });
}
