/**
 * The browser transport taking over the socket the page opened while its scripts loaded
 * (the inline script in src-renderer/index.html): no second connection, what the early socket received meanwhile is
 * handled in order, a socket that closed meanwhile or belongs elsewhere is not used. A scripted
 * host stands in for Flightdeck.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import type { ClientFrame, HostFrame } from '../../../src-preload/contract/wire';
import { createWebSocketTransport, type EarlySocket } from '../../../src-preload/client/ws-transport';

beforeAll(() => {
  // Node 20 has no global WebSocket: `ws` stands in, as in the host's transport tests.
  (globalThis as unknown as { WebSocket: unknown }).WebSocket = class extends WebSocket {
    constructor(url: string) {
      super(url);
      this.on('error', () => undefined);
    }
  };
});

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A host that answers every invoke with its channel's name, and says which sockets reached it. */
async function scriptedHost() {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((r) => server.once('listening', () => r()));
  const mains: WebSocket[] = [];
  const directs: string[] = [];
  server.on('connection', (ws, req) => {
    if (req.url?.startsWith('/ws-terminal')) return void directs.push(req.url);
    mains.push(ws);
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as ClientFrame;
      if (frame.type === 'invoke') ws.send(JSON.stringify({ type: 'result', id: frame.id, result: { ok: true, value: frame.channel } } satisfies HostFrame));
    });
  });
  const url = `ws://127.0.0.1:${(server.address() as { port: number }).port}/ws`;
  cleanups.push(() => {
    for (const s of mains) s.terminate();
    server.close();
  });
  return { url, mains, directs };
}

/** What index.html's inline script does: open, keep what arrives. */
function openEarly(url: string): EarlySocket {
  const socket = new WebSocket(url) as unknown as globalThis.WebSocket;
  socket.binaryType = 'arraybuffer';
  const early: EarlySocket = { socket, messages: [] };
  socket.onmessage = (m) => void early.messages.push(m);
  cleanups.push(() => socket.close());
  return early;
}

describe('the socket opened while the page loaded', () => {
  it('is taken over once open, with what it received meanwhile, and no second connection is made', async () => {
    const h = await scriptedHost();
    const early = openEarly(h.url);
    await expect.poll(() => h.mains.length).toBe(1);
    await expect.poll(() => early.socket.readyState).toBe(WebSocket.OPEN);
    // Before the app's transport exists the host offers a direct socket: the offer is kept.
    h.mains[0]!.send(JSON.stringify({ type: 'direct', ticket: 'ticket-early' } satisfies HostFrame));
    await expect.poll(() => early.messages.length).toBe(1);
    const transport = createWebSocketTransport(h.url, early);
    const statuses: string[] = [];
    transport.onStatus!((s) => statuses.push(s));
    expect(await transport.invoke('app.info', {})).toEqual({ ok: true, value: 'app.info' });
    expect(statuses.at(-1)).toBe('open');
    expect(h.mains).toHaveLength(1);
    expect(early.messages).toEqual([]);
    // The kept offer was acted on: the transport opened the direct socket it named.
    await expect.poll(() => h.directs.some((u) => u.includes('ticket-early'))).toBe(true);
  });

  it('is taken over while still connecting: what was asked meanwhile goes when it opens', async () => {
    const h = await scriptedHost();
    const early = openEarly(h.url);
    expect(early.socket.readyState).toBe(WebSocket.CONNECTING);
    const transport = createWebSocketTransport(h.url, early);
    expect(await transport.invoke('settings.get', {})).toEqual({ ok: true, value: 'settings.get' });
    expect(h.mains).toHaveLength(1);
  });

  it('is not used once closed, nor when it goes elsewhere: the transport connects itself', async () => {
    const h = await scriptedHost();
    const closed = openEarly(h.url);
    await expect.poll(() => closed.socket.readyState).toBe(WebSocket.OPEN);
    closed.socket.close();
    await expect.poll(() => closed.socket.readyState).toBe(WebSocket.CLOSED);
    const t1 = createWebSocketTransport(h.url, closed);
    expect(await t1.invoke('app.info', {})).toEqual({ ok: true, value: 'app.info' });
    expect(h.mains).toHaveLength(2);

    const other = await scriptedHost();
    const elsewhere = openEarly(other.url);
    await expect.poll(() => elsewhere.socket.readyState).toBe(WebSocket.OPEN);
    const t2 = createWebSocketTransport(h.url, elsewhere);
    expect(await t2.invoke('projects.list', {})).toEqual({ ok: true, value: 'projects.list' });
    expect(h.mains).toHaveLength(3);
    // The stray socket is closed, not left open beside the transport's.
    await expect.poll(() => elsewhere.socket.readyState).toBe(WebSocket.CLOSED);
  });
});
