/**
 * A small structured logger. Secrets never reach it: `redact` masks values of known secret
 * fields and anything that looks like an API key before a line is written.
 */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(scope: string): Logger;
}

type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

const SECRET_FIELD = /(api[_-]?key|token|secret|password|authorization|auth[_-]?token)/i;
const SECRET_VALUE = /\b(sk-[A-Za-z0-9_-]{8,}|[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{10,})\b/g;
/**
 * A credential after its scheme, in text (an error quoting a request, a header line): a bearer
 * token of any shape, and whatever follows `Authorization:` / `Authorization=`.
 */
const BEARER_VALUE = /\b(bearer\s+)[^\s,;"']+/gi;
const AUTHORIZATION_VALUE = /\b(authorization["']?\s*[:=]\s*["']?)(?!bearer\s)(?:(?:basic|token|digest)\s+)?[^\s,;"']+/gi;

function redactText(text: string): string {
  return text.replace(SECRET_VALUE, '[redacted]').replace(BEARER_VALUE, '$1[redacted]').replace(AUTHORIZATION_VALUE, '$1[redacted]');
}

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return '[…]';
  if (typeof value === 'string') return redactText(value);
  if (value instanceof Error) return { name: value.name, message: redact(value.message, depth + 1) };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_FIELD.test(k) ? '[redacted]' : redact(v, depth + 1);
    return out;
  }
  return value;
}

export function createLogger(opts: { level?: Level; scope?: string; sink?: (line: string) => void } = {}): Logger {
  const min = ORDER[opts.level ?? ((process.env.FLIGHTDECK_LOG_LEVEL as Level | undefined) ?? 'info')] ?? ORDER.info;
  const sink = opts.sink ?? ((line: string) => process.stderr.write(line + '\n'));
  const write = (level: Level, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < min) return;
    const scope = opts.scope ? `[${opts.scope}] ` : '';
    const extra = fields ? ' ' + JSON.stringify(redact(fields)) : '';
    sink(`${new Date().toISOString()} ${level.toUpperCase()} ${scope}${String(redact(msg))}${extra}`);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (scope) => createLogger({ ...opts, scope: opts.scope ? `${opts.scope}:${scope}` : scope }),
  };
}

/** For tests and the CLI's quiet mode. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
};
