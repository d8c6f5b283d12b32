/**
 * Keys never reach logs, `last_lines`, results or the UI. The profile's key is known exactly,
 * so it is replaced wherever it appears. (Pattern-based redaction is the logger's job; applied
 * to results it would mangle legitimate text that merely looks like a token.)
 */

export const REDACTED = '[redacted]';
/** Shorter "secrets" would mangle ordinary output (a key of "k" would blank every k). */
const MIN_SECRET_CHARS = 4;

export type Redactor = (text: string) => string;

export function makeRedactor(secrets: ReadonlyArray<string | null | undefined>): Redactor {
  const exact = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_CHARS))]
    // Longest first, so a key containing another key is replaced whole.
    .sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const secret of exact) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  };
}

/** Redacts every string inside a JSON-like value (messages returned with return_all_messages). */
export function redactDeep(value: unknown, redact: Redactor, depth = 0): unknown {
  if (typeof value === 'string') return redact(value);
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, redact, depth + 1);
  return out;
}
