import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { isTopic } from '../../src-preload/contract';
import { ClientFrame, DIRECT_SOCKET_PATH, MAX_CLIENT_FRAME_BYTES, type HostFrame, type Result } from '../../src-preload/contract/wire';
import { encodeTerminalDataFrame, hasBytes } from '../../src-preload/contract/terminal-frames';
import type { TerminalData } from '../../src-preload/contract/terminals';
import type { AppServices } from '../app/services';
import { appVersion } from '../app/version';
import { Subscriptions, type HubEvent } from '../bridge/event-hub';
import { isReusableAnswer } from '../bridge/reusable';
import { CHANNEL_IN_FLIGHT_MAX_BYTES, CHANNEL_SMALL_FRAME_BYTES, TERMINAL_SOCKET_BACKLOG_MAX_BYTES } from '../terminals/constants';
import { FairQueue } from '../terminals/fair-queue';
import { InFlightRequests } from '../bridge/limits';
import { appRoot } from '../platform/paths';
import { AppError } from '../../src-preload/contract';
import { allowedHosts, checkRequest, MIN_TOKEN_LENGTH, newToken, tokenCookie } from './auth';
import { serveStatic } from './static-files';
import { SCRIPT_SRC } from '../platform/csp';

export interface BrowserHostOptions {
  host?: string;
  port?: number;
  token?: string;
  rendererDir?: string;
}

export interface BrowserHost {
  readonly url: string;
  readonly port: number;
  readonly token: string;
  readonly connections: number;
  close(): Promise<void>;
}

/**
 * What a browser without the token sees: how to get in, instead of a bare "Unauthorized".
 * Static text (nothing from the request is echoed back).
 */
const UNAUTHORIZED_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Flightdeck — open the address with its token</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:640px;margin:12vh auto;padding:0 24px;color:#1b1f27}code{background:#eef0f3;padding:2px 6px;border-radius:4px}h1{font-size:22px}</style></head>
<body><h1>This Flightdeck needs its access token</h1>
<p>Browser mode only answers pages opened with the address it printed when it started, which carries a secret token:</p>
<p><code>Flightdeck ready at http://127.0.0.1:PORT/?token=…</code></p>
<p>Open that exact address (from the terminal where <code>flightdeck serve</code> runs, or its log). If Flightdeck was restarted, it printed a new one; the previous address no longer works. Nothing was lost.</p>
<p>To keep the same address across restarts, start it with a fixed token of 16 or more characters in <code>FLIGHTDECK_TOKEN</code>.</p>
</body></html>`;

/** A `directRouted` frame in a terminal's lane, with the count of direct sockets lost when it was marked. */
interface RoutedMark {
  json: string;
  lost: number;
}

function isRoutedMark(item: string | Uint8Array | RoutedMark): item is RoutedMark {
  return typeof item === 'object' && !(item instanceof Uint8Array);
}

/** Reusable answers as JSON, written once (see resultJson). */
const answerJson = new WeakMap<object, string>();

/**
 * An answer frame as the socket sends it. A reusable answer (one the router checked once and
 * hands out again while nothing it is made of changed: features.list; bridge/reusable.ts) is
 * written out once and spliced into each frame, not stringified again for every board that loads.
 */
export function resultJson(id: number, result: Result): string {
  if (!result.ok || !isReusableAnswer(result.value)) return JSON.stringify({ type: 'result', id, result } satisfies HostFrame);
  let json = answerJson.get(result.value);
  if (json === undefined) {
    json = JSON.stringify(result.value);
    answerJson.set(result.value, json);
  }
  return `{"type":"result","id":${id},"result":{"ok":true,"value":${json}}}`;
}

function rawLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((n, b) => n + b.length, 0);
  return data instanceof ArrayBuffer ? data.byteLength : data.length;
}

/** The same CSP as the desktop window: our own scripts only, no remote code. */
const CSP = [
  "default-src 'self'",
  SCRIPT_SRC,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/**
 * Browser mode: serves the built renderer over HTTP and carries the contract over a
 * WebSocket, with the same router and event hub as the Electron window.
 */
export async function startBrowserHost(app: AppServices, opts: BrowserHostOptions = {}): Promise<BrowserHost> {
  const bindHost = opts.host ?? '127.0.0.1';
  const given = opts.token ?? process.env.FLIGHTDECK_TOKEN;
  if (given !== undefined && given.length < MIN_TOKEN_LENGTH) {
    throw new AppError('invalid_input', `FLIGHTDECK_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters (an empty or short token would let anyone in).`);
  }
  const token = given ?? newToken();
  let cookie = tokenCookie(opts.port ?? 0);
  const rendererDir = opts.rendererDir ?? join(appRoot(), 'out', 'renderer');
  const log = app.options.logger.child('host');
  let hosts: Set<string> | null = null;
  let connectionSeq = 0;
  const sockets = new Set<Socket>();
  /**
   * Direct terminal output sockets (src-main/terminals/pty-host/direct-sockets.ts): each main
   * connection gets a random ticket; a second upgrade carrying it, authenticated exactly like
   * the main one, is handed to the pty host for that connection.
   */
  const tickets = new Map<string, { connectionId: string; lost(): void; offer(): void }>();
  const offerDirect = (connectionId: string | null, lost: boolean) => {
    for (const c of tickets.values()) {
      if (connectionId !== null && c.connectionId !== connectionId) continue;
      if (lost) c.lost();
      c.offer();
    }
  };
  const offDirectAvailable = app.terminals.onDirectAvailable(offerDirect);

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES });

  const server = createServer((req, res) => {
    handleHttp(req, res).catch((e: unknown) => {
      log.error('http handler failed', { error: e });
      if (!res.headersSent) res.writeHead(500).end();
    });
  });

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://placeholder');
    if (url.pathname === '/healthz' && req.method === 'GET') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
      res.end(JSON.stringify({ ok: true, version: appVersion() }));
      return;
    }
    const verdict = checkRequest(req, { token, cookie, hosts, requireOrigin: false });
    if (!verdict.ok) {
      if (verdict.status === 401) {
        res.writeHead(401, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'", 'Cache-Control': 'no-store' }).end(UNAUTHORIZED_PAGE);
      } else res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Forbidden');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET' }).end();
      return;
    }
    const headers = {
      'Content-Security-Policy': CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
    };
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    if (verdict.viaQuery) {
      // Trade the token in the address bar for a cookie the page's scripts cannot read.
      url.searchParams.delete('token');
      res.setHeader('Set-Cookie', `${cookie}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`);
      res.writeHead(302, { Location: url.pathname + (url.search || '') }).end();
      return;
    }
    await serveStatic(rendererDir, url.pathname, res);
  }

  server.on('upgrade', (req, socket, head) => {
    // Node's server stops listening for the socket's errors once it emits 'upgrade': a client that
    // resets the connection before our answer is written (ECONNRESET, EPIPE) would otherwise throw
    // from an unhandled 'error' event and end this process, token or not. Its loss only.
    socket.on('error', () => undefined);
    const reasons = { 401: 'Unauthorized', 403: 'Forbidden', 503: 'Service Unavailable' };
    const refuse = (status: 401 | 403 | 503) => socket.end(`HTTP/1.1 ${status} ${reasons[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    try {
      const path = (req.url ?? '/').split('?')[0];
      const verdict = path === '/ws' || path === DIRECT_SOCKET_PATH ? checkRequest(req, { token, cookie, hosts, requireOrigin: true }) : ({ ok: false, status: 403 } as const);
      if (!verdict.ok) return void refuse(verdict.status);
      if (path === DIRECT_SOCKET_PATH) {
        // Authenticated as the main socket is; the ticket says which main connection it serves.
        const ticket = new URL(req.url ?? '/', 'http://placeholder').searchParams.get('ticket');
        const owner = ticket === null ? undefined : tickets.get(ticket);
        if (!owner) return void refuse(403);
        const passed = app.terminals.adoptDirect(owner.connectionId, { url: req.url ?? '/', headers: req.headers }, socket as Socket, head);
        // Not now (no pty host yet, one already open): the output stays on the main socket.
        if (!passed) refuse(503);
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws));
    } catch (e) {
      // Nothing a client sends before it is authenticated may take the host down.
      log.warn('upgrade refused', { error: e });
      refuse(403);
    }
  });

  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  function onConnection(ws: WebSocket): void {
    const ctx = { origin: 'browser' as const, connectionId: `ws-${++connectionSeq}` };
    const sendJson = (json: string) => {
      if (ws.readyState === ws.OPEN) ws.send(json);
    };
    const send = (frame: HostFrame) => sendJson(JSON.stringify(frame));
    const ticket = newToken();
    /** Direct sockets this connection lost: a switch marked for an earlier one is stale. */
    let directsLost = 0;
    tickets.set(ticket, {
      connectionId: ctx.connectionId,
      // Sent once this process no longer skips the connection's terminals: views that attach
      // again get everything, the part lost on the direct socket from the scrollback.
      lost: () => {
        directsLost++;
        send({ type: 'directLost' });
      },
      offer: () => {
        if (app.terminals.canAdoptDirect(ctx.connectionId)) send({ type: 'direct', ticket });
      },
    });
    tickets.get(ticket)!.offer();
    // Terminal output and status take turns per terminal (fair-queue.ts): a quiet terminal's
    // echo is never queued behind another's flood. Everything else is small and goes at once.
    const terminalFrames = new FairQueue<string | Uint8Array | RoutedMark>(
      (item, done) => {
        if (ws.readyState !== ws.OPEN) return done();
        // A switch to a direct socket lost while the mark waited in the lane: `directLost` went
        // out at once, and the client would take the mark for its next direct socket's switch.
        if (isRoutedMark(item) && item.lost !== directsLost) return done();
        ws.send(isRoutedMark(item) ? item.json : item, () => done());
      },
      { maxInFlight: CHANNEL_IN_FLIGHT_MAX_BYTES, smallBelow: CHANNEL_SMALL_FRAME_BYTES },
    );
    // A terminal switched to the direct socket: marked in its lane, after the output this socket
    // still carries, so the client can keep the direct frames from overtaking that output.
    const offRouted = app.terminals.onDirectRouted((conn, id) => {
      if (conn !== ctx.connectionId) return;
      const json = JSON.stringify({ type: 'directRouted', key: id } satisfies HostFrame);
      terminalFrames.push(id, { json, lost: directsLost }, json.length);
    });
    const deliver = (e: HubEvent) => {
      // Terminal output, the hot path, goes as a binary frame: no event frame is built for it.
      if (e.topic === 'terminals.data' && e.key !== undefined) {
        // The pty host writes it to this connection's direct socket.
        if (app.terminals.isDirect(ctx.connectionId, e.key)) return;
        const payload = e.payload as TerminalData;
        const bytes = hasBytes(payload) ? payload.bytes : Buffer.from(payload.data, 'utf8');
        if (terminalFrames.laneBytes(e.key) + bytes.length > TERMINAL_SOCKET_BACKLOG_MAX_BYTES) return;
        const data = encodeTerminalDataFrame(e.key, payload.offset, hasBytes(payload) ? payload.length : payload.data.length, bytes);
        return terminalFrames.push(e.key, data, data.length);
      }
      const frame: HostFrame = { type: 'event', topic: e.topic, ...(e.key !== undefined ? { key: e.key } : {}), payload: e.payload };
      if (e.key === undefined || e.topic !== 'terminals.status') return send(frame);
      // A status after the output it follows (an exit), in the same lane.
      const json = JSON.stringify(frame);
      terminalFrames.push(e.key, json, json.length);
    };
    const subs = new Subscriptions(app.hub, deliver);
    const inFlight = new InFlightRequests();
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const bytes = rawLength(data);
      let frame: ClientFrame;
      try {
        const parsed = ClientFrame.safeParse(JSON.parse(data.toString()));
        if (!parsed.success) return;
        frame = parsed.data;
      } catch {
        // A frame that is not JSON is dropped: it cannot carry an id to answer to.
        return;
      }
      if (frame.type === 'invoke') {
        const id = frame.id;
        let done: () => void;
        try {
          done = inFlight.start(bytes);
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          send({ type: 'result', id, result: { ok: false, error: e.toShape() } });
          return;
        }
        void app.router
          .dispatch(frame.channel, frame.input, ctx)
          .then((result) => sendJson(resultJson(id, result)))
          .finally(done);
      } else if (isTopic(frame.topic)) {
        if (frame.type === 'unsubscribe') return subs.remove(frame.topic, frame.key);
        try {
          subs.add(frame.topic, frame.key);
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          send({ type: 'refused', topic: frame.topic, ...(frame.key !== undefined ? { key: frame.key } : {}), error: e.toShape() });
        }
      }
    });
    // Everything the connection held goes with it: its subscriptions and its terminal views.
    ws.on('close', () => {
      offRouted();
      tickets.delete(ticket);
      subs.dispose();
      terminalFrames.dispose();
      app.hub.connectionClosed(ctx.connectionId);
    });
    ws.on('error', () => subs.dispose());
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, bindHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  app.checkIntegrity();
  app.projects.refreshInBackground();
  // The feature index is reconciled with the state files at start, then kept so by watching them.
  app.features.startInBackground();
  // Features a killed Flightdeck left in progress resume from their first phase not completed.
  app.featureRuns.resumeInterrupted().catch((e: unknown) => app.options.logger.warn('could not resume interrupted feature runs', { error: e }));
  // Pull requests delivered with gh are followed (checks, reviews, fix rounds) while this host runs.
  app.prFollow.start();
  // Mailboxes watched before the restart are watched again (and a task cut off by it is reported).
  app.mailbox.resumeWatchers();
  hosts = allowedHosts(bindHost, port);
  cookie = tokenCookie(port);
  const shownHost = bindHost.includes(':') ? `[${bindHost}]` : bindHost;

  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    port,
    token,
    get connections() {
      return wss.clients.size;
    },
    async close() {
      offDirectAvailable();
      for (const c of wss.clients) c.terminate();
      wss.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
}
