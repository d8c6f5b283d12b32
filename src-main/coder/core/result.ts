/**
 * Seed 000's return values, field for field. `all_messages` and `metrics` are added only
 * when the caller asked for them (`return_all_messages`, `return_metrics`).
 */

/**
 * The seed's table, plus two kinds Flightdeck adds (the seed's example ends with "…"):
 * `contract_violation` (seed: a result that breaks the contract is a failure) and
 * `cancelled` (the user stopped the run; never retried).
 */
export const ERROR_KINDS = [
  'idle_timeout',
  'timeout',
  'command_not_found',
  'upstream_error',
  'json_decode',
  'protocol_missing_session',
  'empty_result',
  'subprocess_error',
  'config_error',
  'unexpected_exception',
  'contract_violation',
  'cancelled',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** How many trailing output lines a failure carries (seed: "最后20行输出"). */
export const LAST_LINES = 20;

export interface CoderMetrics {
  num_turns: number;
  duration_ms: number;
  duration_api_ms: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  total_cost_usd: number;
  /** Attempts made (1 + retries), and whether a lost session was replaced by a new one. */
  attempts: number;
  session_recreated: boolean;
}

export interface CoderSuccess {
  success: true;
  tool: 'coder';
  SESSION_ID: string;
  result: string;
  all_messages?: unknown[];
  metrics?: CoderMetrics;
}

export interface CoderErrorDetail {
  message: string;
  /** The CLI's exit code; null when it never started or was ended by a signal. */
  exit_code: number | null;
  last_lines: string[];
  json_decode_errors: number;
  idle_timeout_s: number;
  max_duration_s: number;
  retries: number;
}

export interface CoderFailure {
  success: false;
  tool: 'coder';
  /**
   * The Claude Code session the failed call ran in, when one exists (the run reported one, or
   * the caller resumed one): passing it back resumes that conversation to fix a
   * `contract_violation` or an `empty_result` instead of starting over. Absent otherwise.
   */
  SESSION_ID?: string;
  error: string;
  error_kind: ErrorKind;
  error_detail: CoderErrorDetail;
  all_messages?: unknown[];
  metrics?: CoderMetrics;
}

export type CoderResult = CoderSuccess | CoderFailure;

export function failure(
  kind: ErrorKind,
  error: string,
  detail: Partial<CoderErrorDetail> & { idle_timeout_s: number; max_duration_s: number },
): CoderFailure {
  return {
    success: false,
    tool: 'coder',
    error,
    error_kind: kind,
    error_detail: {
      message: detail.message ?? error,
      exit_code: detail.exit_code ?? null,
      last_lines: (detail.last_lines ?? []).slice(-LAST_LINES),
      json_decode_errors: detail.json_decode_errors ?? 0,
      idle_timeout_s: detail.idle_timeout_s,
      max_duration_s: detail.max_duration_s,
      retries: detail.retries ?? 0,
    },
  };
}

/** The failure with the session it ran in, placed after `tool` as the success shape has it. */
export function withSession(r: CoderResult, sessionId: string | null): CoderResult {
  if (r.success || !sessionId || r.SESSION_ID) return r;
  const { success, tool, ...rest } = r;
  return { success, tool, SESSION_ID: sessionId, ...rest };
}
