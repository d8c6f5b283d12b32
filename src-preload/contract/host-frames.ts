/**
 * The browser-mode client's reading of the host's JSON frames, without zod: the transport is on
 * the UI's first load, and zod with the contract's schemas would be a third of what that load
 * runs before its first request (docs/performance-board.md). It accepts exactly what wire.ts's
 * HostFrame schema accepts (host-frames.test.ts holds the two together); an accepted frame comes
 * back as it was read, keys the schema does not know included (the schema would drop them).
 */
import { ERROR_CODES } from './error-codes';
import type { HostFrame } from './wire';

/** Where a browser opens its direct terminal output socket (`?ticket=` from a `direct` frame). */
export const DIRECT_SOCKET_PATH = '/ws-terminal';

const CODES: ReadonlySet<string> = new Set(ERROR_CODES);

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const optionalString = (v: unknown) => v === undefined || isString(v);
const sized = (v: unknown, min: number, max: number) => isString(v) && v.length >= min && v.length <= max;

function isErrorShape(v: unknown): boolean {
  return isObject(v) && isString(v.code) && CODES.has(v.code) && isString(v.message) && (v.details === undefined || isObject(v.details));
}

function isResult(v: unknown): boolean {
  if (!isObject(v)) return false;
  // The value may be anything but must be there (the schema's z.unknown() key is required).
  if (v.ok === true) return 'value' in v;
  return v.ok === false && isErrorShape(v.error);
}

/** The frame in `value` (a parsed JSON text), or null when it is not one the host sends. */
export function readHostFrame(value: unknown): HostFrame | null {
  if (!isObject(value)) return null;
  const f = value;
  let ok: boolean;
  switch (f.type) {
    case 'result':
      // zod's int() is a safe integer.
      ok = typeof f.id === 'number' && Number.isSafeInteger(f.id) && isResult(f.result);
      break;
    case 'event':
      ok = isString(f.topic) && optionalString(f.key) && 'payload' in f;
      break;
    case 'refused':
      ok = optionalString(f.topic) && optionalString(f.key) && isErrorShape(f.error);
      break;
    case 'direct':
      ok = sized(f.ticket, 1, 100);
      break;
    case 'directLost':
      ok = true;
      break;
    case 'directRouted':
      ok = sized(f.key, 1, 200);
      break;
    default:
      ok = false;
  }
  return ok ? (f as HostFrame) : null;
}
