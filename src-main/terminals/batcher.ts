import { BATCH_FLUSH_MS, BATCH_IMMEDIATE_BYTES, BATCH_IMMEDIATE_WRITES, BATCH_MAX_BYTES } from './constants';

export interface BatcherOptions {
  flushMs?: number;
  maxBytes?: number;
  /** Writes per window that may go at once while nothing is gathered (the window's first included). */
  immediateWrites?: number;
  /** …as long as the window has passed on no more than this many bytes at once. */
  immediateBytes?: number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (t: unknown) => void;
}

/**
 * Collects one terminal's output and hands it on in batches (Hyper's DataBatcher, VS Code's
 * TerminalDataBufferer). The first write after a quiet period goes out at once — a keystroke
 * echo never waits for a timer — and opens a short window during which further writes are
 * gathered; a batch that reaches the size cap goes out immediately.
 *
 * A window opened by something small is not yet a burst: while nothing is gathered, a few more
 * small writes go out at once too (the echo of the next keystroke of fast typing, the prompt
 * after an echoed Enter), so they do not wait for the window opened by the write before them.
 * Once the window has passed on `immediateWrites` writes or `immediateBytes` bytes, the rest is
 * gathered as before.
 */
export class DataBatcher {
  private parts: Uint8Array[] = [];
  private bytes = 0;
  private timer: unknown = null;
  /** Writes and bytes the open window has passed on at once. */
  private windowWrites = 0;
  private windowBytes = 0;
  private readonly flushMs: number;
  private readonly maxBytes: number;
  private readonly immediateWrites: number;
  private readonly immediateBytes: number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (t: unknown) => void;

  constructor(
    private readonly emit: (data: Uint8Array) => void,
    opts: BatcherOptions = {},
  ) {
    this.flushMs = opts.flushMs ?? BATCH_FLUSH_MS;
    this.maxBytes = opts.maxBytes ?? BATCH_MAX_BYTES;
    this.immediateWrites = opts.immediateWrites ?? BATCH_IMMEDIATE_WRITES;
    this.immediateBytes = opts.immediateBytes ?? BATCH_IMMEDIATE_BYTES;
    this.setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = opts.clearTimer ?? ((t) => clearTimeout(t as NodeJS.Timeout));
  }

  /** Bytes gathered and not yet emitted. */
  get pending(): number {
    return this.bytes;
  }

  /**
   * `urgent`: output answering input (the echo of a keystroke): it goes out at once, after
   * whatever is gathered, window or not; the window stays as it is. One per input at most, so it
   * cannot turn a burst into many small frames.
   */
  write(data: Uint8Array, urgent = false): void {
    if (data.length === 0) return;
    if (urgent && this.timer !== null) {
      this.flush();
      this.emit(data);
      return;
    }
    if (this.timer === null) {
      // Fast path: nothing is being gathered, so this is the start of a burst (or a lone echo).
      this.windowWrites = 1;
      this.windowBytes = data.length;
      this.emit(data);
      this.openWindow();
      return;
    }
    if (this.bytes === 0 && this.windowWrites < this.immediateWrites && this.windowBytes + data.length <= this.immediateBytes) {
      // Still small and nothing gathered: not a burst yet, and nothing of this terminal is held back.
      this.windowWrites++;
      this.windowBytes += data.length;
      this.emit(data);
      return;
    }
    this.parts.push(data);
    this.bytes += data.length;
    if (this.bytes >= this.maxBytes) this.flush();
  }

  /** Emits what is gathered now (also used before an exit so no output is lost). */
  flush(): void {
    if (this.bytes === 0) return;
    // Something was gathered: this window is a burst, and so is the next one it opens.
    this.windowWrites = this.immediateWrites;
    const out = this.parts.length === 1 ? this.parts[0]! : concatAll(this.parts, this.bytes);
    this.parts = [];
    this.bytes = 0;
    this.emit(out);
  }

  dispose(): void {
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
    this.parts = [];
    this.bytes = 0;
  }

  private openWindow(): void {
    this.timer = this.setTimer(() => {
      this.timer = null;
      if (this.bytes > 0) {
        // Still flooding: keep gathering rather than fast-pathing the next read.
        this.flush();
        this.openWindow();
      }
    }, this.flushMs);
  }
}

function concatAll(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
