/**
 * The recent output of one terminal, bounded, addressed by stream offsets (UTF-16 code units
 * since the terminal started). A view that opens late replays `[start, end)` and then takes
 * live data from `end`, so it sees no gap and no duplicate.
 */
export class Scrollback {
  private chunks: string[] = [];
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

  append(data: string): void {
    if (data.length === 0) return;
    const last = this.chunks.length - 1;
    if (last >= 0 && this.chunks[last]!.length + data.length <= Scrollback.MERGE_BELOW) this.chunks[last] += data;
    else this.chunks.push(data);
    this.size += data.length;
    this.trim();
  }

  /** Everything kept, as one string starting at `start`. */
  read(): string {
    if (this.chunks.length > 1) this.chunks = [this.chunks.join('')];
    return this.chunks[0] ?? '';
  }

  private trim(): void {
    let excess = this.size - this.capacity;
    while (excess > 0) {
      const first = this.chunks[0]!;
      if (first.length <= excess) {
        this.chunks.shift();
        this.drop(first.length);
        excess -= first.length;
        continue;
      }
      let cut = excess;
      // Never start the kept text with the second half of a surrogate pair.
      const code = first.charCodeAt(cut);
      if (code >= 0xdc00 && code <= 0xdfff) cut++;
      this.chunks[0] = first.slice(cut);
      this.drop(cut);
      excess = 0;
    }
  }

  private drop(n: number): void {
    this.size -= n;
    this.startOffset += n;
  }
}
