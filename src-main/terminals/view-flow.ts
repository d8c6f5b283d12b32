import { FLOW_STALLED_VIEW_MS, FLOW_WINDOW_MIN_BYTES } from './constants';

interface View {
  readonly connectionId: string;
  /** Stream offset up to which this view has parsed the output. */
  acked: number;
  lastAckAt: number;
  stalled: boolean;
}

/**
 * The views (attachments) watching one terminal and how far each has parsed. Several windows or
 * browser tabs may watch the same terminal; the pty is governed by the slowest *live* one, so:
 * a view whose connection closed is dropped at once, a view that reattaches replaces its old
 * attachment (force-resume after a reload), and a view that stops acknowledging while far
 * behind is set aside as stalled instead of freezing the terminal for everyone.
 */
export class ViewFlow {
  private readonly views = new Map<string, View>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly stalledMs = FLOW_STALLED_VIEW_MS,
  ) {}

  get size(): number {
    return this.views.size;
  }

  has(attachmentId: string, connectionId?: string): boolean {
    const v = this.views.get(attachmentId);
    return v !== undefined && (connectionId === undefined || v.connectionId === connectionId);
  }

  /** A new view starts owing nothing: it got everything up to `end` as scrollback. */
  attach(attachmentId: string, connectionId: string, end: number): void {
    for (const [id, v] of this.views) if (v.connectionId === connectionId) this.views.delete(id);
    this.views.set(attachmentId, { connectionId, acked: end, lastAckAt: this.now(), stalled: false });
  }

  detach(attachmentId: string): boolean {
    return this.views.delete(attachmentId);
  }

  /** The connections with a view of this terminal. */
  connections(): Set<string> {
    return new Set([...this.views.values()].map((v) => v.connectionId));
  }

  /** Whether a view of this connection watches the terminal. */
  hasConnection(connectionId: string): boolean {
    for (const v of this.views.values()) if (v.connectionId === connectionId) return true;
    return false;
  }

  dropConnection(connectionId: string): boolean {
    let dropped = false;
    for (const [id, v] of this.views) {
      if (v.connectionId === connectionId) {
        this.views.delete(id);
        dropped = true;
      }
    }
    return dropped;
  }

  /**
   * Counts `chars` as parsed, clamped to what was sent (a confused client cannot push it past
   * `end + ahead`). `ahead`: how far a view may legitimately be past `end` — one fed by the pty
   * host's direct socket can parse (and acknowledge) output this process has not received yet.
   */
  ack(attachmentId: string, chars: number, end: number, ahead = 0): boolean {
    const v = this.views.get(attachmentId);
    if (!v) return false;
    v.lastAckAt = this.now();
    if (v.stalled) {
      // Back from a stall: it governs again from here on, not from where it fell behind; a view
      // fed by the direct socket may be past `end`, and keeps that lead (later acks only add on).
      v.stalled = false;
      v.acked = Math.min(end + ahead, Math.max(end, v.acked + chars));
    } else {
      v.acked = Math.min(end + ahead, v.acked + chars);
    }
    return true;
  }

  /** Where the slowest live view is; `null` when no view is live (no flow control then). */
  consumed(): number | null {
    let min: number | null = null;
    for (const v of this.views.values()) if (!v.stalled && (min === null || v.acked < min)) min = v.acked;
    return min;
  }

  unacked(end: number): number {
    const c = this.consumed();
    return c === null ? 0 : Math.max(0, end - c);
  }

  /** Sets aside views far behind that have not acknowledged for a while. Returns whether any was. */
  markStalled(end: number): boolean {
    const now = this.now();
    let changed = false;
    for (const v of this.views.values()) {
      if (!v.stalled && end - v.acked > FLOW_WINDOW_MIN_BYTES && now - v.lastAckAt >= this.stalledMs) {
        v.stalled = true;
        changed = true;
      }
    }
    return changed;
  }
}
