/**
 * Browser mode's direct output channel, pty host side. The main process authenticates a
 * browser's dedicated output connection (token, Host, Origin, and the ticket of its main
 * connection) and passes the socket handle here; this completes the WebSocket handshake and
 * from then on writes the output of the terminals the main process routed to that connection
 * straight to it, so terminal output no longer crosses the main process's event loop on its
 * way to the view. The main process still receives every batch (scrollback, byte watchers).
 *
 * What the socket may carry (see docs/security.md's threat model): output frames of terminals
 * the main process routed to this connection, in the same binary layout as the main socket's
 * (terminal-frames.ts), and from the client keystrokes only: input frames, checked here as the
 * bridge checks `terminals.write` (a terminal id, 1 to TERMINAL_MAX_INPUT_CHARS characters of
 * valid UTF-8) and written to the pty if that terminal runs, exactly what `terminals.write` on
 * the main connection would do for the same client. A keystroke then reaches its pty without
 * waking the main process (the echo already came back this way). Anything else the client
 * sends closes the socket; acks and every other request stay on the main connection.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { decodeTerminalInputFrame, encodeTerminalDataFrame } from '../../../src-preload/contract/terminal-frames';
import { CHANNEL_IN_FLIGHT_MAX_BYTES, CHANNEL_SMALL_FRAME_BYTES, DIRECT_SOCKET_MAX_CLIENT_FRAME_BYTES, TERMINAL_SOCKET_BACKLOG_MAX_BYTES } from '../constants';
import { FairQueue } from '../fair-queue';
import type { FromHost, ToHost } from './protocol';

/** WebSocket close code for a client that sent anything but a well-formed input frame. */
const CLOSE_POLICY_VIOLATION = 1008;

interface Direct {
  ws: WebSocket;
  /** Terminals whose output goes to this socket (routed by the main process). */
  routes: Set<string>;
  /** One lane per terminal, as on the main process's socket: an echo never waits behind a flood. */
  out: FairQueue<Uint8Array>;
}

export class DirectSockets {
  private readonly directs = new Map<string, Direct>();
  /** Connections whose socket is being handed over (handshake not complete). */
  private readonly opening = new Set<string>();
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: DIRECT_SOCKET_MAX_CLIENT_FRAME_BYTES, perMessageDeflate: false, clientTracking: false });

  constructor(
    /** To the main process, outside any terminal's lane. */
    private readonly notify: (msg: FromHost) => void,
    /** Keystrokes for terminal `id`, already checked for shape; written to its pty if it runs. */
    private readonly input: (id: string, data: string) => void,
  ) {}

  get size(): number {
    return this.directs.size;
  }

  /** A socket passed by the main process (`msg.t === 'direct'`). */
  adopt(msg: Extract<ToHost, { t: 'direct' }>, socket: Socket | undefined): void {
    const { conn } = msg;
    if (!socket) return this.notify({ t: 'directClosed', conn });
    // One direct socket per main connection: a second one is refused, the first stays.
    if (this.directs.has(conn) || this.opening.has(conn)) {
      socket.destroy();
      return;
    }
    this.opening.add(conn);
    // Only what ws's handshake reads; the main process has already checked all of it.
    const req = { method: 'GET', url: msg.url, headers: msg.headers, socket } as unknown as IncomingMessage;
    socket.once('close', () => {
      if (!this.opening.delete(conn)) return;
      // The handshake failed (ws wrote its 400 and closed): the main connection stays on its own socket.
      this.notify({ t: 'directClosed', conn });
    });
    try {
      this.wss.handleUpgrade(req, socket, Buffer.from(msg.head), (ws) => this.opened(conn, ws));
    } catch {
      // A malformed request cannot get further than a closed socket.
      socket.destroy();
    }
  }

  /** Starts (`on`) or stops writing a terminal's output to a connection's socket; whether it is on now. */
  route(id: string, conn: string, on: boolean, running: boolean): boolean {
    const d = this.directs.get(conn);
    if (!d) return false;
    if (on && running) d.routes.add(id);
    else d.routes.delete(id);
    return d.routes.has(id);
  }

  /** A batch of a terminal's output: to every socket it is routed to (`offset`, `chars` in UTF-16 units). */
  write(id: string, offset: number, chars: number, bytes: Uint8Array): void {
    // Every socket gets the same frame (a copy of the bytes): made once, only if one takes it.
    let frame: Uint8Array | null = null;
    for (const d of this.directs.values()) {
      if (!d.routes.has(id)) continue;
      // A stuck client: stop queueing; its view sees the gap and resyncs from the scrollback.
      if (d.out.laneBytes(id) + bytes.length > TERMINAL_SOCKET_BACKLOG_MAX_BYTES) continue;
      frame ??= encodeTerminalDataFrame(id, offset, chars, bytes);
      d.out.push(id, frame, frame.length);
    }
  }

  /**
   * A terminal is gone: it is routed nowhere. What is queued for it is dropped, unless it ended
   * by itself (`ended`): its views still show it, and its last output is in that queue.
   */
  forget(id: string, ended = false): void {
    for (const d of this.directs.values()) {
      d.routes.delete(id);
      if (!ended) d.out.dropLane(id);
    }
  }

  drop(conn: string): void {
    this.directs.get(conn)?.ws.terminate();
  }

  closeAll(): void {
    for (const d of this.directs.values()) d.ws.terminate();
  }

  private opened(conn: string, ws: WebSocket): void {
    this.opening.delete(conn);
    const out = new FairQueue<Uint8Array>(
      (frame, done) => {
        if (ws.readyState !== ws.OPEN) return done();
        ws.send(frame, () => done());
      },
      { maxInFlight: CHANNEL_IN_FLIGHT_MAX_BYTES, smallBelow: CHANNEL_SMALL_FRAME_BYTES },
    );
    const d: Direct = { ws, routes: new Set(), out };
    this.directs.set(conn, d);
    // ws goes on delivering what the client sent until the close handshake is over: nothing after a refusal is typed.
    let refused = false;
    ws.on('message', (data, isBinary) => {
      if (refused) return;
      const frame = isBinary && Buffer.isBuffer(data) ? decodeTerminalInputFrame(data) : null;
      if (!frame) {
        refused = true;
        return ws.close(CLOSE_POLICY_VIOLATION, 'this socket takes terminal input frames only');
      }
      this.input(frame.key, frame.data);
    });
    // A socket error is followed by 'close', which does the cleanup.
    ws.on('error', () => undefined);
    ws.on('close', () => {
      out.dispose();
      if (this.directs.get(conn) !== d) return;
      this.directs.delete(conn);
      this.notify({ t: 'directClosed', conn });
    });
    this.notify({ t: 'directOpen', conn });
  }
}
