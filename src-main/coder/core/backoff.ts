/**
 * Seed 000's retry policy: none by default; when the caller opts in, exponential backoff
 * 0.5 s → 1 s → 2 s, only for kinds that can succeed on a second try.
 */
import type { ErrorKind } from './result';

/** Seed 000: the first retry waits 0.5 s, and each next one twice as long. */
export const BACKOFF_BASE_MS = 500;
/**
 * The seed lists three steps; callers allowing more retries keep doubling, but never wait more
 * than this: past half a minute a human is better placed to decide than another attempt.
 */
export const BACKOFF_MAX_MS = 30_000;

/** Delay before retry number `retry` (1-based). */
export function backoffDelayMs(retry: number): number {
  return Math.min(BACKOFF_BASE_MS * 2 ** Math.max(0, retry - 1), BACKOFF_MAX_MS);
}

/** Kinds never retried: nothing about them changes between attempts, or the user said stop. */
const NEVER_RETRIED: ReadonlySet<ErrorKind> = new Set(['command_not_found', 'config_error', 'unexpected_exception', 'contract_violation', 'cancelled']);

export function isRetryableKind(kind: ErrorKind): boolean {
  return !NEVER_RETRIED.has(kind);
}
