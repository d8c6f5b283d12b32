import { isAscii, isUtf8 } from 'node:buffer';

// U+FEFF at the start counts: it reaches the views as a character (see scrollback.ts).
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * How many UTF-16 code units `bytes` decode to (what stream offsets count), without building
 * the string: decoding mixed UTF-8 costs about as much as xterm's parse, and the main process
 * only needs the count. ASCII (most terminal output) is its length; other valid UTF-8 (checked
 * natively) is counted four bytes at a time: one unit per byte that is not a continuation byte,
 * one more per four-byte lead (a surrogate pair). Invalid input is decoded, so the count
 * matches the replacement characters the decoder (and every view) produces.
 */
export function utf16Length(bytes: Uint8Array): number {
  if (isAscii(bytes)) return bytes.length;
  if (!isUtf8(bytes)) return decoder.decode(bytes).length;
  const n = bytes.length;
  let i = 0;
  let count = 0;
  while (i < n && ((bytes.byteOffset + i) & 3) !== 0) count += units(bytes[i++]!);
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset + i, (n - i) >>> 2);
  for (let k = 0; k < words.length; k++) {
    const w = words[k]!;
    // Bit 7 of each byte: set where the byte is not 10xxxxxx...
    const lead = ~(w & ~(w << 1)) & 0x80808080;
    // ...and where it is 1111xxxx (a four-byte lead).
    const four = w & (w << 1) & (w << 2) & (w << 3) & 0x80808080;
    count += (Math.imul(lead >>> 7, 0x01010101) >>> 24) + (Math.imul(four >>> 7, 0x01010101) >>> 24);
  }
  for (i += words.length * 4; i < n; i++) count += units(bytes[i]!);
  return count;
}

function units(b: number): number {
  return (b & 0xc0) === 0x80 ? 0 : b >= 0xf0 ? 2 : 1;
}
