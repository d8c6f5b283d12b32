import type { Client } from '../../../src-preload/client/client';
import type { AppServices } from '../../../src-main/app/services';
import { startBrowserHost, type BrowserHost } from '../../../src-main/host/browser-host';
import { startTestApp } from '../../support/app';
import { shellHome, tempDir } from '../../support/temp';
import { connectWsClient, stopWsClients } from '../../fixtures/terminals/ws-client';

export interface TerminalHarness {
  app: AppServices;
  host: BrowserHost;
  client: Client;
  /** A second client on its own WebSocket (another browser tab). */
  connect(): Client;
  cleanup(): Promise<void>;
}

/**
 * Real services, the real browser-mode host and the renderer's WebSocket transport. The shells it
 * opens run in this process's environment: HOME is a home without startup files while it runs
 * (see shellHome).
 */
export async function startTerminalHarness(): Promise<TerminalHarness> {
  const home = shellHome('fd-term-home-');
  const savedHome = process.env.HOME;
  const restoreHome = () => {
    if (savedHome === undefined) delete process.env.HOME;
    else process.env.HOME = savedHome;
    home.cleanup();
  };
  process.env.HOME = home.path;
  const ui = tempDir('fd-ui-');
  let t: Awaited<ReturnType<typeof startTestApp>> | null = null;
  let host: BrowserHost;
  try {
    t = await startTestApp();
    host = await startBrowserHost(t.app, { port: 0, rendererDir: ui.path });
  } catch (e) {
    t?.cleanup();
    ui.cleanup();
    restoreHome();
    throw e;
  }
  const started = t;
  const client = connectWsClient(host.port, host.token);
  return {
    app: started.app,
    host,
    client,
    connect: () => connectWsClient(host.port, host.token),
    async cleanup() {
      try {
        stopWsClients();
        await host.close();
        await started.app.terminals.shutdown();
        started.cleanup();
        ui.cleanup();
      } finally {
        restoreHome();
      }
    },
  };
}

export { isAlive, waitFor } from '../../support/processes';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
