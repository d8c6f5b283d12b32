/**
 * "Test connection" for a provider profile: one request for a single token with the profile's
 * base URL, key and model, no retries, and the outcome in words (key rejected, endpoint
 * unreachable, model unknown, rate limited, or ok with the round-trip time).
 */
import Anthropic from '@anthropic-ai/sdk';
import type { ConnectionOutcome, ConnectionTestResult } from '../../../src-preload/contract/providers';
import { classifyFault, type FaultKind } from './faults';
import type { ResolvedProfile } from './types';

/**
 * A test waits at most this long. A healthy endpoint answers one token in a second or two;
 * a dead address or a black-holed port must not leave the button spinning for a minute.
 */
export const CONNECTION_TEST_TIMEOUT_MS = 15_000;
/** The prompt of the test: tiny, so the test costs a handful of tokens. */
const TEST_PROMPT = 'ping';

const OUTCOME_OF: Record<FaultKind, ConnectionOutcome> = {
  no_key: 'no_key',
  auth: 'key_rejected',
  permission: 'key_rejected',
  not_found: 'model_unknown',
  bad_request: 'rejected',
  too_large: 'rejected',
  rate_limit: 'rate_limited',
  overloaded: 'rate_limited',
  server: 'server_error',
  connection: 'unreachable',
  idle_timeout: 'unreachable',
  malformed: 'server_error',
  cancelled: 'unreachable',
  // A connection test is not guarded by budgets; listed for completeness.
  limit: 'rejected',
};

/** The network error code under an SDK connection error (DNS, refused, reset), if any. */
function networkCode(e: unknown): string | null {
  for (let cur: unknown = e, depth = 0; cur && typeof cur === 'object' && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$|^UND_ERR/.test(code)) return code;
  }
  return null;
}

function headlineFor(outcome: ConnectionOutcome, status: number | null, code: string | null, timedOut: boolean): string {
  const s = status ? ` (${status})` : '';
  switch (outcome) {
    case 'no_key':
      return 'No API key is set for this profile';
    case 'key_rejected':
      return status === 403 ? 'The API key is not allowed to use this model (403)' : `The API key was rejected${s}`;
    case 'model_unknown':
      return `The model or endpoint is unknown${s}`;
    case 'rate_limited':
      return status === 529 ? 'The endpoint is overloaded (529); try again shortly' : `Rate limited${s}; the key works, try again shortly`;
    case 'server_error':
      return `The endpoint failed${s}`;
    case 'rejected':
      return `The endpoint rejected the request${s}`;
    case 'unreachable':
      if (timedOut) return `The endpoint did not answer within ${CONNECTION_TEST_TIMEOUT_MS / 1000} s`;
      if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'The endpoint’s host name does not resolve (DNS)';
      if (code === 'ECONNREFUSED') return 'The endpoint is unreachable: connection refused';
      return 'The endpoint is unreachable';
    case 'ok':
      return 'Connected';
  }
}

export async function testConnection(profile: ResolvedProfile, opts: { timeoutMs?: number; now?: () => number } = {}): Promise<ConnectionTestResult> {
  const now = opts.now ?? (() => performance.now());
  const base = { baseUrl: profile.baseUrl, model: profile.model };
  if (!profile.apiKey) {
    return { ...base, outcome: 'no_key', headline: headlineFor('no_key', null, null, false), detail: `Add a key for profile "${profile.name}" (Edit → API key), or set ANTHROPIC_API_KEY.`, latencyMs: null, status: null };
  }
  const timeoutMs = opts.timeoutMs ?? CONNECTION_TEST_TIMEOUT_MS;
  const client = new Anthropic({ apiKey: profile.apiKey, baseURL: profile.baseUrl, maxRetries: 0, timeout: timeoutMs, logLevel: 'off' });
  const started = now();
  try {
    await client.messages.create({ model: profile.model, max_tokens: 1, messages: [{ role: 'user', content: TEST_PROMPT }] });
    const latencyMs = Math.max(0, Math.round(now() - started));
    return { ...base, outcome: 'ok', headline: `Connected in ${latencyMs} ms`, detail: `${profile.baseUrl} answered with model ${profile.model}.`, latencyMs, status: 200 };
  } catch (e) {
    const elapsed = Math.max(0, Math.round(now() - started));
    const fault = classifyFault(e, { baseUrl: profile.baseUrl, profile: profile.name, model: profile.model });
    const outcome = OUTCOME_OF[fault.kind];
    const timedOut = e instanceof Anthropic.APIConnectionTimeoutError;
    const code = networkCode(e);
    return {
      ...base,
      outcome,
      headline: headlineFor(outcome, fault.status, code, timedOut),
      detail: code && !fault.message.includes(code) ? `${fault.message} (${code})` : fault.message,
      // An answer that came (any status) has a round trip worth showing; no answer has none.
      latencyMs: fault.status !== null ? elapsed : null,
      status: fault.status,
    };
  }
}
