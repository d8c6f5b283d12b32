/**
 * An ended terminal's last output can still sit in the pty host's queue for a direct socket
 * (a view that reads slowly: the kernel's buffers full, ws's send callbacks held, the queue
 * holding the rest). `DirectSockets.forget(id, ended)` must keep that queue for a terminal that
 * ended by itself — its views still show it, and its last output, the one with the program's
 * last words, is in there — and drop it for one that was closed.
 *
 * Through a real WebSocket on loopback: the client stops reading until far more than the kernel
 * holds has been written, so the queue really holds frames when the terminal is forgotten.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket as NodeWs, type RawData } from 'ws';
import { decodeTerminalDataFrame, encodeTerminalDataFrame } from '../../../src-preload/contract/terminal-frames';
import { DirectSockets } from '../../../src-main/terminals/pty-host/direct-sockets';
import type { FromHost } from '../../../src-main/terminals/pty-host/protocol';

const FRAME_BYTES = 64 * 1024;
/** Frames written after the first one the host had to queue (well under its 8 MB backlog bound for a stuck view). */
const QUEUED_FRAMES = 40;
/** Never reached: loopback's autotuned buffers hold a few MB. */
const MAX_FRAMES = 2_000;

interface Setup {
  directs: DirectSockets;
  client: NodeWs;
  received: Array<{ key: string; offset: number }>;
  notices: FromHost[];
  server: Server;
}

const open: Setup[] = [];

async function setUp(): Promise<Setup> {
  const notices: FromHost[] = [];
  const directs = new DirectSockets((m) => notices.push(m), () => undefined);
  const server = createServer();
  server.on('upgrade', (req, socket: Socket, head: Buffer) => {
    directs.adopt({ t: 'direct', conn: 'c1', url: req.url ?? '/', headers: req.headers, head: new Uint8Array(head) }, socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const client = new NodeWs(`ws://127.0.0.1:${port}/direct`);
  const received: Setup['received'] = [];
  client.on('message', (data: RawData, isBinary) => {
    if (!isBinary) return;
    const f = decodeTerminalDataFrame(new Uint8Array(data as Buffer));
    if (f) received.push({ key: f.key, offset: f.payload.offset });
  });
  await new Promise<void>((resolve, reject) => {
    client.once('open', () => resolve());
    client.once('error', reject);
  });
  await until(() => directs.size === 1);
  const s = { directs, client, received, notices, server };
  open.push(s);
  return s;
}

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Writes frames of terminal `id` while the client reads nothing, until QUEUED_FRAMES of them wait
 * in the host's queue (the kernel's buffers full, ws's send callbacks held); how many were written.
 */
async function fillWhileNotReading(s: Setup, id: string): Promise<number> {
  // The client's TCP socket stops reading.
  (s.client as unknown as { _socket: Socket })._socket.pause();
  s.directs.route(id, 'c1', true, true);
  const bytes = new Uint8Array(FRAME_BYTES).fill(0x61);
  let written = 0;
  while (queuedBytes(s) < QUEUED_FRAMES * FRAME_BYTES) {
    if (written >= MAX_FRAMES) throw new Error(`nothing stayed queued after ${written} frames`);
    s.directs.write(id, written * FRAME_BYTES, FRAME_BYTES, bytes);
    written++;
    // Let the socket hand what it can to the kernel.
    if (written % 16 === 0) await new Promise((r) => setTimeout(r, 5));
  }
  return written;
}

function queuedBytes(s: Setup): number {
  const d = (s.directs as unknown as { directs: Map<string, { out: { queuedBytes: number } }> }).directs.get('c1');
  return d?.out.queuedBytes ?? 0;
}

afterEach(async () => {
  for (const s of open.splice(0)) {
    s.client.terminate();
    s.directs.closeAll();
    await new Promise((r) => s.server.close(r));
  }
});

describe('DirectSockets: a forgotten terminal’s queued output', () => {
  it('keeps the queue of a terminal that ended by itself: every frame, the last one included, reaches the view', async () => {
    const s = await setUp();
    const written = await fillWhileNotReading(s, 'T1');

    s.directs.forget('T1', true);
    // Routed nowhere any more: output written after the end goes to nobody.
    s.directs.write('T1', written * FRAME_BYTES, 1, new Uint8Array([0x62]));

    (s.client as unknown as { _socket: Socket })._socket.resume();
    await until(() => s.received.length >= written);
    await new Promise((r) => setTimeout(r, 100));
    expect(s.received).toHaveLength(written);
    expect(s.received.map((f) => f.offset)).toEqual(Array.from({ length: written }, (_, i) => i * FRAME_BYTES));
    expect(new Set(s.received.map((f) => f.key))).toEqual(new Set(['T1']));
  });

  it('drops the queue of a terminal that was closed: what the view has not got by then never comes', async () => {
    const s = await setUp();
    const written = await fillWhileNotReading(s, 'T2');
    const queued = queuedBytes(s);

    s.directs.forget('T2', false);
    expect(queuedBytes(s)).toBe(0);

    (s.client as unknown as { _socket: Socket })._socket.resume();
    // What was in flight or in the kernel arrives; the queued frames do not.
    await until(() => s.received.length > 0);
    await new Promise((r) => setTimeout(r, 300));
    const frameBytes = encodeTerminalDataFrame('T2', 0, FRAME_BYTES, new Uint8Array(FRAME_BYTES)).length;
    expect(s.received).toHaveLength(written - queued / frameBytes);
    // In order, with no gap inside what came.
    expect(s.received.map((f) => f.offset)).toEqual(Array.from({ length: s.received.length }, (_, i) => i * FRAME_BYTES));
  });
});
