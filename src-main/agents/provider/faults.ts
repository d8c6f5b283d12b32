/**
 * Model-call failures, classified: which are retried (rate limits, overload, server errors,
 * dropped connections, stalled streams) and which stop the turn with a message the user can
 * act on (a rejected key, a wrong URL or model). Pure apart from reading the error object.
 */
import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';

export type FaultKind =
  | 'no_key'
  | 'auth'
  | 'permission'
  | 'bad_request'
  | 'not_found'
  | 'too_large'
  | 'rate_limit'
  | 'overloaded'
  | 'server'
  | 'connection'
  | 'idle_timeout'
  | 'malformed'
  | 'cancelled'
  /** A budget or turn limit refused the call before it was made (agents/call-guard.ts). */
  | 'limit';

const RETRYABLE = new Set<FaultKind>(['rate_limit', 'overloaded', 'server', 'connection', 'idle_timeout', 'malformed']);

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    readonly kind: FaultKind,
    message: string,
    readonly status: number | null = null,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
  get retryable(): boolean {
    return RETRYABLE.has(this.kind);
  }
}

/** Thrown into the stream when no event arrived for the idle timeout. */
export class StreamIdleError extends Error {
  override readonly name = 'StreamIdleError';
}

/** A retry-after longer than this is not worth waiting for inside a turn: wait at most this. */
export const MAX_RETRY_AFTER_MS = 60_000;

export function parseRetryAfter(headers: Headers | undefined | null, now = Date.now()): number | null {
  if (!headers) return null;
  const ms = headers.get('retry-after-ms');
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.min(MAX_RETRY_AFTER_MS, Math.round(Number(ms)));
  const v = headers.get('retry-after');
  if (!v) return null;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.min(MAX_RETRY_AFTER_MS, Math.round(Number(v) * 1000));
  const date = Date.parse(v);
  return Number.isNaN(date) ? null : Math.min(MAX_RETRY_AFTER_MS, Math.max(0, date - now));
}

export interface FaultContext {
  baseUrl: string;
  profile: string;
  model: string;
}

function apiMessage(e: APIError): string {
  const body = e.error as { error?: { message?: unknown } } | undefined;
  const m = body?.error?.message;
  return typeof m === 'string' && m.length > 0 ? m.slice(0, 500) : '';
}

/** Turns anything a call threw into a ProviderError with a message written for the user. */
export function classifyFault(e: unknown, ctx: FaultContext): ProviderError {
  if (e instanceof ProviderError) return e;
  const where = ctx.baseUrl;
  if (e instanceof StreamIdleError) return new ProviderError('idle_timeout', `The stream from ${where} stalled (${e.message}).`);
  if (e instanceof APIUserAbortError) return new ProviderError('cancelled', 'Cancelled.');
  if (e instanceof APIConnectionError) {
    return new ProviderError('connection', `Could not reach ${where}: ${(e.message || 'connection failed').replace(/\.$/, '')}.`);
  }
  if (e instanceof APIError) {
    const status = typeof e.status === 'number' ? e.status : null;
    const detail = apiMessage(e);
    const suffix = detail ? ` (${detail})` : '';
    const type = (e.type ?? (e.error as { error?: { type?: string } } | undefined)?.error?.type) as string | undefined;
    const retryAfter = parseRetryAfter(e.headers as Headers | undefined);
    if (status === 401 || type === 'authentication_error') {
      return new ProviderError('auth', `API key rejected by ${where} (401)${suffix}. Check the key of profile "${ctx.profile}" in Settings → Providers, or run: flightdeck profiles set ${ctx.profile} --api-key-stdin`, status);
    }
    if (status === 403 || type === 'permission_error') {
      return new ProviderError('permission', `${where} refused access (403)${suffix}: the key of profile "${ctx.profile}" may not be allowed to use model "${ctx.model}".`, status);
    }
    if (status === 404 || type === 'not_found_error') {
      return new ProviderError('not_found', `${where} has no such endpoint or model (404)${suffix}. Check the base URL and the model "${ctx.model}" of profile "${ctx.profile}".`, status);
    }
    if (status === 413 || type === 'request_too_large') {
      return new ProviderError('too_large', `The request is too large for ${where} (413)${suffix}. Try /compact.`, status);
    }
    if (status === 429 || type === 'rate_limit_error') return new ProviderError('rate_limit', `Rate limited by ${where}${suffix}.`, status, retryAfter);
    if (status === 529 || type === 'overloaded_error') return new ProviderError('overloaded', `${where} is overloaded${suffix}.`, status, retryAfter);
    if ((status !== null && status >= 500) || type === 'api_error') return new ProviderError('server', `${where} failed (${status ?? 'stream error'})${suffix}.`, status, retryAfter);
    if (status === 408 || status === 409) return new ProviderError('server', `${where} answered ${status}${suffix}.`, status, retryAfter);
    if (status === 400 || status === 422 || type === 'invalid_request_error') {
      return new ProviderError('bad_request', `${where} rejected the request (${status ?? 400})${suffix}.`, status);
    }
    if (status === null) return new ProviderError('connection', `The stream from ${where} failed${suffix || `: ${e.message}`}.`);
    return new ProviderError('bad_request', `${where} answered ${status}${suffix}.`, status);
  }
  if (e instanceof SyntaxError) return new ProviderError('malformed', `${where} sent a malformed stream event.`);
  const err = e as { name?: string; message?: string; code?: string; cause?: { code?: string } } | null;
  const code = err?.code ?? err?.cause?.code;
  if (err?.name === 'AbortError') return new ProviderError('cancelled', 'Cancelled.');
  // undici reports a dropped body as TypeError("terminated") with the socket error as cause.
  if (code === 'ECONNRESET' || code === 'ECONNREFUSED' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || /terminated|socket|other side closed|ECONNRESET/i.test(err?.message ?? '')) {
    return new ProviderError('connection', `The connection to ${where} dropped${err?.message ? ` (${err.message})` : ''}.`);
  }
  return new ProviderError('connection', `The call to ${where} failed: ${err?.message ?? String(e)}.`);
}

export interface BackoffOptions {
  /** First retry waits about this long; each next one doubles. */
  baseMs: number;
  /** No single wait is longer than this (retry-after aside). */
  maxMs: number;
}

/**
 * Exponential backoff with "equal jitter" (half fixed, half random) so parallel sessions
 * hitting the same rate limit do not retry in lockstep; a server's retry-after is a floor.
 */
export function backoffDelay(attempt: number, opts: BackoffOptions, retryAfterMs: number | null, random: () => number = Math.random): number {
  const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.max(0, attempt - 1));
  const jittered = Math.round(exp / 2 + (random() * exp) / 2);
  return retryAfterMs === null ? jittered : Math.max(retryAfterMs, jittered);
}
