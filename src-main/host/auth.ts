import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const TOKEN_COOKIE = 'flightdeck_token';

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

export function tokensEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function cookieToken(req: IncomingMessage): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === TOKEN_COOKIE) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** Host names a browser may use to reach us. A wildcard bind accepts any (the token still guards). */
export function allowedHosts(bindHost: string, port: number): Set<string> | null {
  if (bindHost === '0.0.0.0' || bindHost === '::') return null;
  const hosts = new Set([`${bindHost}:${port}`]);
  if (bindHost === '127.0.0.1' || bindHost === '::1' || bindHost === 'localhost') {
    hosts.add(`127.0.0.1:${port}`);
    hosts.add(`localhost:${port}`);
    hosts.add(`[::1]:${port}`);
  }
  return hosts;
}

export type Verdict = { ok: true; viaQuery: boolean } | { ok: false; status: 401 | 403; reason: string };

/**
 * Who may talk to the host: the right Host (no DNS rebinding), a same-origin Origin when the
 * browser sends one (always for WebSockets), and the token from the query or the cookie.
 */
export function checkRequest(
  req: IncomingMessage,
  opts: { token: string; hosts: Set<string> | null; requireOrigin: boolean },
): Verdict {
  const host = req.headers.host ?? '';
  if (opts.hosts && !opts.hosts.has(host)) return { ok: false, status: 403, reason: 'unexpected Host header' };
  const origin = req.headers.origin;
  if (origin !== undefined || opts.requireOrigin) {
    if (origin !== `http://${host}`) return { ok: false, status: 403, reason: 'cross-origin request refused' };
  }
  const url = new URL(req.url ?? '/', 'http://placeholder');
  const queryToken = url.searchParams.get('token');
  if (queryToken !== null && tokensEqual(queryToken, opts.token)) return { ok: true, viaQuery: true };
  const cookie = cookieToken(req);
  if (cookie !== undefined && tokensEqual(cookie, opts.token)) return { ok: true, viaQuery: false };
  return { ok: false, status: 401, reason: 'missing or wrong token' };
}
