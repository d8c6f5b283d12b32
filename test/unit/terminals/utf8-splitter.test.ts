import { describe, expect, it } from 'vitest';
import { completeLength, Utf8Splitter } from '../../../src-main/terminals/utf8-splitter';

const SAMPLES = ['a', 'é', '€', '日', '😀', '𝔘', 'aé€😀b', 'x日本語🚀y'];

function roundTrip(chunks: Uint8Array[]): string {
  const s = new Utf8Splitter();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let out = '';
  for (const c of chunks) out += decoder.decode(s.write(c));
  return out + decoder.decode(s.flush());
}

describe('Utf8Splitter', () => {
  it('never hands on a partial character, at every split point of every sample', () => {
    for (const text of SAMPLES) {
      const bytes = Buffer.from(text);
      for (let cut = 0; cut <= bytes.length; cut++) {
        // fatal: true makes a split character throw instead of becoming U+FFFD.
        expect(roundTrip([bytes.subarray(0, cut), bytes.subarray(cut)])).toBe(text);
      }
    }
  });

  it('survives a stream fed one byte at a time and every pair of split points', () => {
    const text = SAMPLES.join('|');
    const bytes = Buffer.from(text);
    expect(roundTrip([...bytes].map((b) => Uint8Array.of(b)))).toBe(text);
    for (let i = 0; i <= bytes.length; i++) {
      for (let j = i; j <= bytes.length; j++) {
        expect(roundTrip([bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)])).toBe(text);
      }
    }
  });

  it('holds back at most three bytes and passes invalid bytes on instead of hoarding them', () => {
    const s = new Utf8Splitter();
    expect(s.write(Uint8Array.of(0xf0, 0x9f, 0x98)).length).toBe(0);
    expect(s.pending).toBe(3);
    expect([...s.write(Uint8Array.of(0x80))]).toEqual([0xf0, 0x9f, 0x98, 0x80]);
    // Lone continuation bytes and impossible lead bytes are not characters in progress.
    expect(completeLength(Uint8Array.of(0x61, 0x80, 0x80, 0x80, 0x80))).toBe(5);
    expect(completeLength(Uint8Array.of(0x61, 0xff))).toBe(2);
    expect(completeLength(Uint8Array.of(0x61, 0xc3))).toBe(1);
    expect(completeLength(new Uint8Array(0))).toBe(0);
  });

  it('decodes an incomplete character at the very end as a replacement character, not silence', () => {
    const s = new Utf8Splitter();
    const out = new TextDecoder().decode(s.write(Uint8Array.of(0x61, 0xe2, 0x82)));
    const rest = new TextDecoder().decode(s.flush());
    expect(out).toBe('a');
    expect(rest).toBe('\uFFFD');
  });
});
