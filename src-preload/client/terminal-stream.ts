import { hasBytes } from '../contract/terminal-frames';
import { TERMINAL_ACK_BATCH_CHARS, TERMINAL_ACK_INTERVAL_MS, TERMINAL_ACK_TAIL_MS, type AttachResult, type TerminalData, type TerminalHistory, type TerminalInfo } from '../contract/terminals';
import type { Client } from './client';
import { outputScheduler, type OutputLane, type OutputScheduler } from './output-scheduler';

/** What a terminal emulator must offer: xterm.js's Terminal (browser or headless) fits as is. */
export interface TerminalSink {
  /**
   * `callback` runs once the data has been parsed: that is when it is acknowledged. Live output
   * usually arrives as UTF-8 bytes, which xterm parses without a decoding step of ours.
   */
  write(data: string | Uint8Array, callback?: () => void): void;
  /** Clears the screen and scrollback, before a replay that cannot continue where we were. */
  reset(): void;
}

export interface TerminalStreamOptions {
  onStatus?(info: TerminalInfo): void;
  /** Called when the view could not be continued seamlessly (the scrollback no longer reached back). */
  onGap?(missedChars: number): void;
  ackBatchChars?: number;
  /** How long after a burst its last characters (under a batch) are acknowledged (TERMINAL_ACK_TAIL_MS). */
  ackTailMs?: number;
  /** How often at most a view still behind its output acknowledges (TERMINAL_ACK_INTERVAL_MS). */
  ackIntervalMs?: number;
  /**
   * The sink already holds the output up to this offset (a parked view's snapshot): attaching
   * writes only what came after it, or resets and replays when the scrollback moved past it.
   */
  resumeFrom?: number;
  /**
   * What the sink holds up to `resumeFrom` is the output from offset 0 itself (a view parked as
   * its copy of the output), not a snapshot: it counts as holding it all (`holdsAllFromStart`).
   */
  resumeHoldsAll?: boolean;
  /** What paces the writes into the sink: the window's one scheduler unless a test brings its own. */
  scheduler?: OutputScheduler;
  /**
   * Output (the replay too) waits until `releaseOutput`: a view started before the pane that
   * shows it knows the size to parse at. Not acknowledged meanwhile (nothing is parsed).
   */
  holdOutput?: boolean;
  /**
   * The terminal's scrollback, read ahead of its first show (`terminals.history`): written at
   * once as the replay, and the attach asks only for what came after its end. When the
   * scrollback no longer reaches back to that end, the sink is reset and the whole scrollback
   * replayed, silently (nothing of the read ahead was seen). Not with `resumeFrom`. It is written
   * from the constructor: the sink must take writes by then (or `holdOutput`, as a view does).
   */
  history?: TerminalHistory;
  /** Every attach answered and handled (the first and any later one: a reconnect, a resync). */
  onAttached?(r: AttachResult): void;
}

interface OffsetWaiter {
  offset: number;
  fn: () => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * One view of one terminal, on any transport: attaches (scrollback + the offset where it ends),
 * writes live output straight into the emulator, drops what it already has by offset, and
 * acknowledges characters once the emulator has parsed them. Output never passes through
 * application state. When the connection comes back after a drop it attaches again and
 * continues exactly where it was, or resets and replays when the scrollback moved past it.
 */
export class TerminalStream {
  /** The stream offset of the next character this view expects. */
  private next: number | null = null;
  private attaching: Promise<AttachResult> | null = null;
  /** Output may have been lost while an attach was under way (onResync): attach once more after it. */
  private attachAgain = false;
  private queue: TerminalData[] = [];
  /**
   * The sink holds this terminal's output from its first character, in order, never reset: the
   * main process's output from offset 0 rebuilds it (a view parks without a snapshot then).
   */
  private fromStart: boolean;
  /**
   * A replay of the scrollback from its start, until the sink has parsed it: the queries in it
   * (device attributes, cursor position, colours) were asked long ago, and whatever the
   * emulator answers now would reach the program as typed text.
   */
  private replay: object | null = null;
  /** Waiting for the current replay to be parsed (`replayed`). */
  private replayWaiters: Array<() => void> = [];
  private attachmentId: string | null = null;
  private unackedParsed = 0;
  /** Sends the acknowledgement of a burst's end (see TERMINAL_ACK_TAIL_MS). */
  private ackTail: ReturnType<typeof setTimeout> | null = null;
  /** Sends a paced acknowledgement (see TERMINAL_ACK_INTERVAL_MS). */
  private ackSoon: ReturnType<typeof setTimeout> | null = null;
  private lastAckAt = Number.NEGATIVE_INFINITY;
  /** Live writes handed to the sink and not parsed yet: none means the view has caught up. */
  private unparsedWrites = 0;
  /** Bumped when queued writes are dropped (their callbacks never run): older callbacks no longer count. */
  private writeGen = 0;
  private disposed = false;
  private readonly offs: Array<() => void> = [];
  private readonly ackBatch: number;
  /** The sink's place in the window's output scheduler: every write to the sink goes through it, in order. */
  private readonly lane: OutputLane;
  /**
   * An attach has been answered. Until then what the sink holds came from before (a read ahead,
   * a parked view's snapshot), and what the first answer brings after it is output of the past
   * too, maybe long past: it is written as a replay, so the emulator's answers to the queries in
   * it do not reach the program (`replaying`). As with a whole replay, a program still waiting
   * for an answer asked while nobody watched gets none.
   */
  private answered = false;
  /** afterOutputTo's waiters. */
  private readonly offsetWaiters = new Set<OffsetWaiter>();
  /** The first attach found the read ahead too old to continue from (the scrollback moved past its end). */
  private aheadStale = false;
  /** Counters for tests and the benchmark. */
  readonly stats = { received: 0, written: 0, duplicateChars: 0, gaps: 0, resyncs: 0, acks: 0 };

  constructor(
    private readonly client: Client,
    readonly id: string,
    private readonly sink: TerminalSink,
    private readonly opts: TerminalStreamOptions = {},
  ) {
    this.ackBatch = opts.ackBatchChars ?? TERMINAL_ACK_BATCH_CHARS;
    this.next = opts.resumeFrom ?? null;
    this.fromStart = (opts.resumeFrom ?? 0) === 0 || opts.resumeHoldsAll === true;
    this.lane = (opts.scheduler ?? outputScheduler).lane(sink);
    if (opts.holdOutput) this.lane.hold();
    if (this.readAhead) {
      const h = opts.history!;
      this.next = h.end;
      this.fromStart = h.start === 0;
      if (h.data.length > 0) this.writeReplay(h.data);
    }
    // Subscribe before attaching: the host handles frames in order, so nothing published after
    // the attach snapshot can be missed.
    this.offs.push(client.on('terminals.data', (p) => this.onData(p), id));
    this.offs.push(client.on('terminals.status', (info) => opts.onStatus?.(info), id));
    let wasOpen = true;
    const offStatus = client.transport.onStatus?.((s) => {
      if (s === 'open' && !wasOpen && this.next !== null) void this.attach().catch(() => undefined);
      wasOpen = s === 'open';
    });
    if (offStatus) this.offs.push(offStatus);
    // Output lost on a dropped direct socket (onResync): attach again, which replays it.
    const offResync = client.transport.onResync?.(() => {
      // An attach under way may have been answered before the loss: it is followed by another.
      if (this.attaching) this.attachAgain = true;
      else if (this.next !== null) void this.attach().catch(() => undefined);
    });
    if (offResync) this.offs.push(offResync);
  }

  get offset(): number | null {
    return this.next;
  }

  /** The sink is parsing a replay of the whole scrollback: what it answers now is not for the program. */
  get replaying(): boolean {
    return this.replay !== null;
  }

  /** Resolves once the sink has parsed the replay under way (at once when none is). */
  replayed(): Promise<void> {
    if (this.replay === null) return Promise.resolve();
    return new Promise((r) => this.replayWaiters.push(r));
  }

  /** The sink holds a scrollback read ahead (`history`), not yet continued by an attach. */
  private get readAhead(): boolean {
    return !this.answered && this.opts.history !== undefined && this.opts.resumeFrom === undefined;
  }

  /** The read ahead it was given turned out too old to continue from (nothing to keep it for). */
  get readAheadStale(): boolean {
    return this.aheadStale;
  }

  /** Whether the sink holds exactly the output from offset 0 up to `offset` (see `fromStart`). */
  get holdsAllFromStart(): boolean {
    return this.fromStart;
  }

  /** Attaches (or re-attaches) and writes the part of the scrollback this view does not have. */
  attach(): Promise<AttachResult> {
    if (this.attaching) return this.attaching;
    // A view holding the output up to `next` asks only for what came after it.
    const p = this.client.invoke('terminals.attach', this.next === null ? { id: this.id } : { id: this.id, since: this.next });
    this.attaching = p;
    return p.then(
      (r) => {
        this.attaching = null;
        if (this.disposed) {
          void this.client.invoke('terminals.detach', { id: this.id, attachmentId: r.attachmentId }).catch(() => undefined);
          return r;
        }
        this.attachmentId = r.attachmentId;
        this.unackedParsed = 0;
        this.clearAckTail();
        const catchUpIsReplay = !this.answered;
        if (this.readAhead && (this.next! < r.start || this.next! > r.end)) {
          // More came since the read ahead than the scrollback holds: start over as a new view.
          this.aheadStale = true;
          this.dropQueued();
          this.sink.reset();
          this.next = null;
          this.fromStart = true;
        }
        this.answered = true;
        if (this.next !== null && this.next > r.end && r.terminal.status === 'exited') {
          // The view holds more than the scrollback of a terminal that will print nothing more
          // (its pty host died while it held a flood's output back): keep what is shown.
          this.opts.onStatus?.(r.terminal);
          this.queue = [];
          this.wakeReached();
          this.opts.onAttached?.(r);
          return r;
        }
        if (this.next === null || this.next < r.start || this.next > r.end) {
          // A reset sink is not a new one (a conservative no); a new one misses what precedes r.start.
          this.fromStart = this.next === null && r.start === 0 && this.fromStart;
          if (this.next !== null) {
            this.stats.gaps++;
            this.opts.onGap?.(Math.max(0, r.start - this.next));
            this.dropQueued();
            this.sink.reset();
          }
          if (r.data.length > 0) this.writeReplay(r.data);
        } else if (this.next === 0 && r.end > 0) {
          // A view parked without a snapshot: it holds nothing and replays the whole history.
          this.writeReplay(r.data);
        } else if (this.next < r.end) {
          if (catchUpIsReplay) this.writeReplay(r.data.slice(this.next - r.start));
          else this.lane.write(r.data.slice(this.next - r.start));
        }
        this.next = r.end;
        this.opts.onStatus?.(r.terminal);
        const queued = this.queue;
        this.queue = [];
        for (const q of queued) this.onData(q);
        this.wakeReached();
        this.opts.onAttached?.(r);
        if (this.attachAgain) {
          this.attachAgain = false;
          void this.attach().catch(() => undefined);
        }
        return r;
      },
      (e: unknown) => {
        this.attaching = null;
        // The connection is gone: its reopening attaches again, replaying what was lost.
        this.attachAgain = false;
        throw e;
      },
    );
  }

  /** Drops what still waits for the sink (a reset is coming, which would wipe it anyway). */
  private dropQueued(): void {
    this.lane.drop();
    this.unparsedWrites = 0;
    this.writeGen++;
    this.endReplay();
  }

  /** Writes the scrollback from its start; `replaying` holds until the sink has parsed it. */
  private writeReplay(data: string): void {
    const replay = {};
    this.replay = replay;
    this.lane.write(data, () => {
      if (this.replay === replay) this.endReplay();
    });
  }

  private endReplay(): void {
    this.replay = null;
    for (const r of this.replayWaiters.splice(0)) r();
  }

  /** Runs `fn` once the sink has parsed everything this stream handed it or queued for it so far. */
  afterQueued(fn: () => void): void {
    this.lane.afterQueued(fn);
  }

  /**
   * Runs `fn` once the output up to `offset` has come and all of it is parsed, or after
   * `maxWaitMs` if it never comes (then after what did): an ended terminal's end line goes after
   * its last output, which may still be on its way on another channel than the status that said
   * the terminal ended. Not at all once the stream is stopped.
   */
  afterOutputTo(offset: number, fn: () => void, maxWaitMs: number): void {
    if (this.disposed) return;
    if (this.has(offset)) return this.afterQueued(fn);
    const w: OffsetWaiter = { offset, fn, timer: setTimeout(() => this.wake(w, true), maxWaitMs) };
    this.offsetWaiters.add(w);
  }

  private has(offset: number): boolean {
    return this.next !== null && this.next >= offset && this.attaching === null;
  }

  private wake(w: OffsetWaiter, timedOut = false): void {
    clearTimeout(w.timer);
    if (!this.offsetWaiters.delete(w)) return;
    if (!timedOut || this.has(w.offset)) return this.afterQueued(w.fn);
    // Still short: the output was lost on its way (a queue dropped for a client that fell behind),
    // or an attach is under way. An attach brings what is missing from the scrollback; `fn` goes
    // after what it brought, whatever that is.
    const after = () => {
      if (!this.disposed) this.afterQueued(w.fn);
    };
    this.attach().then(after, after);
  }

  /** Runs the waiters whose output has all come. */
  private wakeReached(): void {
    for (const w of [...this.offsetWaiters]) if (this.has(w.offset)) this.wake(w);
  }

  /** Lets output held since the start (`holdOutput`) go to the sink, in order. */
  releaseOutput(): void {
    this.lane.release();
  }

  /** The user typed in this terminal: its output goes before other terminals' for a while. */
  noteInput(): void {
    this.lane.noteInput();
  }

  /**
   * Stops the stream. What it had accepted and not yet handed to the sink is handed over now:
   * the sink then holds exactly the output up to `offset` (parking relies on it).
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    // Still held (its view was never shown): nothing will read it, so it is not parsed for nothing.
    if (this.lane.held) this.lane.drop();
    this.lane.close();
    this.clearAckTail();
    // What the lane still held was handed over by close(); nobody waits on a stopped stream.
    for (const r of this.replayWaiters.splice(0)) r();
    for (const w of this.offsetWaiters) clearTimeout(w.timer);
    this.offsetWaiters.clear();
    for (const off of this.offs.splice(0)) off();
    if (this.attachmentId) void this.client.invoke('terminals.detach', { id: this.id, attachmentId: this.attachmentId }).catch(() => undefined);
    this.attachmentId = null;
  }

  private onData(p: TerminalData): void {
    if (this.disposed) return;
    if (this.attaching || this.next === null) {
      this.queue.push(p);
      return;
    }
    const offset = p.offset;
    // Bytes when the transport carried them (xterm decodes UTF-8 itself); the text otherwise.
    const bytes = hasBytes(p) ? p.bytes : null;
    const length = hasBytes(p) ? p.length : p.data.length;
    this.stats.received += length;
    const end = offset + length;
    if (end <= this.next) {
      this.stats.duplicateChars += length;
      return;
    }
    let data: string | Uint8Array = bytes ?? p.data;
    if (offset < this.next) {
      // Only after a re-attach: cut by characters, which needs the text.
      this.stats.duplicateChars += this.next - offset;
      data = p.data.slice(this.next - offset);
    } else if (offset > this.next) {
      // Output was dropped on the way (the host stops queueing for a client that fell far
      // behind): attach again, which replays what is missing from the scrollback, then this.
      this.stats.resyncs++;
      this.queue.push(p);
      void this.attach().catch(() => undefined);
      return;
    }
    const len = end - this.next;
    this.next = end;
    this.stats.written += len;
    const attachmentId = this.attachmentId;
    // Paced by the window's scheduler (output-scheduler.ts): an echo goes to the emulator at
    // once, a flood in short slices, so no terminal's parsing holds up another's keystrokes.
    this.unparsedWrites++;
    const gen = this.writeGen;
    this.lane.write(data, () => this.parsed(len, attachmentId, gen));
    if (this.offsetWaiters.size > 0) this.wakeReached();
  }

  private parsed(chars: number, attachmentId: string | null, gen: number): void {
    if (gen === this.writeGen) this.unparsedWrites--;
    if (this.disposed || attachmentId === null || attachmentId !== this.attachmentId) return;
    this.unackedParsed += chars;
    if (this.unackedParsed < this.ackBatch) {
      this.ackTail ??= setTimeout(() => {
        this.ackTail = null;
        if (!this.disposed && this.attachmentId === attachmentId) this.sendAck(attachmentId);
      }, this.opts.ackTailMs ?? TERMINAL_ACK_TAIL_MS);
      return;
    }
    const wait = this.lastAckAt + (this.opts.ackIntervalMs ?? TERMINAL_ACK_INTERVAL_MS) - performance.now();
    if (this.unparsedWrites <= 0 || wait <= 0) return this.sendAck(attachmentId);
    this.ackSoon ??= setTimeout(() => {
      this.ackSoon = null;
      if (!this.disposed && this.attachmentId === attachmentId) this.sendAck(attachmentId);
    }, wait);
  }

  private sendAck(attachmentId: string): void {
    this.clearAckTail();
    const n = this.unackedParsed;
    if (n === 0) return;
    this.unackedParsed = 0;
    this.lastAckAt = performance.now();
    this.stats.acks++;
    // A lost ack (connection dropped) is healed by re-attaching, which resets the count.
    void this.client.invoke('terminals.ack', { id: this.id, attachmentId, chars: n }).catch(() => undefined);
  }

  private clearAckTail(): void {
    if (this.ackTail !== null) clearTimeout(this.ackTail);
    this.ackTail = null;
    if (this.ackSoon !== null) clearTimeout(this.ackSoon);
    this.ackSoon = null;
  }
}
