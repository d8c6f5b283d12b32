import { EventEmitter } from 'node:events';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { events, requests } from '../../../src-preload/contract';
import type { Result } from '../../../src-preload/contract/wire';
import { IPC } from '../../../src-preload/electron/ipc-names';
import { AppServices } from '../../../src-main/app/services';
import { MAX_SUBSCRIPTIONS_PER_CONNECTION } from '../../../src-main/bridge/limits';
import { SCRIPT_SRC } from '../../../src-main/platform/csp';

/**
 * The Electron glue, run without Electron (its binary cannot be downloaded here): the real
 * main-process entry and the real preload are loaded against a stub `electron` module that
 * records what they ask of it, over the real services on a temporary data folder.
 */
const stub = await vi.hoisted(async () => {
  // vi.hoisted runs before the imports above: it loads what it needs itself.
  const { EventEmitter: Emitter } = await import('node:events');
  const { mkdtempSync: mkdtemp } = await import('node:fs');
  const { tmpdir: tmp } = await import('node:os');
  const { join: joinPath } = await import('node:path');
  const userData = mkdtemp(joinPath(tmp(), 'fd-electron-userdata-'));

  let nextId = 1;
  class WebContents extends Emitter {
    readonly id = nextId++;
    readonly mainFrame = { url: 'file:///app/out/renderer/index.html' };
    destroyed = false;
    sent: unknown[][] = [];
    windowOpenHandler: ((d: { url: string }) => { action: string }) | null = null;
    loaded: { file?: string; url?: string } = {};
    setWindowOpenHandler(h: (d: { url: string }) => { action: string }) {
      this.windowOpenHandler = h;
    }
    isDestroyed() {
      return this.destroyed;
    }
    send(...args: unknown[]) {
      this.sent.push(args);
    }
  }
  const windows: BrowserWindow[] = [];
  class BrowserWindow extends Emitter {
    readonly webContents = new WebContents();
    destroyed = false;
    constructor(readonly options: Record<string, unknown> & { webPreferences: Record<string, unknown> }) {
      super();
      windows.push(this);
    }
    loadFile(file: string) {
      this.webContents.loaded.file = file;
      return Promise.resolve();
    }
    loadURL(url: string) {
      this.webContents.loaded.url = url;
      return Promise.resolve();
    }
    static getFocusedWindow() {
      return windows[0] ?? null;
    }
    maximize() {}
    show() {}
    focus() {}
    restore() {}
    isMinimized() {
      return false;
    }
    isMaximized() {
      return false;
    }
    isDestroyed() {
      return this.destroyed;
    }
    getNormalBounds() {
      return { x: 10, y: 10, width: 1400, height: 900 };
    }
  }

  const app = Object.assign(new Emitter(), {
    isPackaged: true,
    quit: () => undefined as void,
    exit: () => undefined as void,
    requestSingleInstanceLock: () => true,
    whenReady: () => Promise.resolve(),
    getPath: (name: string) => (name === 'userData' ? userData : tmp()),
  });
  const handlers = new Map<string, (e: unknown, ...args: unknown[]) => unknown>();
  const onListeners = new Map<string, (e: unknown, ...args: unknown[]) => void>();
  const ipcMain = {
    handle(channel: string, h: (e: unknown, ...args: unknown[]) => unknown) {
      if (handlers.has(channel)) throw new Error(`second handler for ${channel}`);
      handlers.set(channel, h);
    },
    on(channel: string, l: (e: unknown, ...args: unknown[]) => void) {
      onListeners.set(channel, l);
      return ipcMain;
    },
  };
  const webRequest = { headersHook: null as null | ((d: { responseHeaders?: Record<string, string[]> }, cb: (r: { responseHeaders?: Record<string, string[]> }) => void) => void) };
  const permission = { handler: null as null | ((wc: unknown, perm: string, cb: (ok: boolean) => void) => void) };
  const opened: string[] = [];

  // The renderer side, for the preload.
  const exposed: Record<string, unknown> = {};
  const rendererListeners = new Map<string, (...args: unknown[]) => void>();
  const ipcRenderer = {
    /** Which window the preload runs in: set by the test. */
    sender: null as null | WebContents,
    invoke(channel: string, ...args: unknown[]) {
      const h = handlers.get(channel);
      if (!h) return Promise.reject(new Error(`No handler registered for '${channel}'`));
      const sender = ipcRenderer.sender!;
      return Promise.resolve(h({ sender, senderFrame: sender.mainFrame }, ...args));
    },
    send(channel: string, ...args: unknown[]) {
      const sender = ipcRenderer.sender!;
      onListeners.get(channel)?.({ sender, senderFrame: sender.mainFrame }, ...args);
    },
    on(channel: string, l: (...args: unknown[]) => void) {
      rendererListeners.set(channel, l);
    },
  };

  return {
    userData,
    windows,
    handlers,
    onListeners,
    webRequest,
    permission,
    opened,
    exposed,
    rendererListeners,
    module: {
      app,
      BrowserWindow,
      ipcMain,
      ipcRenderer,
      contextBridge: {
        exposeInMainWorld(name: string, value: unknown) {
          exposed[name] = value;
        },
      },
      dialog: { showOpenDialog: () => Promise.resolve({ canceled: true, filePaths: [] }), showErrorBox: () => undefined },
      safeStorage: { isEncryptionAvailable: () => false },
      screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] },
      shell: {
        openExternal: (url: string) => {
          opened.push(url);
          return Promise.resolve();
        },
      },
      session: {
        defaultSession: {
          webRequest: {
            onHeadersReceived(h: NonNullable<typeof webRequest.headersHook>) {
              webRequest.headersHook = h;
            },
          },
          setPermissionRequestHandler(h: NonNullable<typeof permission.handler>) {
            permission.handler = h;
          },
        },
      },
    },
  };
});

vi.mock('electron', () => ({ ...stub.module, default: stub.module }));

let services: AppServices;
let createSpy: ReturnType<typeof vi.spyOn>;

beforeAll(async () => {
  const realCreate = AppServices.create.bind(AppServices);
  let created: AppServices | undefined;
  createSpy = vi.spyOn(AppServices, 'create').mockImplementation(async (opts) => (created = await realCreate(opts)));
  const entry = await import('../../../src-main/electron/main');
  await entry.started;
  expect(created).toBeDefined();
  services = created!;
}, 60_000);

afterAll(() => {
  services?.dispose();
  rmSync(stub.userData, { recursive: true, force: true });
});

const win = () => stub.windows[0]!;

describe('the desktop window', () => {
  it('starts the real services on the user-data folder, as the desktop runtime', () => {
    expect(createSpy).toHaveBeenCalledTimes(1);
    expect(services.dataDir).toBe(stub.userData);
    expect(services.options.platform.runtime).toBe('electron');
    expect(stub.windows).toHaveLength(1);
  });

  it('is isolated: context isolation, sandbox, no Node integration, web security, its own preload', () => {
    const prefs = win().options.webPreferences;
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(prefs.nodeIntegrationInWorker).not.toBe(true);
    expect(prefs.nodeIntegrationInSubFrames).not.toBe(true);
    expect(prefs.allowRunningInsecureContent).not.toBe(true);
    expect(prefs.experimentalFeatures).not.toBe(true);
    expect(String(prefs.preload)).toMatch(/[\\/]preload[\\/]index\.cjs$/);
    // Packaged: the app's own files, never a dev server.
    expect(win().webContents.loaded.url).toBeUndefined();
    expect(win().webContents.loaded.file).toMatch(/[\\/]renderer[\\/]index\.html$/);
  });

  it('blocks navigation, redirects and new windows; only http(s) links go to the system browser', () => {
    const wc = win().webContents;
    for (const name of ['will-navigate', 'will-redirect']) {
      const ev = { preventDefault: vi.fn() };
      wc.emit(name, ev, 'https://evil.example/');
      expect(ev.preventDefault, name).toHaveBeenCalled();
    }
    expect(wc.windowOpenHandler!({ url: 'https://example.com/docs' })).toEqual({ action: 'deny' });
    expect(wc.windowOpenHandler!({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(wc.windowOpenHandler!({ url: 'javascript:alert(1)' })).toEqual({ action: 'deny' });
    expect(stub.opened).toEqual(['https://example.com/docs']);

    const other = new EventEmitter();
    stub.module.app.emit('web-contents-created', {}, other);
    const attach = { preventDefault: vi.fn() };
    other.emit('will-attach-webview', attach);
    expect(attach.preventDefault).toHaveBeenCalled();
  });

  it('installs a CSP on every response (own scripts only) and denies every permission', () => {
    const got: Array<{ responseHeaders?: Record<string, string[]> }> = [];
    stub.webRequest.headersHook!({ responseHeaders: { 'X-Other': ['kept'] } }, (r) => got.push(r));
    const csp = got[0]!.responseHeaders!['Content-Security-Policy']!.join(';');
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain(`${SCRIPT_SRC};`);
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(got[0]!.responseHeaders!['X-Other']).toEqual(['kept']);

    const answers: boolean[] = [];
    for (const perm of ['media', 'geolocation', 'notifications', 'clipboard-read']) stub.permission.handler!({}, perm, (ok) => answers.push(ok));
    expect(answers).toEqual([false, false, false, false]);
  });
});

describe('the IPC side of the bridge', () => {
  it('registers the bridge names and nothing else; the router handles every contract channel and nothing else', () => {
    expect([...stub.handlers.keys()]).toEqual([IPC.request]);
    expect([...stub.onListeners.keys()].sort()).toEqual([IPC.subscribe, IPC.unsubscribe].sort());
    expect(services.router.unhandled()).toEqual([]);
    expect(services.router.handled().sort()).toEqual(Object.keys(requests).sort());
  });

  it('the preload exposes exactly the contract channels, and they reach the router through IPC', async () => {
    stub.module.ipcRenderer.sender = win().webContents;
    await import('../../../src-preload/electron/preload');
    const api = stub.exposed.flightdeck as {
      requests: Record<string, (input: unknown) => Promise<Result>>;
      subscribe(topic: string, key: string | undefined, l: (p: unknown) => void): () => void;
    };
    expect(Object.keys(api.requests).sort()).toEqual(Object.keys(requests).sort());
    expect(Object.keys(stub.exposed)).toEqual(['flightdeck']);

    expect(await api.requests['app.info']!({})).toMatchObject({ ok: true, value: { runtime: 'electron' } });
    expect(await api.requests['projects.add']!({ path: 12 })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    // Something that is not a contract channel, sent straight over IPC, is refused by name.
    expect(await stub.module.ipcRenderer.invoke(IPC.request, 'fs.readFile', { path: '/etc/passwd' })).toMatchObject({ ok: false, error: { code: 'unknown_channel' } });

    // Events: the preload subscribes through IPC and main delivers contract events to the window.
    expect(() => api.subscribe('not.a.topic', undefined, () => undefined)).toThrow(/unknown topic/);
    const got: unknown[] = [];
    const off = api.subscribe('settings.changed', undefined, (p) => got.push(p));
    expect(Object.keys(events)).toContain('settings.changed');
    expect(await api.requests['settings.update']!({ theme: 'dark' })).toMatchObject({ ok: true });
    const sent = win().webContents.sent.filter((a) => a[0] === IPC.event && a[1] === 'settings.changed');
    expect(sent).toHaveLength(1);
    stub.rendererListeners.get(IPC.event)!({}, ...sent[0]!.slice(1));
    expect(got).toEqual([expect.objectContaining({ theme: 'dark' })]);
    off();
  });

  it('refuses requests and subscriptions from a frame that is not the app window', async () => {
    const handler = stub.handlers.get(IPC.request)!;
    const wc = win().webContents;
    const foreign = { sender: wc, senderFrame: { url: 'https://evil.example/' } };
    expect(await handler(foreign, 'app.info', {})).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    const subframe = { sender: wc, senderFrame: { url: 'file:///app/out/renderer/index.html' } };
    expect(await handler(subframe, 'app.info', {})).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    const unknownContents = { sender: { id: 999, mainFrame: wc.mainFrame }, senderFrame: wc.mainFrame };
    expect(await handler(unknownContents, 'app.info', {})).toMatchObject({ ok: false, error: { code: 'forbidden' } });
  });

  it('bounds a window\'s subscriptions (refused, never thrown) and a reloaded page gives them back', () => {
    const send = stub.module.ipcRenderer.send;
    const before = services.hub.listenerCount;
    expect(before).toBeGreaterThan(0);
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_CONNECTION + 10; i++) send(IPC.subscribe, 'agents.event', `ses-${i}`);
    const wc = win().webContents;
    // Still one listener for the window, and the window still works.
    expect(services.hub.listenerCount).toBe(before);
    // A same-document navigation (a route change) keeps them; reloading the page does not.
    wc.emit('did-start-navigation', { isMainFrame: true, isSameDocument: true });
    expect(services.hub.listenerCount).toBe(before);
    wc.emit('did-start-navigation', { isMainFrame: false, isSameDocument: false });
    expect(services.hub.listenerCount).toBe(before);
    wc.emit('did-start-navigation', { isMainFrame: true, isSameDocument: false });
    expect(services.hub.listenerCount).toBe(before - 1);
    // The new page subscribes afresh, with its whole allowance.
    send(IPC.subscribe, 'settings.changed', undefined);
    expect(services.hub.listenerCount).toBe(before);
  });

  it('a closed window releases its hub listener', async () => {
    const before = services.hub.listenerCount;
    expect(before).toBeGreaterThan(0);
    const wc = win().webContents;
    wc.destroyed = true;
    wc.emit('destroyed');
    expect(services.hub.listenerCount).toBe(before - 1);
  });
});

describe('quitting', () => {
  it('disposes every service and closes the database', () => {
    const spies = Object.entries(services)
      .filter(([, v]) => v !== null && typeof v === 'object' && typeof (v as { dispose?: unknown }).dispose === 'function')
      .map(([name, v]) => [name, vi.spyOn(v as { dispose(): void }, 'dispose')] as const);
    expect(spies.map(([n]) => n)).toEqual(expect.arrayContaining(['coder', 'agents', 'terminals', 'projects', 'events']));
    const whole = vi.spyOn(services, 'dispose');
    stub.module.app.emit('will-quit', { preventDefault: () => undefined });
    expect(whole).toHaveBeenCalledTimes(1);
    for (const [name, spy] of spies) expect(spy, name).toHaveBeenCalled();
    expect(services.db.open).toBe(false);
  });

  it('closing the last window quits (except on macOS, where apps stay in the dock)', () => {
    const quit = vi.spyOn(stub.module.app, 'quit');
    stub.module.app.emit('window-all-closed');
    expect(quit).toHaveBeenCalledTimes(process.platform === 'darwin' ? 0 : 1);
  });
});
