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
 *
 * Browser mode's direct socket also carries keystrokes the other way, from the view to the pty
 * host (see src-main/terminals/pty-host/direct-sockets.ts):
 *   u8   kind (2 = terminal input)
 *   u16  length of the terminal id, then the id (ASCII)
 *   ...  the input, UTF-8 (1 to TERMINAL_MAX_INPUT_CHARS UTF-16 code units once decoded)
 */
export const TERMINAL_DATA_FRAME = 1;
export const TERMINAL_INPUT_FRAME = 2;

/** What a terminal id looks like (the contract's TerminalId): checked here without zod, in the pty host too. */
export const TERMINAL_ID_PATTERN = /^term-[a-z0-9]{6,40}$/;
/** One input write; a larger paste is split by the client. Far above any typed burst. */
export const TERMINAL_MAX_INPUT_CHARS = 64 * 1024;

/** A terminal id is short ASCII (TerminalId in terminals.ts); anything longer is not ours. */
const MAX_KEY_BYTES = 200;
const FIXED_HEADER = 1 + 2 + 8 + 8;

const INPUT_HEADER = 1 + 2;
/** Every UTF-16 code unit encodes to at most 3 UTF-8 bytes (a surrogate pair: 4 for 2). */
export const TERMINAL_INPUT_FRAME_MAX_BYTES = INPUT_HEADER + MAX_KEY_BYTES + 3 * TERMINAL_MAX_INPUT_CHARS;

const encoder = new TextEncoder();
// A leading U+FEFF is a character of the terminal's text like any other, not a byte order mark to drop.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
/** Input is text the client encoded: invalid UTF-8 is not ours, and is refused rather than repaired. */
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

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

/**
 * Input in pieces of at most `max` UTF-16 code units (a long paste), never between the two
 * halves of a surrogate pair: each half alone would reach the pty as U+FFFD.
 */
export function splitTerminalInput(data: string, max = TERMINAL_MAX_INPUT_CHARS): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < data.length; ) {
    let end = Math.min(data.length, i + max);
    const code = data.charCodeAt(end - 1);
    if (end < data.length && end - i > 1 && code >= 0xd800 && code <= 0xdbff) end--;
    pieces.push(data.slice(i, end));
    i = end;
  }
  return pieces;
}

/** A keystroke (or a piece of a paste) for terminal `key`, from the view to the pty host. */
export function encodeTerminalInputFrame(key: string, data: string): Uint8Array {
  const id = keyBytes(key);
  const text = encoder.encode(data);
  const out = new Uint8Array(INPUT_HEADER + id.length + text.length);
  out[0] = TERMINAL_INPUT_FRAME;
  new DataView(out.buffer).setUint16(1, id.length, true);
  out.set(id, INPUT_HEADER);
  out.set(text, INPUT_HEADER + id.length);
  return out;
}

/**
 * Null for anything that is not a well-formed input frame: another kind, a key that is not a
 * terminal id, no input, more than TERMINAL_MAX_INPUT_CHARS, or bytes that are not UTF-8.
 */
export function decodeTerminalInputFrame(frame: Uint8Array): { key: string; data: string } | null {
  if (frame.length < INPUT_HEADER || frame[0] !== TERMINAL_INPUT_FRAME) return null;
  const idLength = new DataView(frame.buffer, frame.byteOffset, frame.byteLength).getUint16(1, true);
  const bodyAt = INPUT_HEADER + idLength;
  if (idLength === 0 || idLength > MAX_KEY_BYTES || bodyAt >= frame.length) return null;
  const key = decoder.decode(frame.subarray(INPUT_HEADER, bodyAt));
  if (!TERMINAL_ID_PATTERN.test(key)) return null;
  let data: string;
  try {
    data = strictDecoder.decode(frame.subarray(bodyAt));
  } catch {
    return null;
  }
  if (data.length === 0 || data.length > TERMINAL_MAX_INPUT_CHARS) return null;
  return { key, data };
}
