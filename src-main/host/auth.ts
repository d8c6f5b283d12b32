import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Cookies are not separated by port: each instance names its cookie after its port so two
 * instances (or another localhost server) never overwrite or receive each other's token.
 */
export function tokenCookie(port: number): string {
  return `flightdeck_token_${port}`;
}

/** Shorter tokens are guessable; FLIGHTDECK_TOKEN must be at least this long. */
export const MIN_TOKEN_LENGTH = 16;

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

export function tokensEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function cookieToken(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        // A malformed cookie is no token (and must never throw in a request handler).
        return undefined;
      }
    }
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
  opts: { token: string; cookie: string; hosts: Set<string> | null; requireOrigin: boolean },
): Verdict {
  const host = req.headers.host ?? '';
  if (opts.hosts && !opts.hosts.has(host)) return { ok: false, status: 403, reason: 'unexpected Host header' };
  const origin = req.headers.origin;
  if (origin !== undefined || opts.requireOrigin) {
    if (origin !== `http://${host}`) return { ok: false, status: 403, reason: 'cross-origin request refused' };
  }
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://placeholder');
  } catch {
    return { ok: false, status: 403, reason: 'malformed request target' };
  }
  const queryToken = url.searchParams.get('token');
  if (queryToken !== null && tokensEqual(queryToken, opts.token)) return { ok: true, viaQuery: true };
  const cookie = cookieToken(req, opts.cookie);
  if (cookie !== undefined && tokensEqual(cookie, opts.token)) return { ok: true, viaQuery: false };
  return { ok: false, status: 401, reason: 'missing or wrong token' };
}
