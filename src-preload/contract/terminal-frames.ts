/**
 * Terminal output as bytes end to end. The pty's UTF-8 crosses from the pty host to the view
 * without being decoded on the way: in browser mode as a binary WebSocket frame (the bytes as
 * they came behind a small header — no JSON, no escaping, no second encoding of the text), and
 * xterm.js parses the bytes itself. Everything else on the socket stays JSON (see wire.ts).
 * Runtime-free: used by the host to encode and by the renderer's transport to decode.
 *
 * Layout (little-endian):
 *   u8   kind (1 = terminal output)
 *   u16  length of the terminal id, then the id (ASCII)
 *   f64  offset of the first character in the terminal's stream (UTF-16 code units)
 *   f64  how many UTF-16 code units the output decodes to (offsets and acks count those)
 *   ...  the output, UTF-8, ending on a character boundary
 */
export const TERMINAL_DATA_FRAME = 1;

/** A terminal id is short ASCII (TerminalId in terminals.ts); anything longer is not ours. */
const MAX_KEY_BYTES = 200;
const FIXED_HEADER = 1 + 2 + 8 + 8;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

/**
 * A `terminals.data` payload that carries the output as bytes. `data` (the contract's field)
 * is decoded on first use only, so a view that hands the bytes to xterm never pays for it.
 */
export interface TerminalDataBytes {
  readonly offset: number;
  /** UTF-16 code units `bytes` decode to. */
  readonly length: number;
  readonly bytes: Uint8Array;
  readonly data: string;
}

export function terminalDataFromBytes(offset: number, length: number, bytes: Uint8Array): TerminalDataBytes {
  let text: string | null = null;
  const p = { offset, length, bytes } as TerminalDataBytes;
  // Enumerable and own, so a structured clone (Electron IPC) carries the text too.
  Object.defineProperty(p, 'data', { enumerable: true, get: () => (text ??= decoder.decode(bytes)) });
  return p;
}

/** Whether a `terminals.data` payload carries bytes (otherwise it has the text only). */
export function hasBytes(p: { offset: number; data: string }): p is TerminalDataBytes {
  const b = (p as Partial<TerminalDataBytes>).bytes;
  return b instanceof Uint8Array && typeof (p as Partial<TerminalDataBytes>).length === 'number';
}

/** Terminal ids are ASCII: copied byte by byte (TextEncoder costs more than the rest of a frame). */
function keyBytes(key: string): Uint8Array {
  const out = new Uint8Array(key.length);
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c > 0x7f) return encoder.encode(key);
    out[i] = c;
  }
  return out;
}

export function encodeTerminalDataFrame(key: string, offset: number, length: number, utf8: Uint8Array): Uint8Array {
  const id = keyBytes(key);
  const head = FIXED_HEADER + id.length;
  const out = new Uint8Array(head + utf8.length);
  const view = new DataView(out.buffer);
  out[0] = TERMINAL_DATA_FRAME;
  view.setUint16(1, id.length, true);
  out.set(id, 3);
  view.setFloat64(3 + id.length, offset, true);
  view.setFloat64(11 + id.length, length, true);
  out.set(utf8, head);
  return out;
}

/** Null for anything that is not a well-formed terminal output frame (it is then ignored). */
export function decodeTerminalDataFrame(frame: ArrayBuffer | Uint8Array): { key: string; payload: TerminalDataBytes } | null {
  const bytes = frame instanceof Uint8Array ? frame : new Uint8Array(frame);
  if (bytes.length < FIXED_HEADER || bytes[0] !== TERMINAL_DATA_FRAME) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const idLength = view.getUint16(1, true);
  if (idLength === 0 || idLength > MAX_KEY_BYTES || FIXED_HEADER + idLength > bytes.length) return null;
  const key = decoder.decode(bytes.subarray(3, 3 + idLength));
  const offset = view.getFloat64(3 + idLength, true);
  const length = view.getFloat64(11 + idLength, true);
  const body = bytes.subarray(FIXED_HEADER + idLength);
  if (!Number.isSafeInteger(offset) || offset < 0) return null;
  // Every UTF-8 byte decodes to at most one UTF-16 unit, and only an empty body to none.
  if (!Number.isSafeInteger(length) || length < 0 || length > body.length || (length === 0) !== (body.length === 0)) return null;
  return { key, payload: terminalDataFromBytes(offset, length, body) };
}
