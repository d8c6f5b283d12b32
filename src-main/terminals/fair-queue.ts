/**
 * Frames from many terminals sharing one ordered channel (the pty host's IPC channel, one
 * browser's WebSocket). Without care a flooding terminal fills the channel and a quiet
 * terminal's keystroke echo waits behind megabytes of someone else's output. So:
 *
 * - each terminal (lane) has its own FIFO, and lanes take turns (round robin), one frame each;
 * - at most `maxInFlight` bytes are handed to the channel and not yet written out, so what a
 *   frame can wait behind is bounded;
 * - a small frame (an echo, a status) of a lane with nothing queued skips the budget and goes
 *   at once — it can only ever be behind what is already in flight.
 *
 * Frames of one lane always leave in the order they were pushed. Pure: the channel is the
 * `transmit` function, which calls `done` once the frame is written out.
 */
export interface FairQueueOptions {
  /** Bytes handed to the channel and not yet written before the queue holds frames back. */
  maxInFlight: number;
  /** Frames below this size of an idle lane bypass the budget (input echo, control messages). */
  smallBelow: number;
}

interface Queued<T> {
  item: T;
  size: number;
}

export class FairQueue<T> {
  /** Lanes with something queued, in turn order (a Map keeps insertion order). */
  private readonly lanes = new Map<string, Queued<T>[]>();
  private inFlight = 0;
  private queued = 0;
  private disposed = false;

  constructor(
    private readonly transmit: (item: T, done: () => void) => void,
    private readonly opts: FairQueueOptions,
  ) {}

  /** Bytes handed to the channel and not yet written out. */
  get inFlightBytes(): number {
    return this.inFlight;
  }

  /** Bytes held here, waiting for their turn. */
  get queuedBytes(): number {
    return this.queued;
  }

  /** Bytes queued for one lane. */
  laneBytes(lane: string): number {
    let n = 0;
    for (const q of this.lanes.get(lane) ?? []) n += q.size;
    return n;
  }

  push(lane: string, item: T, size: number): void {
    if (this.disposed) return;
    const q = this.lanes.get(lane);
    if (!q && (size < this.opts.smallBelow || this.inFlight < this.opts.maxInFlight)) {
      this.send(item, size);
      return;
    }
    if (q) q.push({ item, size });
    else this.lanes.set(lane, [{ item, size }]);
    this.queued += size;
    this.pump();
  }

  /** Forgets what is queued for a lane (its terminal is gone, or its reader resyncs from scrollback). */
  dropLane(lane: string): number {
    const q = this.lanes.get(lane);
    if (!q) return 0;
    this.lanes.delete(lane);
    let n = 0;
    for (const f of q) n += f.size;
    this.queued -= n;
    return n;
  }

  dispose(): void {
    this.disposed = true;
    this.lanes.clear();
    this.queued = 0;
  }

  private send(item: T, size: number): void {
    this.inFlight += size;
    let called = false;
    this.transmit(item, () => {
      if (called) return;
      called = true;
      this.inFlight -= size;
      this.pump();
    });
  }

  private pump(): void {
    while (!this.disposed && this.inFlight < this.opts.maxInFlight && this.lanes.size > 0) {
      const [lane, q] = this.lanes.entries().next().value as [string, Queued<T>[]];
      const f = q.shift()!;
      this.lanes.delete(lane);
      // Back of the line: the other lanes get their turn before this one's next frame.
      if (q.length > 0) this.lanes.set(lane, q);
      this.queued -= f.size;
      this.send(f.item, f.size);
    }
  }
}
