import { isUtf8 } from 'node:buffer';

/**
 * The recent output of one terminal, bounded, addressed by stream offsets (UTF-16 code units
 * since the terminal started). A view that opens late replays `[start, end)` and then takes
 * live data from `end`, so it sees no gap and no duplicate.
 *
 * Kept as the UTF-8 batches the pty host sent (each ending on a character boundary) and
 * decoded only when a view attaches: decoding every batch as it passes would cost the main
 * process about as much as the view's parsing. Likewise a batch that is only partly out of
 * the capacity is cut (on a character boundary, which means walking its bytes) only when the
 * start is asked for: cutting at every append walked each byte of a flood once more. Whole
 * batches past the capacity are dropped at once, so what is held stays under the capacity
 * and one batch.
 */
interface Chunk {
  bytes: Uint8Array;
  /** UTF-16 code units `bytes` decode to. */
  chars: number;
  /** `bytes` is valid UTF-8 (checked once, when the batch arrives; a cut on a boundary keeps it). */
  valid: boolean;
}

// A batch may start with U+FEFF: it is a character of the output (counted, and shown by the views), not a byte order mark to drop.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * What a batch's IPC buffer may hold besides the batch (its message's other fields) for the
 * batch to be kept as it came.
 */
const SPARE_BYTES = 256;

/**
 * `received` as bytes fit to keep: the IPC channel hands out views into its read buffer, which
 * may hold other messages too, and kept in the scrollback (or cloned to a window) such a view
 * would hold all of it; that one is copied. A buffer holding little more than the batch (its own
 * message: most of a flood's batches) is kept as it is, without an allocation and a copy per
 * batch in the main process.
 */
export function standaloneBytes(received: Uint8Array): Uint8Array {
  const spare = received.buffer.byteLength - received.byteLength;
  return spare <= Math.max(SPARE_BYTES, received.byteLength >> 4) ? received : received.slice();
}

export class Scrollback {
  private chunks: Chunk[] = [];
  private size = 0;
  private startOffset = 0;

  /** Small writes (keystroke echo) are merged into the last chunk up to this size, so typing does not build a long array. */
  private static readonly MERGE_BELOW = 4096;

  /** `start`: the stream offset of the first output it will be given (0: the terminal's start). */
  constructor(
    private readonly capacity: number,
    start = 0,
  ) {
    if (!(capacity > 0)) throw new Error('scrollback capacity must be positive');
    this.startOffset = start;
  }

  get start(): number {
    this.cutHead();
    return this.startOffset;
  }

  get end(): number {
    return this.startOffset + this.size;
  }

  get length(): number {
    this.cutHead();
    return this.size;
  }

  /** `chars`: what `bytes` decode to in UTF-16 code units (see utf16-length.ts). */
  append(bytes: Uint8Array, chars: number): void {
    if (bytes.length === 0) return;
    const last = this.chunks[this.chunks.length - 1];
    const valid = isUtf8(bytes);
    // Only valid UTF-8 is merged: two valid runs decode to exactly their two texts joined.
    if (last && last.bytes.length + bytes.length <= Scrollback.MERGE_BELOW && last.valid && valid) {
      const merged = new Uint8Array(last.bytes.length + bytes.length);
      merged.set(last.bytes, 0);
      merged.set(bytes, last.bytes.length);
      last.bytes = merged;
      last.chars += chars;
    } else {
      this.chunks.push({ bytes, chars, valid });
    }
    this.size += chars;
    this.dropWhole();
  }

  /** Everything kept, as bytes (one array) starting at `start`, and how many UTF-16 code units they decode to. */
  contents(): { start: number; chars: number; bytes: Uint8Array } {
    this.cutHead();
    const total = this.chunks.reduce((n, c) => n + c.bytes.length, 0);
    const bytes = this.chunks.length === 1 ? this.chunks[0]!.bytes : new Uint8Array(total);
    if (this.chunks.length !== 1) {
      let at = 0;
      for (const c of this.chunks) {
        bytes.set(c.bytes, at);
        at += c.bytes.length;
      }
    }
    return { start: this.startOffset, chars: this.size, bytes };
  }

  /** Cuts what is past the capacity now rather than when the start is next asked for (after a large append). */
  trim(): void {
    this.cutHead();
  }

  /** Forgets everything kept; the next output given starts at stream offset `offset`. */
  restartAt(offset: number): void {
    this.chunks = [];
    this.size = 0;
    this.startOffset = offset;
  }

  /** Everything kept, as one string starting at `start`. */
  read(): string {
    this.cutHead();
    return this.chunks.map((c) => decoder.decode(c.bytes)).join('');
  }

  /**
   * What is kept from stream offset `from` on, and the offset it starts at: a view that holds the
   * output up to `from` needs only that. When `from` is not within what is kept (cut off
   * already, or past the end), everything kept, from `start`. Only the batches at or after
   * `from` are decoded.
   */
  readFrom(from: number): { data: string; start: number } {
    from = this.startFor(from);
    if (from === this.startOffset) return { data: this.read(), start: from };
    const parts: string[] = [];
    let at = this.startOffset;
    for (const c of this.chunks) {
      const next = at + c.chars;
      if (next > from) {
        const text = decoder.decode(c.bytes);
        parts.push(at >= from ? text : text.slice(from - at));
      }
      at = next;
    }
    return { data: parts.join(''), start: from };
  }

  /** Where a read from `from` starts: there when it is kept, else at `start` (`readFrom`). */
  startFor(from: number): number {
    this.cutHead();
    return from > this.startOffset && from <= this.end ? from : this.startOffset;
  }

  /** Drops the batches that are all past the capacity (no byte is looked at). */
  private dropWhole(): void {
    while (this.chunks.length > 0 && this.size - this.chunks[0]!.chars >= this.capacity) {
      this.drop(this.chunks.shift()!.chars);
    }
  }

  /** Cuts what of the first batch is past the capacity, on a character boundary. */
  private cutHead(): void {
    this.dropWhole();
    const excess = this.size - this.capacity;
    const first = this.chunks[0];
    // A chunk that is not valid UTF-8 is kept whole until all of it is excess: where its
    // characters start is the decoder's business, not ours.
    if (excess <= 0 || !first || !first.valid) return;
    // ASCII (as many units as bytes) is cut where the count says.
    const cut = first.chars === first.bytes.length ? { bytes: excess, chars: excess } : cutCharacters(first.bytes, excess);
    first.bytes = first.bytes.subarray(cut.bytes);
    first.chars -= cut.chars;
    this.drop(cut.chars);
  }

  private drop(n: number): void {
    this.size -= n;
    this.startOffset += n;
  }
}

/**
 * Where to cut valid UTF-8 so that at least `units` UTF-16 code units are dropped, on a
 * character boundary (never half of a surrogate pair): the bytes and the units dropped.
 */
function cutCharacters(bytes: Uint8Array, units: number): { bytes: number; chars: number } {
  let i = 0;
  let dropped = 0;
  while (dropped < units && i < bytes.length) {
    const b = bytes[i]!;
    const len = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    dropped += len === 4 ? 2 : 1;
    i += len;
  }
  return { bytes: i, chars: dropped };
}
