import { describe, expect, it } from 'vitest';
import { classifyAttempt, type AttemptOutcome } from '../../../src-main/coder/core/classify';
import { backoffDelayMs, isRetryableKind } from '../../../src-main/coder/core/backoff';
import type { ResultMessage } from '../../../src-main/coder/core/stream-json';

const limits = { idleTimeoutS: 2, maxDurationS: 5 };

function result(over: Partial<ResultMessage> = {}): ResultMessage {
  return {
    subtype: 'success',
    isError: false,
    result: 'Done.',
    sessionId: 's-1',
    numTurns: 1,
    durationMs: 10,
    durationApiMs: 5,
    totalCostUsd: 0.01,
    usage: { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    apiErrorStatus: null,
    errors: [],
    permissionDenials: [],
    ...over,
  };
}

function outcome(over: Partial<AttemptOutcome> = {}): AttemptOutcome {
  return { spawnError: null, killedFor: null, exitCode: 0, signal: null, sessionId: 's-1', result: result(), decodeErrors: 0, resumed: false, stderr: '', ...over };
}

const kind = (o: Partial<AttemptOutcome>) => {
  const v = classifyAttempt(outcome(o), limits);
  return v.ok ? 'ok' : v.kind;
};

describe('error_kind classification', () => {
  it('a clean run succeeds with its session and reply', () => {
    expect(classifyAttempt(outcome(), limits)).toEqual({ ok: true, sessionId: 's-1', result: 'Done.' });
  });

  it('maps each situation of the seed table to its kind', () => {
    expect(kind({ spawnError: { code: 'ENOENT', message: 'spawn claude ENOENT' }, result: null, exitCode: null })).toBe('command_not_found');
    expect(kind({ spawnError: { code: 'EACCES', message: 'EACCES' }, result: null, exitCode: null })).toBe('command_not_found');
    expect(kind({ spawnError: { code: 'E2BIG', message: 'E2BIG' }, result: null, exitCode: null })).toBe('subprocess_error');
    expect(kind({ killedFor: 'duration', exitCode: null, signal: 'SIGTERM', result: null })).toBe('timeout');
    expect(kind({ killedFor: 'idle', exitCode: null, signal: 'SIGTERM', result: null })).toBe('idle_timeout');
    expect(kind({ killedFor: 'cancel', exitCode: null, signal: 'SIGTERM', result: null })).toBe('cancelled');
    expect(kind({ exitCode: 1, result: result({ isError: true, apiErrorStatus: 500, result: 'API Error: 500' }) })).toBe('upstream_error');
    expect(kind({ exitCode: 1, result: null, decodeErrors: 2 })).toBe('json_decode');
    expect(kind({ exitCode: 2, result: null })).toBe('subprocess_error');
    expect(kind({ exitCode: null, signal: 'SIGSEGV', result: null })).toBe('subprocess_error');
    expect(kind({ sessionId: null, result: result({ sessionId: null }) })).toBe('protocol_missing_session');
    expect(kind({ result: result({ result: '  \n' }) })).toBe('empty_result');
    expect(kind({ result: null })).toBe('empty_result');
  });

  it('says how to install the CLI when it is missing', () => {
    const v = classifyAttempt(outcome({ spawnError: { code: 'ENOENT', message: 'spawn claude ENOENT' } }), limits);
    expect(!v.ok && v.message).toContain('npm install -g @anthropic-ai/claude-code');
  });

  it('applies the documented precedence when several kinds apply', () => {
    // We killed it for a timeout: it also exited by signal with a torn line; the timeout wins.
    expect(kind({ killedFor: 'duration', exitCode: null, signal: 'SIGTERM', decodeErrors: 1, result: null, sessionId: null })).toBe('timeout');
    // An error result beats the non-zero exit that comes with it.
    expect(kind({ exitCode: 1, result: result({ isError: true }) })).toBe('upstream_error');
    // A decode error is tolerated when the result message itself was read.
    expect(kind({ decodeErrors: 3 })).toBe('ok');
    // Decode errors without a result beat the exit code.
    expect(kind({ exitCode: 1, decodeErrors: 1, result: null })).toBe('json_decode');
    // A missing session beats an empty reply.
    expect(kind({ sessionId: null, result: result({ sessionId: null, result: '' }) })).toBe('protocol_missing_session');
  });

  it('recognizes the CLI messages for a lost session only when resuming', () => {
    const lost = result({ isError: true, subtype: 'error_during_execution', errors: ['No conversation found with session ID: 3350a2c8-e3ed-4ed7-a703-ef07c6174499'] });
    expect(kind({ resumed: true, exitCode: 1, result: lost })).toBe('lost_session');
    expect(kind({ resumed: false, exitCode: 1, result: lost })).toBe('upstream_error');
    const title = result({ isError: true, errors: ['Error: --resume requires a valid session ID or session title when used with --print.'] });
    expect(kind({ resumed: true, exitCode: 1, result: title })).toBe('lost_session');
    expect(kind({ resumed: true, exitCode: 1, result: null, stderr: 'No conversation found with session ID: x\n' })).toBe('lost_session');
  });

  it('retries upstream errors only for statuses that can change', () => {
    const at = (status: number | null) => classifyAttempt(outcome({ exitCode: 1, result: result({ isError: true, apiErrorStatus: status }) }), limits);
    expect(at(529)).toMatchObject({ retryable: true });
    expect(at(429)).toMatchObject({ retryable: true });
    expect(at(500)).toMatchObject({ retryable: true });
    expect(at(null)).toMatchObject({ retryable: true });
    expect(at(400)).toMatchObject({ retryable: false });
    expect(at(401)).toMatchObject({ retryable: false });
  });
});

describe('backoff', () => {
  it('follows the seed: 0.5 s, 1 s, 2 s, then keeps doubling up to a cap', () => {
    expect([1, 2, 3, 4].map(backoffDelayMs)).toEqual([500, 1000, 2000, 4000]);
    expect(backoffDelayMs(20)).toBe(30_000);
  });

  it('never retries kinds that cannot change or that the user chose', () => {
    for (const k of ['command_not_found', 'config_error', 'unexpected_exception', 'contract_violation', 'cancelled'] as const) expect(isRetryableKind(k)).toBe(false);
    for (const k of ['idle_timeout', 'timeout', 'upstream_error', 'json_decode', 'protocol_missing_session', 'empty_result', 'subprocess_error'] as const) expect(isRetryableKind(k)).toBe(true);
  });
});
