/**
 * Holds back the bytes of a UTF-8 character that a read cut in two, so every chunk handed on
 * decodes without a replacement character (Tabby's UTF8Splitter). Pure: no Node APIs beyond
 * Uint8Array, unit-tested with every split point.
 */
export class Utf8Splitter {
  private carry: Uint8Array = new Uint8Array(0);

  /** Returns the complete characters of `carry + chunk`; keeps an incomplete tail for the next call. */
  write(chunk: Uint8Array): Uint8Array {
    const data = this.carry.length === 0 ? chunk : concat(this.carry, chunk);
    const cut = completeLength(data);
    this.carry = cut === data.length ? new Uint8Array(0) : data.slice(cut);
    return cut === data.length ? data : data.subarray(0, cut);
  }

  /** What is left at the end of the stream (an incomplete character, decoded as U+FFFD by the caller). */
  flush(): Uint8Array {
    const rest = this.carry;
    this.carry = new Uint8Array(0);
    return rest;
  }

  get pending(): number {
    return this.carry.length;
  }
}

/**
 * The length of the longest prefix that does not end inside a multi-byte sequence. Only the
 * last three bytes can start an unfinished sequence; invalid bytes are passed on as they are
 * (the decoder replaces them), so garbage can never be held back forever.
 */
export function completeLength(data: Uint8Array): number {
  const n = data.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = data[n - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const need = b >= 0xf8 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
