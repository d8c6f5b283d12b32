/**
 * What runCommand returns of a command's output: everything when it fits in the cap, otherwise
 * the first and the last halves with a marker between them (an agent needs both the command's
 * start and its final error). Counted in UTF-8 bytes, the unit callers think in.
 */
export class OutputCapture {
  private head = '';
  private headBytes = 0;
  private tail: string[] = [];
  private tailBytes = 0;
  private omittedBytes = 0;
  private total = 0;

  constructor(private readonly capBytes: number) {}

  get truncated(): boolean {
    return this.omittedBytes > 0 || this.headBytes + this.tailBytes > this.capBytes;
  }

  get totalBytes(): number {
    return this.total;
  }

  append(data: string): void {
    const bytes = Buffer.byteLength(data);
    this.total += bytes;
    const half = Math.floor(this.capBytes / 2);
    if (this.omittedBytes === 0 && this.headBytes + this.tailBytes + bytes <= this.capBytes) {
      // Still under the cap: keep it all (in the tail, moved to the head below when needed).
      this.tail.push(data);
      this.tailBytes += bytes;
      return;
    }
    if (this.headBytes === 0 && this.omittedBytes === 0) {
      // First overflow: fix the head from what we have.
      const all = this.tail.join('') + data;
      this.head = sliceBytes(all, 0, half);
      this.headBytes = Buffer.byteLength(this.head);
      const rest = all.slice(this.head.length);
      this.tail = [rest];
      this.tailBytes = Buffer.byteLength(rest);
    } else {
      this.tail.push(data);
      this.tailBytes += bytes;
    }
    // Trimming copies the tail, so it waits until the tail is twice what is kept (amortized O(1) per byte).
    if (this.tailBytes > 2 * (this.capBytes - this.headBytes)) this.trimTail();
  }

  private trimTail(): void {
    const keep = this.capBytes - this.headBytes;
    if (this.tailBytes <= keep) return;
    const buf = Buffer.from(this.tail.join(''));
    let from = buf.length - keep;
    // Start on a character boundary.
    while (from < buf.length && (buf[from]! & 0xc0) === 0x80) from++;
    this.omittedBytes += from;
    this.tail = [buf.subarray(from).toString('utf8')];
    this.tailBytes = buf.length - from;
  }

  /** The captured text; CRLF (the terminal's line ending) becomes LF for the reader. */
  text(): string {
    this.trimTail();
    const tail = this.tail.join('');
    const body = this.omittedBytes > 0 ? `${this.head}\n… [${this.omittedBytes} bytes of output omitted] …\n${tail}` : this.head + tail;
    return body.replace(/\r\n/g, '\n');
  }
}

/** The longest prefix of `s` from `start` that fits in `maxBytes` UTF-8 bytes, on a character boundary. */
function sliceBytes(s: string, start: number, maxBytes: number): string {
  const buf = Buffer.from(s.slice(start));
  if (buf.length <= maxBytes) return s.slice(start);
  let end = maxBytes;
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}
