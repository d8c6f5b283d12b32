/**
 * Keystrokes on browser mode's direct socket (terminal-frames.ts): what the pty host accepts is
 * exactly what the bridge accepts for `terminals.write`, and nothing else decodes.
 */
import { describe, expect, it } from 'vitest';
import { requests } from '../../../src-preload/contract';
import {
  decodeTerminalInputFrame,
  encodeTerminalDataFrame,
  encodeTerminalInputFrame,
  splitTerminalInput,
  TERMINAL_INPUT_FRAME_MAX_BYTES,
  TERMINAL_MAX_INPUT_CHARS,
} from '../../../src-preload/contract/terminal-frames';

const id = 'term-0123456789abcdef';

/** An input frame with the given id bytes and body bytes, built by hand. */
function frame(idBytes: Uint8Array, body: Uint8Array, kind = 2): Uint8Array {
  const out = new Uint8Array(3 + idBytes.length + body.length);
  out[0] = kind;
  new DataView(out.buffer).setUint16(1, idBytes.length, true);
  out.set(idBytes, 3);
  out.set(body, 3 + idBytes.length);
  return out;
}
const utf8 = (s: string) => new TextEncoder().encode(s);

describe('terminal input frames', () => {
  it('carry any text the bridge accepts, byte for byte, up to the largest write', () => {
    // U+FEFF is a character here, not a byte order mark to drop (alone or leading a paste's piece).
    const texts = ['a', '\r', '\x03', 'é日本😀', '\x1b[A', '\uFEFF', '\uFEFFabc', 'x'.repeat(TERMINAL_MAX_INPUT_CHARS), '日'.repeat(TERMINAL_MAX_INPUT_CHARS)];
    for (const data of texts) {
      expect(requests['terminals.write'].input.safeParse({ id, data }).success).toBe(true);
      const f = encodeTerminalInputFrame(id, data);
      expect(f.length).toBeLessThanOrEqual(TERMINAL_INPUT_FRAME_MAX_BYTES);
      expect(decodeTerminalInputFrame(f)).toEqual({ key: id, data });
      // A view into a larger buffer (what ws hands over) decodes the same.
      const inBuffer = new Uint8Array(f.length + 10);
      inBuffer.set(f, 5);
      expect(decodeTerminalInputFrame(inBuffer.subarray(5, 5 + f.length))).toEqual({ key: id, data });
    }
  });

  it('refuse what the bridge refuses and anything malformed', () => {
    const refused: Array<[string, Uint8Array]> = [
      ['empty frame', new Uint8Array(0)],
      ['header only', new Uint8Array([2, 0])],
      ['no input', frame(utf8(id), new Uint8Array(0))],
      ['output kind', encodeTerminalDataFrame(id, 0, 1, utf8('a'))],
      ['unknown kind', frame(utf8(id), utf8('a'), 7)],
      ['not a terminal id', frame(utf8('../etc'), utf8('a'))],
      ['id of another kind', frame(utf8('att-0123456789abcdef'), utf8('a'))],
      ['empty id', frame(new Uint8Array(0), utf8('a'))],
      ['id longer than the frame', (() => { const f = frame(utf8(id), utf8('a')); new DataView(f.buffer).setUint16(1, 500, true); return f; })()],
      ['invalid UTF-8', frame(utf8(id), new Uint8Array([0x61, 0xff, 0x62]))],
      ['a cut character', frame(utf8(id), utf8('日').subarray(0, 2))],
      ['too long', frame(utf8(id), utf8('x'.repeat(TERMINAL_MAX_INPUT_CHARS + 1)))],
    ];
    for (const [what, f] of refused) expect(decodeTerminalInputFrame(f), what).toBeNull();
    // The same limits at the bridge.
    expect(requests['terminals.write'].input.safeParse({ id, data: 'x'.repeat(TERMINAL_MAX_INPUT_CHARS + 1) }).success).toBe(false);
    expect(requests['terminals.write'].input.safeParse({ id: '../etc', data: 'a' }).success).toBe(false);
  });

  it('split a long paste into pieces the bridge takes, never inside a surrogate pair', () => {
    expect(splitTerminalInput('')).toEqual([]);
    expect(splitTerminalInput('abc')).toEqual(['abc']);
    expect(splitTerminalInput('abcdef', 2)).toEqual(['ab', 'cd', 'ef']);
    // The pair would straddle the cut at 3: the piece ends before it.
    expect(splitTerminalInput('ab😀cd', 3)).toEqual(['ab', '😀c', 'd']);
    const paste = `${'x'.repeat(TERMINAL_MAX_INPUT_CHARS - 1)}😀${'y'.repeat(10)}`;
    const pieces = splitTerminalInput(paste);
    expect(pieces.join('')).toBe(paste);
    expect(pieces.map((p) => p.length)).toEqual([TERMINAL_MAX_INPUT_CHARS - 1, 12]);
    for (const p of pieces) expect(decodeTerminalInputFrame(encodeTerminalInputFrame(id, p))).toEqual({ key: id, data: p });
  });
});
