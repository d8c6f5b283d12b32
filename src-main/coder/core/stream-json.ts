/**
 * Reading `claude -p --output-format stream-json --verbose` output: one JSON object per line.
 * Pure (no Node APIs) so it is unit-tested on captured lines; the process runner feeds it.
 */

/** A line longer than this without a newline is not stream-json any more; it is cut off. */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;

/** Splits decoded text into lines across chunk boundaries. */
export class LineSplitter {
  private rest = '';

  push(chunk: string): string[] {
    const text = this.rest + chunk;
    const parts = text.split('\n');
    this.rest = parts.pop() ?? '';
    if (this.rest.length > MAX_LINE_CHARS) {
      parts.push(this.rest);
      this.rest = '';
    }
    return parts.map(stripCr);
  }

  /** The unterminated last line, if any (a process that died mid-line). */
  flush(): string[] {
    const rest = this.rest;
    this.rest = '';
    return rest.length > 0 ? [stripCr(rest)] : [];
  }
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** A stream-json message. Fields are read defensively: the CLI adds fields between versions. */
export interface StreamMessage {
  type: string;
  subtype?: string;
  session_id?: string;
  [key: string]: unknown;
}

export type DecodedLine =
  | { kind: 'message'; message: StreamMessage }
  /** Blank lines and text that is not JSON at all (a warning printed to stdout). */
  | { kind: 'noise' }
  /** Looked like JSON (starts with `{` or `[`) but did not decode to a message. */
  | { kind: 'decode_error'; error: string };

export function decodeLine(line: string): DecodedLine {
  const trimmed = line.trim();
  if (trimmed === '') return { kind: 'noise' };
  if (trimmed[0] !== '{' && trimmed[0] !== '[') return { kind: 'noise' };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (e) {
    return { kind: 'decode_error', error: e instanceof Error ? e.message : String(e) };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'decode_error', error: 'not a JSON object' };
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') return { kind: 'decode_error', error: 'a JSON object without a "type"' };
  return { kind: 'message', message: value as StreamMessage };
}

/** The final `result` message, as far as Flightdeck reads it. */
export interface ResultMessage {
  subtype: string;
  isError: boolean;
  result: string | null;
  sessionId: string | null;
  numTurns: number;
  durationMs: number;
  durationApiMs: number;
  totalCostUsd: number;
  usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };
  apiErrorStatus: number | null;
  /** `errors` of error_during_execution results (e.g. "No conversation found with session ID: …"). */
  errors: string[];
  permissionDenials: Array<{ tool_name: string; tool_use_id: string }>;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export function readResult(m: StreamMessage): ResultMessage {
  const usage = (typeof m.usage === 'object' && m.usage !== null ? m.usage : {}) as Record<string, unknown>;
  const denials = Array.isArray(m.permission_denials) ? m.permission_denials : [];
  return {
    subtype: str(m.subtype) ?? 'unknown',
    isError: m.is_error === true,
    result: str(m.result),
    sessionId: str(m.session_id),
    numTurns: num(m.num_turns),
    durationMs: num(m.duration_ms),
    durationApiMs: num(m.duration_api_ms),
    totalCostUsd: num(m.total_cost_usd),
    usage: {
      input_tokens: num(usage.input_tokens),
      output_tokens: num(usage.output_tokens),
      cache_read_input_tokens: num(usage.cache_read_input_tokens),
      cache_creation_input_tokens: num(usage.cache_creation_input_tokens),
    },
    apiErrorStatus: typeof m.api_error_status === 'number' ? m.api_error_status : null,
    errors: Array.isArray(m.errors) ? m.errors.filter((e): e is string => typeof e === 'string') : [],
    permissionDenials: denials
      .filter((d): d is Record<string, unknown> => typeof d === 'object' && d !== null)
      .map((d) => ({ tool_name: String(d.tool_name ?? ''), tool_use_id: String(d.tool_use_id ?? '') })),
  };
}

/**
 * What one run's output added up to. `stream_event` lines (partial deltas) feed the live
 * view but are not kept in `messages`: they repeat what the complete messages hold.
 */
export class StreamState {
  sessionId: string | null = null;
  result: ResultMessage | null = null;
  decodeErrors = 0;
  readonly messages: StreamMessage[] = [];

  /** Returns the decoded line so the caller can forward messages (live events). */
  accept(line: string): DecodedLine {
    const decoded = decodeLine(line);
    if (decoded.kind === 'decode_error') this.decodeErrors++;
    if (decoded.kind !== 'message') return decoded;
    const m = decoded.message;
    if (this.sessionId === null && typeof m.session_id === 'string' && m.session_id !== '') this.sessionId = m.session_id;
    if (m.type === 'result') {
      this.result = readResult(m);
      // The result names the session that really ran (a resume keeps the id, a fork changes it).
      if (this.result.sessionId) this.sessionId = this.result.sessionId;
    }
    if (m.type !== 'stream_event') this.messages.push(m);
    return decoded;
  }
}
