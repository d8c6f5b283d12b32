import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { backoffDelay, classifyFault, MAX_RETRY_AFTER_MS, parseRetryAfter, ProviderError, StreamIdleError } from '../../../src-main/agents/provider/faults';
import { priceUsage } from '../../../src-main/agents/provider/pricing';

const ctx = { baseUrl: 'https://llm.example', profile: 'work', model: 'm-1' };
const apiError = (status: number | undefined, type: string, headers: Record<string, string> = {}) =>
  APIError.generate(status, { type: 'error', error: { type, message: `${type} happened` } }, undefined, new Headers(headers));

describe('fault classification', () => {
  it.each([
    [429, 'rate_limit_error', 'rate_limit', true],
    [529, 'overloaded_error', 'overloaded', true],
    [500, 'api_error', 'server', true],
    [502, 'api_error', 'server', true],
    [503, 'api_error', 'server', true],
    [400, 'invalid_request_error', 'bad_request', false],
    [401, 'authentication_error', 'auth', false],
    [403, 'permission_error', 'permission', false],
    [404, 'not_found_error', 'not_found', false],
    [413, 'request_too_large', 'too_large', false],
  ] as const)('%i %s → %s (retryable %s)', (status, type, kind, retryable) => {
    const f = classifyFault(apiError(status, type), ctx);
    expect(f.kind).toBe(kind);
    expect(f.retryable).toBe(retryable);
    expect(f.status).toBe(status);
  });

  it('writes actionable messages for rejected keys and wrong endpoints', () => {
    expect(classifyFault(apiError(401, 'authentication_error'), ctx).message).toMatch(/^API key rejected by https:\/\/llm\.example \(401\).*profile "work"/);
    expect(classifyFault(apiError(404, 'not_found_error'), ctx).message).toContain('Check the base URL and the model "m-1"');
    expect(classifyFault(apiError(403, 'permission_error'), ctx).message).toContain('may not be allowed to use model "m-1"');
  });

  it('treats SSE error events (no status) by their type', () => {
    // What the SDK throws for an `event: error` in the stream.
    const sse = (type: string) => new APIError(undefined, { type: 'error', error: { type, message: 'm' } }, undefined, new Headers(), type as never);
    expect(classifyFault(sse('overloaded_error'), ctx)).toMatchObject({ kind: 'overloaded', retryable: true });
    expect(classifyFault(sse('api_error'), ctx)).toMatchObject({ kind: 'server', retryable: true });
  });

  it('treats dropped connections, stalls and malformed streams as retryable', () => {
    expect(classifyFault(new APIConnectionError({ message: 'Connection error.' }), ctx)).toMatchObject({ kind: 'connection', retryable: true });
    expect(classifyFault(Object.assign(new TypeError('terminated'), { cause: { code: 'UND_ERR_SOCKET' } }), ctx)).toMatchObject({ kind: 'connection', retryable: true });
    expect(classifyFault(new StreamIdleError('no data for 1 s'), ctx)).toMatchObject({ kind: 'idle_timeout', retryable: true });
    expect(classifyFault(new SyntaxError('Unexpected token'), ctx)).toMatchObject({ kind: 'malformed', retryable: true });
    expect(classifyFault(new APIUserAbortError(), ctx)).toMatchObject({ kind: 'cancelled', retryable: false });
    const own = new ProviderError('auth', 'x');
    expect(classifyFault(own, ctx)).toBe(own);
  });

  it('reads retry-after in seconds, milliseconds and as a date, capped', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': '2' }))).toBe(2_000);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '150' }))).toBe(150);
    expect(parseRetryAfter(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 7_000)).toBe(3_000);
    expect(parseRetryAfter(new Headers({ 'retry-after': '99999' }))).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }))).toBeNull();
    expect(parseRetryAfter(new Headers())).toBeNull();
    expect(classifyFault(apiError(429, 'rate_limit_error', { 'retry-after': '3' }), ctx).retryAfterMs).toBe(3_000);
  });
});

describe('backoff', () => {
  const opts = { baseMs: 1_000, maxMs: 30_000 };
  it('doubles per attempt with jitter in [half, full]', () => {
    expect(backoffDelay(1, opts, null, () => 0)).toBe(500);
    expect(backoffDelay(1, opts, null, () => 1)).toBe(1_000);
    expect(backoffDelay(3, opts, null, () => 0)).toBe(2_000);
    expect(backoffDelay(3, opts, null, () => 1)).toBe(4_000);
  });
  it('is capped, and a retry-after is a floor', () => {
    expect(backoffDelay(20, opts, null, () => 1)).toBe(30_000);
    expect(backoffDelay(1, opts, 5_000, () => 1)).toBe(5_000);
    expect(backoffDelay(5, opts, 100, () => 1)).toBe(16_000);
  });
});

describe('pricing', () => {
  it('prices each token bucket separately', () => {
    const prices = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 };
    expect(priceUsage({ inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, prices)).toBe(3);
    expect(priceUsage({ inputTokens: 1_000, outputTokens: 2_000, cacheReadTokens: 10_000, cacheWriteTokens: 4_000 }, prices)).toBeCloseTo(0.003 + 0.03 + 0.003 + 0.015, 10);
    expect(priceUsage({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, prices)).toBe(0);
  });
});
