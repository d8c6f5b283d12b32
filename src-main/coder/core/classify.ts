/**
 * Which `error_kind` one attempt ended with. When several apply, the first rule below wins:
 *
 *  1. command_not_found  the CLI could not be started (missing binary, not executable)
 *     subprocess_error   …or failed to start for another reason
 *  2. cancelled          the caller stopped the run (Flightdeck addition; never retried)
 *  3. timeout            max_duration elapsed (we ended the process group)
 *  4. idle_timeout       no output for `timeout` seconds (we ended the process group)
 *  5. (lost session)     resuming a SESSION_ID the CLI does not know: not an error kind; the
 *                        runner starts a new session with the context pack instead
 *  6. upstream_error     the CLI reported an error result (API error, refused resume…)
 *  7. json_decode        lines failed to decode and no result message could be read
 *  8. subprocess_error   non-zero exit or a signal, without an error result to explain it
 *  9. protocol_missing_session  no session id anywhere in the stream
 * 10. empty_result       a result message without text (or exit 0 without a result)
 *
 * Causes beat symptoms: a process we killed for a timeout also exits non-zero and may leave a
 * half-written line, but the timeout is what the caller needs to know. A decode error is
 * tolerated when the result message itself was read: the answer and the session id are intact.
 */
import type { ErrorKind } from './result';
import type { ResultMessage } from './stream-json';

export interface AttemptOutcome {
  /** Set when the process could not be spawned (`code` is the errno name, e.g. ENOENT). */
  spawnError: { code: string; message: string } | null;
  /** Set when we ended the process ourselves. */
  killedFor: 'cancel' | 'duration' | 'idle' | null;
  exitCode: number | null;
  signal: string | null;
  sessionId: string | null;
  result: ResultMessage | null;
  decodeErrors: number;
  /** Whether the attempt was started with `--resume`. */
  resumed: boolean;
  /** Captured stderr (redacted), searched for the CLI's own messages. */
  stderr: string;
}

export type Verdict =
  | { ok: true; sessionId: string; result: string }
  | { ok: false; kind: ErrorKind; message: string; retryable: boolean }
  | { ok: false; kind: 'lost_session'; message: string; retryable: false };

export const INSTALL_HINT = 'Install it with: npm install -g @anthropic-ai/claude-code';

/**
 * What 2.1.197 says when `--resume` names a session it does not have: an unknown UUID in
 * this cwd, or a value that is neither a UUID nor a session title; or when
 * `--resume-session-at` names a message the conversation does not hold.
 */
const LOST_SESSION = [/No conversation found with session ID/i, /--resume requires a valid session ID/i, /No message found with message\.uuid of/i];

/** What 2.1.197 says when `sandbox.failIfUnavailable` stops it (result `errors` and stderr). */
const SANDBOX_UNAVAILABLE = /sandbox required but unavailable:\s*([^\n]*?)(?:\s*·|\n|$)/i;

export function isLostSession(o: Pick<AttemptOutcome, 'resumed' | 'result' | 'stderr'>): boolean {
  if (!o.resumed) return false;
  const texts = [o.stderr, ...(o.result?.errors ?? []), o.result?.result ?? ''];
  return texts.some((t) => LOST_SESSION.some((re) => re.test(t)));
}

/** HTTP statuses worth another attempt: overload, rate limits, server faults. */
function retryableStatus(status: number | null): boolean {
  return status === null || status === 408 || status === 429 || status >= 500;
}

export function classifyAttempt(o: AttemptOutcome, limits: { idleTimeoutS: number; maxDurationS: number }): Verdict {
  if (o.spawnError) {
    if (o.spawnError.code === 'ENOENT' || o.spawnError.code === 'EACCES') {
      const why = o.spawnError.code === 'EACCES' ? 'is not executable' : 'was not found';
      return { ok: false, kind: 'command_not_found', message: `The claude CLI ${why} (${o.spawnError.message}). ${INSTALL_HINT}`, retryable: false };
    }
    return { ok: false, kind: 'subprocess_error', message: `The claude CLI could not be started: ${o.spawnError.message}`, retryable: false };
  }
  if (o.killedFor === 'cancel') return { ok: false, kind: 'cancelled', message: 'Cancelled: the run was stopped and its processes were ended.', retryable: false };
  if (o.killedFor === 'duration') {
    return { ok: false, kind: 'timeout', message: `The run exceeded max_duration (${limits.maxDurationS} s) and was stopped.`, retryable: true };
  }
  if (o.killedFor === 'idle') {
    return { ok: false, kind: 'idle_timeout', message: `No output for ${limits.idleTimeoutS} s (timeout); the run was stopped.`, retryable: true };
  }
  if (isLostSession(o)) return { ok: false, kind: 'lost_session', message: 'The CLI does not know this SESSION_ID.', retryable: false };
  const sandboxProblem = [o.stderr, ...(o.result?.errors ?? [])].map((t) => SANDBOX_UNAVAILABLE.exec(t)).find((m) => m !== null);
  if (sandboxProblem) {
    return {
      ok: false,
      kind: 'config_error',
      message: `Not run: Claude Code's sandbox could not start (${sandboxProblem[1]!.trim()}). Commands are refused rather than run unconfined. Install bubblewrap and socat (Linux), or choose danger-full-access if you accept unconfined commands.`,
      retryable: false,
    };
  }
  if (o.result?.isError) {
    const text = o.result.result?.trim() || o.result.errors.join('; ') || `the CLI ended with "${o.result.subtype}"`;
    const status = o.result.apiErrorStatus;
    return {
      ok: false,
      kind: 'upstream_error',
      message: status !== null ? `Upstream error (HTTP ${status}): ${text}` : `The CLI reported an error: ${text}`,
      retryable: retryableStatus(status),
    };
  }
  if (o.decodeErrors > 0 && o.result === null) {
    return { ok: false, kind: 'json_decode', message: `${o.decodeErrors} output line(s) were not valid JSON and no result message could be read.`, retryable: true };
  }
  if (o.exitCode !== 0) {
    const how = o.exitCode === null ? `was ended by ${o.signal ?? 'a signal'}` : `exited with code ${o.exitCode}`;
    return { ok: false, kind: 'subprocess_error', message: `The claude CLI ${how} without reporting a result.`, retryable: true };
  }
  if (o.sessionId === null) {
    return { ok: false, kind: 'protocol_missing_session', message: 'The CLI output carried no session_id, so the conversation cannot be resumed.', retryable: true };
  }
  if (o.result === null) return { ok: false, kind: 'empty_result', message: 'The CLI exited without a result message.', retryable: true };
  const text = o.result.result ?? '';
  if (text.trim() === '') return { ok: false, kind: 'empty_result', message: 'The CLI finished but its reply is empty.', retryable: true };
  return { ok: true, sessionId: o.sessionId, result: text };
}
