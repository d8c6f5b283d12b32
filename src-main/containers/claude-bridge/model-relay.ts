/**
 * The model relay of Claude Code in a container: the model key never enters the container.
 * The CLI inside is given this relay as its ANTHROPIC_BASE_URL and a random per-run token as
 * its key; the relay (on the host, listening where the container reaches the host) accepts a
 * request only when it carries that token and names a Messages API path, replaces the token
 * with the real credential, and forwards it to the real endpoint, streaming both ways.
 *
 * What the agent in the container can read — its files, its environment, every process's —
 * holds the token at most: worth nothing once the run ends, and no use beyond the Messages API
 * of this provider while it runs.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** The paths a Messages API client sends (streaming or not, token counting); the query is kept as is. */
const MESSAGES_PATH = /^\/v1\/messages(?:\/count_tokens)?(?:\?[^#]*)?$/;

/** Headers that describe one hop (or carry the credential) and are never forwarded. */
const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'proxy-authorization', 'proxy-authenticate', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'x-api-key', 'authorization']);

export interface ModelRelay {
  server: Server;
  port: number;
  /** What the CLI inside sends as its key. */
  token: string;
  close(): void;
}

/** A new run's token: 256 random bits. */
export function newRelayToken(): string {
  return randomBytes(32).toString('hex');
}

function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function header(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Whether the request carries the run's token, as Claude Code sends an apiKeyHelper value (x-api-key and/or a bearer). */
export function carriesToken(h: IncomingHttpHeaders, token: string): boolean {
  const bearer = /^Bearer\s+(.+)$/i.exec(header(h, 'authorization') ?? '')?.[1];
  return sameSecret(header(h, 'x-api-key'), token) || sameSecret(bearer, token);
}

function refuse(res: ServerResponse, status: number, type: string, message: string): void {
  const body = JSON.stringify({ type: 'error', error: { type, message } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * Starts the relay on `host` (the container's bridge gateway, or loopback for a container on the
 * host's network) at a free port. `upstream` is the real base URL (its path is kept as a prefix),
 * `key` the real credential, sent as the CLI itself sends an apiKeyHelper value.
 */
export async function startModelRelay(o: { host: string; upstream: string; key: string; token?: string }): Promise<ModelRelay> {
  const token = o.token ?? newRelayToken();
  const upstream = new URL(o.upstream);
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') throw new Error(`the model endpoint ${o.upstream} is not an http(s) URL`);
  const prefix = upstream.pathname.replace(/\/+$/, '');
  const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    // Claude Code's reachability check before its first call: answered here, nothing forwarded.
    if (req.method === 'HEAD' && url === '/') {
      res.writeHead(200);
      res.end();
      return;
    }
    if (!carriesToken(req.headers, token)) return refuse(res, 401, 'authentication_error', "This relay accepts only its run's token.");
    if (req.method !== 'POST' || !MESSAGES_PATH.test(url)) return refuse(res, 403, 'permission_error', `Only the Messages API is relayed (POST /v1/messages), not ${req.method ?? '?'} ${url.split('?')[0]}.`);
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_HEADERS.has(k)) headers[k] = v;
    headers['x-api-key'] = o.key;
    headers.authorization = `Bearer ${o.key}`;
    const fwd = send({ protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port || undefined, method: 'POST', path: `${prefix}${url}`, headers }, (up) => {
      const back: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !HOP_HEADERS.has(k)) back[k] = v;
      res.writeHead(up.statusCode ?? 502, back);
      up.pipe(res);
      up.on('error', () => res.destroy());
    });
    fwd.on('error', (e) => {
      if (!res.headersSent) refuse(res, 502, 'api_error', `The relay could not reach the model endpoint: ${e.message}`);
      else res.destroy();
    });
    // The CLI gave up (cancel, timeout): so does the upstream request.
    res.on('close', () => {
      if (!res.writableFinished) fwd.destroy();
    });
    req.pipe(fwd);
  };

  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, o.host, () => resolve());
  });
  const a = server.address();
  return {
    server,
    port: typeof a === 'object' && a ? a.port : 0,
    token,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}
