import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createWebSocketTransport } from '../../../src-preload/client/ws-transport';
import type { AppServices } from '../../../src-main/app/services';
import { startBrowserHost, type BrowserHost } from '../../../src-main/host/browser-host';
import { startTestApp } from '../../support/app';
import { MAX_SUBSCRIPTIONS_PER_CONNECTION } from '../../../src-main/bridge/limits';

const TOKEN = 'transport-test-token-123';
let app: AppServices;
let cleanup: () => void;
let host: BrowserHost | undefined;

beforeAll(async () => {
  ({ app, cleanup } = await startTestApp());
  // The browser transport uses the global WebSocket; Node 20 has none, `ws` stands in (with the headers a browser sends).
  (globalThis as unknown as { WebSocket: unknown }).WebSocket = class extends WebSocket {
    constructor(url: string) {
      const u = new URL(url);
      super(url, { headers: { Origin: `http://${u.host}`, Cookie: `flightdeck_token_${u.port}=${TOKEN}` } });
      // A browser reports a failed connection through onclose only; `ws` also emits 'error'.
      this.on('error', () => undefined);
    }
  };
});
afterAll(async () => {
  await host?.close();
  cleanup();
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe('browser-mode transport', () => {
  it('a request that failed while disconnected is never sent after the connection comes back', async () => {
    const port = await freePort();
    const transport = createWebSocketTransport(`ws://127.0.0.1:${port}/ws`);
    // Nothing listens yet: the request waits, then fails when the connection attempt does.
    const result = await transport.invoke('settings.update', { theme: 'dark' });
    expect(result).toMatchObject({ ok: false, error: { code: 'unavailable' } });

    host = await startBrowserHost(app, { port, token: TOKEN });
    const statuses: string[] = [];
    transport.onStatus?.((s) => statuses.push(s));
    await expect.poll(() => statuses.at(-1), { timeout: 15_000 }).toBe('open');
    expect(await transport.invoke('settings.get', {})).toMatchObject({ ok: true, value: { theme: 'system' } });
  }, 30_000);

  it('a subscription the host refuses past its bound is reported, and the connection keeps working', async () => {
    const port = await freePort();
    const second = await startBrowserHost(app, { port, token: TOKEN });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const transport = createWebSocketTransport(`ws://127.0.0.1:${port}/ws`);
      const offs: Array<() => void> = [];
      for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_CONNECTION; i++) offs.push(transport.subscribe('agents.event', `ses-${i}`, () => undefined));
      const got: unknown[] = [];
      offs.push(transport.subscribe('settings.changed', undefined, (p) => got.push(p)));
      await expect.poll(() => warn.mock.calls.length, { timeout: 20_000 }).toBe(1);
      expect(String(warn.mock.calls[0]![0])).toMatch(/refused a subscription to settings\.changed: Too many subscriptions/);
      // Room again after an unsubscribe: the next subscription is accepted (no second warning),
      // and the refused one never delivers.
      offs[0]!();
      offs.push(transport.subscribe('settings.changed', 'unused-key', () => undefined));
      expect(await transport.invoke('settings.update', { theme: 'light' })).toMatchObject({ ok: true });
      expect(got).toEqual([]);
      expect(warn).toHaveBeenCalledTimes(1);
      offs.forEach((off) => off());
    } finally {
      warn.mockRestore();
      await second.close();
    }
  }, 60_000);
});
