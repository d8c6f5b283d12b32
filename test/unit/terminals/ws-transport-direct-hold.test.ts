/**
 * The browser transport's hold of direct output (ws-transport.ts): a terminal's frames on the
 * direct socket are dispatched only once the main socket has said the terminal switched to it
 * (`directRouted`), in order; frames held for a direct socket that was lost never come out; and
 * past the hold's bound the oldest held frames are dropped, so the view sees a gap (and replays
 * it) instead of the transport holding without end. A scripted host stands in for Flightdeck.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { encodeTerminalDataFrame, type TerminalDataBytes } from '../../../src-preload/contract/terminal-frames';
import type { HostFrame } from '../../../src-preload/contract/wire';
import { createWebSocketTransport } from '../../../src-preload/client/ws-transport';

const KEY = 'term-1';
/** Another terminal, used to tell when the direct socket's earlier frames have been handled. */
const PROBE = 'term-probe';

beforeAll(() => {
  // Node 20 has no global WebSocket: `ws` stands in, as in the host's transport tests.
  (globalThis as unknown as { WebSocket: unknown }).WebSocket = class extends WebSocket {
    constructor(url: string) {
      super(url);
      this.on('error', () => undefined);
    }
  };
});

/** A host that accepts the transport's main and direct sockets and lets the test speak for it. */
async function scriptedHost() {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((r) => server.once('listening', () => r()));
  const mains: WebSocket[] = [];
  const directs: WebSocket[] = [];
  server.on('connection', (ws, req) => (req.url?.startsWith('/ws-terminal') ? directs : mains).push(ws));
  const port = (server.address() as { port: number }).port;
  const transport = createWebSocketTransport(`ws://127.0.0.1:${port}/ws`);
  const got: number[] = [];
  transport.subscribe('terminals.data', KEY, (p) => got.push((p as TerminalDataBytes).offset));
  const probes: number[] = [];
  transport.subscribe('terminals.data', PROBE, (p) => probes.push((p as TerminalDataBytes).offset));
  await expect.poll(() => mains.length).toBe(1);
  const main = mains[0]!;
  const say = (frame: HostFrame) => main.send(JSON.stringify(frame));
  /** Offers a direct socket and returns it once the transport has opened it. */
  const offerDirect = async (ticket: string) => {
    const before = directs.length;
    say({ type: 'direct', ticket });
    await expect.poll(() => directs.length).toBe(before + 1);
    return directs[before]!;
  };
  /** A frame of `chars` ASCII characters at `offset`. */
  const output = (d: WebSocket, offset: number, chars: number) => d.send(encodeTerminalDataFrame(KEY, offset, chars, new Uint8Array(chars).fill(0x61)));
  /**
   * Resolves once the transport has handled every frame sent on `d` before: a frame of another
   * terminal, switched to the direct socket, is dispatched after them (one socket keeps its order).
   */
  let probeOffset = 0;
  const flush = async (d: WebSocket) => {
    say({ type: 'directRouted', key: PROBE });
    const at = probeOffset++;
    d.send(encodeTerminalDataFrame(PROBE, at, 1, new Uint8Array([0x62])));
    await expect.poll(() => probes.includes(at)).toBe(true);
  };
  cleanups.push(() => {
    for (const s of [...mains, ...directs]) s.terminate();
    server.close();
  });
  return { got, say, offerDirect, output, flush };
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('direct output held until the main socket says the terminal switched', () => {
  it('frames that arrive before the mark wait for it and then come in order; later ones go at once', async () => {
    const h = await scriptedHost();
    const direct = await h.offerDirect('ticket-1');
    h.output(direct, 0, 10);
    h.output(direct, 10, 10);
    await h.flush(direct);
    expect(h.got).toEqual([]);
    h.say({ type: 'directRouted', key: KEY });
    await expect.poll(() => h.got).toEqual([0, 10]);
    h.output(direct, 20, 10);
    await expect.poll(() => h.got).toEqual([0, 10, 20]);
  });

  it('frames held for a direct socket that was lost never come out, not even when the next socket is marked', async () => {
    const h = await scriptedHost();
    const first = await h.offerDirect('ticket-1');
    h.output(first, 0, 10);
    await h.flush(first);
    expect(h.got).toEqual([]);
    h.say({ type: 'directLost' });
    const closed = new Promise<void>((r) => first.once('close', () => r()));
    await closed;
    const second = await h.offerDirect('ticket-2');
    h.say({ type: 'directRouted', key: KEY });
    h.output(second, 30, 10);
    await expect.poll(() => h.got).toEqual([30]);
  });

  it('past 8 MB held for one terminal the oldest frames are dropped: the view gets a gap, not a transport that holds without end', async () => {
    const h = await scriptedHost();
    const direct = await h.offerDirect('ticket-1');
    const MB = 1024 * 1024;
    // Nine frames of 1 MB (each a few bytes more with its header): the eighth passes the bound.
    for (let i = 0; i < 9; i++) h.output(direct, i * MB, MB);
    await h.flush(direct);
    expect(h.got).toEqual([]);
    h.say({ type: 'directRouted', key: KEY });
    await expect.poll(() => h.got).toEqual([7 * MB, 8 * MB]);
  });
});
