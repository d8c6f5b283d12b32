import { isUtf8 } from 'node:buffer';

/**
 * The recent output of one terminal, bounded, addressed by stream offsets (UTF-16 code units
 * since the terminal started). A view that opens late replays `[start, end)` and then takes
 * live data from `end`, so it sees no gap and no duplicate.
 *
 * Kept as the UTF-8 batches the pty host sent (each ending on a character boundary) and
 * decoded only when a view attaches: decoding every batch as it passes would cost the main
 * process about as much as the view's parsing.
 */
interface Chunk {
  bytes: Uint8Array;
  /** UTF-16 code units `bytes` decode to. */
  chars: number;
  /** `bytes` is valid UTF-8 (checked once, when the batch arrives; a cut on a boundary keeps it). */
  valid: boolean;
}

const decoder = new TextDecoder('utf-8');

export class Scrollback {
  private chunks: Chunk[] = [];
  private size = 0;
  private startOffset = 0;

  /** Small writes (keystroke echo) are merged into the last chunk up to this size, so typing does not build a long array. */
  private static readonly MERGE_BELOW = 4096;

  constructor(private readonly capacity: number) {
    if (!(capacity > 0)) throw new Error('scrollback capacity must be positive');
  }

  get start(): number {
    return this.startOffset;
  }

  get end(): number {
    return this.startOffset + this.size;
  }

  get length(): number {
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
    this.trim();
  }

  /** Everything kept, as one string starting at `start`. */
  read(): string {
    return this.chunks.map((c) => decoder.decode(c.bytes)).join('');
  }

  private trim(): void {
    let excess = this.size - this.capacity;
    while (excess > 0) {
      const first = this.chunks[0]!;
      if (first.chars <= excess) {
        this.chunks.shift();
        this.drop(first.chars);
        excess -= first.chars;
        continue;
      }
      // A chunk that is not valid UTF-8 is kept whole until all of it is excess: where its
      // characters start is the decoder's business, not ours.
      if (!first.valid) return;
      const cut = cutCharacters(first.bytes, excess);
      first.bytes = first.bytes.subarray(cut.bytes);
      first.chars -= cut.chars;
      this.drop(cut.chars);
      excess = 0;
    }
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
