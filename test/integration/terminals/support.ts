import { readFileSync } from 'node:fs';
import type { Client } from '../../../src-preload/client/client';
import type { AppServices } from '../../../src-main/app/services';
import { startBrowserHost, type BrowserHost } from '../../../src-main/host/browser-host';
import { startTestApp } from '../../support/app';
import { tempDir } from '../../support/temp';
import { connectWsClient, stopWsClients } from '../../fixtures/terminals/ws-client';

export interface TerminalHarness {
  app: AppServices;
  host: BrowserHost;
  client: Client;
  /** A second client on its own WebSocket (another browser tab). */
  connect(): Client;
  cleanup(): Promise<void>;
}

/** Real services, the real browser-mode host and the renderer's WebSocket transport. */
export async function startTerminalHarness(): Promise<TerminalHarness> {
  const t = await startTestApp();
  const ui = tempDir('fd-ui-');
  const host = await startBrowserHost(t.app, { port: 0, rendererDir: ui.path });
  const client = connectWsClient(host.port, host.token);
  return {
    app: t.app,
    host,
    client,
    connect: () => connectWsClient(host.port, host.token),
    async cleanup() {
      stopWsClients();
      await host.close();
      await t.app.terminals.shutdown();
      t.cleanup();
      ui.cleanup();
    },
  };
}

export async function waitFor<T>(fn: () => T | undefined | false | null, what: string, timeoutMs = 20_000, everyMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A process that exists and is not a zombie (a killed orphan stays a zombie until init reaps it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
