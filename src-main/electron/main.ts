import { app, BrowserWindow, dialog, ipcMain, Notification, safeStorage, screen, session, shell, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError, isTopic, type InboxEntry } from '../../src-preload/contract';
import { IPC } from '../../src-preload/electron/ipc-names';
import { AppServices } from '../app/services';
import { chooseSecretStore } from '../agents/provider/secrets';
import { Subscriptions } from '../bridge/event-hub';
import { InFlightRequests } from '../bridge/limits';
import { createLogger } from '../platform/logger';
import { resolveDataDir } from '../platform/paths';
import { SCRIPT_SRC } from '../platform/csp';

/**
 * The desktop shell: one hardened window over the shared services. Everything that is not
 * Electron glue lives in the services and is tested under plain Node.
 */
const log = createLogger({ scope: 'electron' });
const here = fileURLToPath(new URL('.', import.meta.url));
const CSP =
  `default-src 'self'; ${SCRIPT_SRC}; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

interface WindowState {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
}

/**
 * Resolves once the window is created (or start-up gave up). A second instance hands over to
 * the first and quits. Exported for the smoke test, which loads this entry with a stub Electron.
 */
export const started: Promise<void> = app.requestSingleInstanceLock() ? main() : Promise.resolve(app.quit());

async function main(): Promise<void> {
  await app.whenReady();
  const dataDir = resolveDataDir({ flag: argValue('--data-dir'), electronUserData: app.getPath('userData') });
  let services: AppServices;
  try {
    services = await AppServices.create({
      dataDir,
      logger: log,
      // API keys encrypted by the OS keychain when it offers encryption.
      secretStore: chooseSecretStore(dataDir, safeStorage),
      platform: {
        runtime: 'electron',
        pickFolder: async (title) => {
          const win = BrowserWindow.getFocusedWindow();
          const opts = { title: title ?? 'Choose a git repository', properties: ['openDirectory' as const, 'createDirectory' as const] };
          const r = win ? await dialog.showOpenDialog(win, opts) : await dialog.showOpenDialog(opts);
          return r.canceled ? null : (r.filePaths[0] ?? null);
        },
        openExternal: (url) => shell.openExternal(url),
      },
    });
  } catch (e) {
    dialog.showErrorBox('Flightdeck could not start', e instanceof Error ? e.message : String(e));
    app.exit(1);
    return;
  }

  services.checkIntegrity();
  services.projects.refreshInBackground();
  // The feature index is reconciled with the state files at start, then kept so by watching them.
  services.features.startInBackground();
  // Features a killed Flightdeck left in progress resume from their first phase not completed.
  services.featureRuns.resumeInterrupted().catch((e: unknown) => services.options.logger.warn('could not resume interrupted feature runs', { error: e }));
  // Pull requests delivered with gh are followed (checks, reviews, fix rounds) while this host runs.
  services.prFollow.start();
  // Mailboxes watched before the restart are watched again (and a task cut off by it is reported).
  services.mailbox.resumeWatchers();
  session.defaultSession.webRequest.onHeadersReceived((details, cb) => {
    cb({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CSP] } });
  });
  session.defaultSession.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));

  const windows = new Set<BrowserWindow>();
  // The dev server is only trusted in development; a packaged app always loads its own files.
  const devUrl = !app.isPackaged ? process.env.ELECTRON_RENDERER_URL : undefined;
  const isAppUrl = (url: string): boolean => url.startsWith('file://') || (devUrl !== undefined && url.startsWith(new URL(devUrl).origin + '/'));
  const isOwnFrame = (e: IpcMainInvokeEvent | Electron.IpcMainEvent): boolean => {
    const frame = e.senderFrame;
    return frame !== null && frame === e.sender.mainFrame && isAppUrl(frame.url) && [...windows].some((w) => w.webContents === e.sender);
  };

  // What one window (one webContents) holds: its subscriptions and its requests in flight, both
  // bounded (see bridge/limits.ts). A closed window gives all of it back, and so does a page that
  // is reloaded, because the new page subscribes afresh.
  interface WindowConnection {
    readonly subs: Subscriptions;
    readonly inFlight: InFlightRequests;
  }
  const connections = new Map<number, WindowConnection>();
  const watched = new WeakSet<WebContents>();
  const release = (wc: WebContents): void => {
    connections.get(wc.id)?.subs.dispose();
    connections.delete(wc.id);
  };
  const connectionFor = (wc: WebContents): WindowConnection => {
    if (!watched.has(wc)) {
      watched.add(wc);
      // A closed or reloaded window's terminal views stop counting for flow control at once.
      const connectionId = `wc-${wc.id}`;
      wc.once('destroyed', () => {
        release(wc);
        services.hub.connectionClosed(connectionId);
      });
      wc.on('did-start-navigation', (details) => {
        if (details.isMainFrame && !details.isSameDocument) release(wc);
      });
      wc.on('did-navigate', () => services.hub.connectionClosed(connectionId));
    }
    let c = connections.get(wc.id);
    if (!c) {
      c = {
        subs: new Subscriptions(services.hub, (ev) => {
          if (!wc.isDestroyed()) wc.send(IPC.event, ev.topic, ev.key, ev.payload);
        }),
        // IPC arguments are structured clones of unknown size: only the count is bounded here.
        inFlight: new InFlightRequests(undefined, Number.POSITIVE_INFINITY),
      };
      connections.set(wc.id, c);
    }
    return c;
  };

  ipcMain.handle(IPC.request, async (e, channel: unknown, input: unknown) => {
    if (!isOwnFrame(e)) return { ok: false, error: { code: 'forbidden', message: 'Requests are only accepted from the app window.' } };
    let done: () => void;
    try {
      done = connectionFor(e.sender).inFlight.start(0);
    } catch (err) {
      if (err instanceof AppError) return { ok: false, error: err.toShape() };
      throw err;
    }
    try {
      return await services.router.dispatch(channel, input, { origin: 'electron', connectionId: `wc-${e.sender.id}` });
    } finally {
      done();
    }
  });
  ipcMain.on(IPC.subscribe, (e, topic: unknown, key: unknown) => {
    if (!isOwnFrame(e) || !isTopic(topic) || (key !== undefined && typeof key !== 'string')) return;
    try {
      connectionFor(e.sender).subs.add(topic, key);
    } catch (err) {
      // Past the per-window bound: refused and logged; an exception here would reach Electron's
      // uncaught-error dialog, and the app's own page never gets this far.
      if (!(err instanceof AppError)) throw err;
      log.warn('subscription refused', { topic, code: err.code, message: err.message });
    }
  });
  ipcMain.on(IPC.unsubscribe, (e, topic: unknown, key: unknown) => {
    if (!isOwnFrame(e) || !isTopic(topic) || (key !== undefined && typeof key !== 'string')) return;
    connections.get(e.sender.id)?.subs.remove(topic, key);
  });

  const createWindow = () => {
    const saved = services.settings.getInternal<WindowState>('window');
    const state = saved && isOnScreen(saved) ? saved : { width: 1400, height: 900, maximized: false };
    const win = new BrowserWindow({
      ...state,
      minWidth: 900,
      minHeight: 560,
      show: false,
      title: 'Flightdeck',
      backgroundColor: '#0f1115',
      webPreferences: {
        preload: join(here, '../preload/index.cjs'),
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        webSecurity: true,
        spellcheck: false,
      },
    });
    windows.add(win);
    if (state.maximized) win.maximize();
    win.once('ready-to-show', () => win.show());
    const save = () => {
      if (win.isDestroyed()) return;
      const b = win.getNormalBounds();
      try {
        services.settings.setInternal('window', { ...b, maximized: win.isMaximized() } satisfies WindowState);
      } catch (e) {
        // Window bounds are a convenience: on a full disk (the user was told once) closing must still close.
        log.warn('window bounds not saved', { error: e });
      }
    };
    win.on('close', save);
    win.on('closed', () => windows.delete(win));
    win.webContents.on('will-navigate', (ev) => ev.preventDefault());
    win.webContents.on('will-redirect', (ev) => ev.preventDefault());
    win.webContents.setWindowOpenHandler(({ url }) => {
      if (/^https?:\/\//.test(url)) void shell.openExternal(url);
      return { action: 'deny' };
    });
    if (devUrl) void win.loadURL(devUrl);
    else void win.loadFile(join(here, '../renderer/index.html'));
    return win;
  };

  app.on('second-instance', () => {
    const win = [...windows][0];
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });
  app.on('web-contents-created', (_e, wc) => {
    wc.on('will-attach-webview', (ev) => ev.preventDefault());
  });
  app.on('activate', () => {
    if (windows.size === 0) createWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  // The inbox's desktop notifications: a feature finished, failed or waits for an answer.
  // Clicking one brings the window forward and shows what it is about.
  const offInbox = services.hub.subscribe((e) => {
    if (e.topic !== 'inbox.added' || !Notification.isSupported()) return;
    const entry = e.payload as InboxEntry;
    const n = new Notification({ title: entry.title, body: entry.body, silent: entry.kind === 'finished' });
    n.on('click', () => {
      const win = [...windows][0] ?? createWindow();
      if (win.isMinimized()) win.restore();
      win.focus();
      services.hub.publish('inbox.open', entry);
    });
    n.show();
  });
  app.on('will-quit', () => {
    offInbox();
    services.dispose();
  });
  createWindow();
}

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function isOnScreen(s: WindowState): boolean {
  if (s.x === undefined || s.y === undefined) return true;
  return screen.getAllDisplays().some((d) => {
    const a = d.workArea;
    return s.x! >= a.x - 50 && s.y! >= a.y - 50 && s.x! < a.x + a.width - 100 && s.y! < a.y + a.height - 100;
  });
}
