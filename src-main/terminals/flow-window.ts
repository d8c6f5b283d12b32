import { FLOW_TARGET_LAG_MS, FLOW_WINDOW_MAX_BYTES, FLOW_WINDOW_MIN_BYTES } from './constants';

export interface FlowWindowOptions {
  min?: number;
  max?: number;
  targetLagMs?: number;
  now?: () => number;
}

/**
 * Adaptive flow control for one pty (replaces VS Code's fixed 100k/5k watermarks, which with
 * 128 KB batches paused the pty after every batch and let the whole path run dry before each
 * resume: about 500 pauses per 50 MB, the view idle for a round trip each time).
 *
 * The pty may run ahead of the slowest view by `window` bytes. It is paused above the window
 * and resumed below half of it, so the view always has half a window left to parse while the
 * next data travels: the pipe stays full. The window itself follows the view: each time the
 * pty was paused, how fast the view drained the backlog is measured, and the window becomes
 * what the view parses in `targetLagMs` (clamped). A fast view gets a large window (few
 * pauses); a slow one (a busy tab) a small one, so Ctrl+C still shows its effect quickly and
 * little output is held in flight.
 */
export class FlowWindow {
  private size: number;
  private readonly min: number;
  private readonly max: number;
  private readonly targetLagMs: number;
  private readonly now: () => number;
  private pause: { at: number; consumed: number } | null = null;

  constructor(opts: FlowWindowOptions = {}) {
    this.min = opts.min ?? FLOW_WINDOW_MIN_BYTES;
    this.max = opts.max ?? FLOW_WINDOW_MAX_BYTES;
    this.targetLagMs = opts.targetLagMs ?? FLOW_TARGET_LAG_MS;
    this.now = opts.now ?? (() => performance.now());
    this.size = this.min;
  }

  /** Bytes the pty may be ahead of the slowest view before it is paused. */
  get window(): number {
    return this.size;
  }

  /** Below this the pty is resumed. */
  get resumeBelow(): number {
    return Math.floor(this.size / 2);
  }

  shouldPause(unacked: number): boolean {
    return unacked > this.size;
  }

  shouldResume(unacked: number): boolean {
    return unacked < this.resumeBelow;
  }

  /** The pty was paused with the slowest view at `consumed` (a stream offset). */
  paused(consumed: number): void {
    this.pause = { at: this.now(), consumed };
  }

  /** The pty resumes with the slowest view at `consumed`: the drain rate since the pause sizes the window. */
  resumed(consumed: number): void {
    const p = this.pause;
    this.pause = null;
    if (!p) return;
    const drained = consumed - p.consumed;
    const ms = this.now() - p.at;
    if (drained <= 0) return;
    // Under a millisecond the clock says little: the view is at least that fast, so grow.
    const rate = drained / Math.max(ms, 1);
    this.size = Math.max(this.min, Math.min(this.max, Math.round(rate * this.targetLagMs)));
  }

  /** Nobody governs the pty any more (no live view): the next view starts from the small window. */
  reset(): void {
    this.pause = null;
    this.size = this.min;
  }
}
