import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type { Result } from '../../../src-preload/contract/wire';
import type { AppServices } from '../../../src-main/app/services';
import { MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, MAX_SUBSCRIPTIONS_PER_CONNECTION } from '../../../src-main/bridge/limits';
import { startBrowserHost, type BrowserHost } from '../../../src-main/host/browser-host';
import { startTestApp } from '../../support/app';

/**
 * The attack: 300,000 subscriptions on one socket grew the host by 126 MB and were not given
 * back on close. Through the real WebSocket transport: the bound refuses past its limit with a
 * clear error, and closing the socket releases everything it held.
 */
const TOKEN = 'limits-test-token-0123456789';
let app: AppServices;
let cleanup: () => void;
let host: BrowserHost;

beforeAll(async () => {
  ({ app, cleanup } = await startTestApp());
  host = await startBrowserHost(app, { port: 0, token: TOKEN });
});
afterAll(async () => {
  await host.close();
  cleanup();
});

interface Frame {
  type: string;
  id?: number;
  topic?: string;
  key?: string;
  result?: Result;
  error?: { code: string; message: string };
}

async function open(): Promise<{ ws: WebSocket; frames: Frame[] }> {
  const origin = `http://127.0.0.1:${host.port}`;
  const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws`, { headers: { Origin: origin, Cookie: `flightdeck_token_${host.port}=${TOKEN}` } });
  const frames: Frame[] = [];
  ws.on('message', (d) => frames.push(JSON.parse(d.toString()) as Frame));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, frames };
}

function close(ws: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    ws.once('close', () => resolve());
    ws.close();
  });
}

/** A request round trip: every frame sent before it has been handled once its answer is back. */
async function roundTrip(ws: WebSocket, frames: Frame[], id: number): Promise<void> {
  ws.send(JSON.stringify({ type: 'invoke', id, channel: 'app.info', input: {} }));
  await expect.poll(() => frames.some((f) => f.type === 'result' && f.id === id), { timeout: 20_000 }).toBe(true);
}

describe('per-connection subscriptions', () => {
  it('are bounded: past the limit a subscription is refused with limit_exceeded', async () => {
    const baseline = app.hub.listenerCount;
    const { ws, frames } = await open();
    // Distinct keys, as the attack sent them; subscribing to a pair already held costs nothing.
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_CONNECTION; i++) ws.send(JSON.stringify({ type: 'subscribe', topic: 'agents.event', key: `ses-${i}` }));
    ws.send(JSON.stringify({ type: 'subscribe', topic: 'agents.event', key: 'ses-0' }));
    await roundTrip(ws, frames, 1);
    expect(frames.filter((f) => f.type === 'refused')).toEqual([]);

    ws.send(JSON.stringify({ type: 'subscribe', topic: 'agents.event', key: 'one-too-many' }));
    await expect.poll(() => frames.filter((f) => f.type === 'refused').length, { timeout: 20_000 }).toBe(1);
    const refused = frames.find((f) => f.type === 'refused')!;
    expect(refused).toMatchObject({ topic: 'agents.event', key: 'one-too-many', error: { code: 'limit_exceeded' } });
    expect(refused.error!.message).toContain(`the limit is ${MAX_SUBSCRIPTIONS_PER_CONNECTION}`);

    // Unsubscribing makes room again.
    ws.send(JSON.stringify({ type: 'unsubscribe', topic: 'agents.event', key: 'ses-1' }));
    ws.send(JSON.stringify({ type: 'subscribe', topic: 'agents.event', key: 'room-again' }));
    await roundTrip(ws, frames, 2);
    expect(frames.filter((f) => f.type === 'refused')).toHaveLength(1);

    // Full again: another topic is refused too, the connection still works, and once there is
    // room it delivers events for what it holds.
    ws.send(JSON.stringify({ type: 'subscribe', topic: 'settings.changed' }));
    await roundTrip(ws, frames, 3);
    expect(frames.filter((f) => f.type === 'refused')).toHaveLength(2);
    ws.send(JSON.stringify({ type: 'unsubscribe', topic: 'agents.event', key: 'ses-2' }));
    ws.send(JSON.stringify({ type: 'subscribe', topic: 'settings.changed' }));
    ws.send(JSON.stringify({ type: 'invoke', id: 4, channel: 'settings.update', input: { theme: 'light' } }));
    await expect.poll(() => frames.some((f) => f.type === 'event' && f.topic === 'settings.changed'), { timeout: 20_000 }).toBe(true);

    expect(app.hub.listenerCount).toBe(baseline + 1);
    await close(ws);
    await expect.poll(() => app.hub.listenerCount, { timeout: 20_000 }).toBe(baseline);
  }, 120_000);

  it('many sockets subscribing many times release every listener when they close', async () => {
    const baseline = app.hub.listenerCount;
    const sockets = await Promise.all([open(), open(), open()]);
    for (const { ws } of sockets) {
      for (let i = 0; i < 2_000; i++) ws.send(JSON.stringify({ type: 'subscribe', topic: 'terminals.data', key: `term-${i}` }));
    }
    await Promise.all(sockets.map(({ ws, frames }, i) => roundTrip(ws, frames, 100 + i)));
    expect(app.hub.listenerCount).toBe(baseline + 3);
    // One closes cleanly, one is cut off without a close handshake, one errors out.
    await close(sockets[0]!.ws);
    sockets[1]!.ws.terminate();
    sockets[2]!.ws.terminate();
    await expect.poll(() => app.hub.listenerCount, { timeout: 20_000 }).toBe(baseline);
    expect(host.connections).toBe(0);
  }, 120_000);
});

describe('per-connection requests in flight', () => {
  it('are bounded: past the limit a request is answered limit_exceeded at once, and room comes back as answers go out', async () => {
    // Handlers that answer only when the test says so, behind the real transport.
    const waiting: Array<() => void> = [];
    const real = app.router.dispatch.bind(app.router);
    const spy = vi.spyOn(app.router, 'dispatch').mockImplementation(
      (channel, payload, ctx) => new Promise<Result>((resolve) => waiting.push(() => void real(channel, payload, ctx).then(resolve))),
    );
    try {
      const { ws, frames } = await open();
      const total = MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION + 5;
      for (let id = 1; id <= total; id++) ws.send(JSON.stringify({ type: 'invoke', id, channel: 'app.info', input: {} }));
      await expect.poll(() => frames.length, { timeout: 20_000 }).toBe(5);
      expect(waiting).toHaveLength(MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION);
      for (const f of frames) expect(f).toMatchObject({ type: 'result', result: { ok: false, error: { code: 'limit_exceeded' } } });
      expect(frames.map((f) => f.id).sort((a, b) => a! - b!)).toEqual([...Array(5).keys()].map((i) => MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION + 1 + i));

      // Another connection has its own allowance.
      const other = await open();
      other.ws.send(JSON.stringify({ type: 'invoke', id: 1, channel: 'app.info', input: {} }));
      await expect.poll(() => waiting.length, { timeout: 20_000 }).toBe(MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION + 1);
      expect(other.frames).toEqual([]);

      for (const go of waiting.splice(0)) go();
      await expect.poll(() => frames.filter((f) => f.result?.ok === true).length, { timeout: 20_000 }).toBe(MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION);
      await expect.poll(() => other.frames.length, { timeout: 20_000 }).toBe(1);

      // Answered requests free their place.
      ws.send(JSON.stringify({ type: 'invoke', id: 9_999, channel: 'app.info', input: {} }));
      await expect.poll(() => waiting.length, { timeout: 20_000 }).toBe(1);
      waiting.pop()!();
      await expect.poll(() => frames.find((f) => f.id === 9_999)?.result?.ok, { timeout: 20_000 }).toBe(true);
      await close(ws);
      await close(other.ws);
    } finally {
      spy.mockRestore();
    }
  }, 120_000);
});
