import { AnswerWatch } from '../contract/terminal-input';

/**
 * Every terminal of one window (or view process) is fed through one queue, so a terminal
 * somebody types in never waits behind another terminal's flood.
 *
 * The emulators share one thread. xterm parses what it was given in slices of up to 12 ms
 * (its WRITE_TIMEOUT_MS) and only then lets the event loop run, so a keystroke echo arriving
 * while a flood is being parsed used to wait for the rest of that slice, and for every slice of
 * data already handed over before it. Here:
 *
 * - a small write (an echo, a prompt) of a terminal with nothing queued goes to its emulator at
 *   once, in the task it arrived in;
 * - everything else waits in its terminal's lane and is handed over one piece at a time, the
 *   next piece only once the emulator has parsed the previous one (its write callback). Pieces
 *   keep following each other in the same task for at most `sliceMs`; then the scheduler yields
 *   to the event loop (a new task), so whatever arrived meanwhile runs before the next piece;
 * - lanes take turns, a lane whose terminal was typed in recently first;
 * - right after a keystroke, no other lane's piece is handed over until the typed terminal
 *   answers (its echo) or `answerWaitMs` pass: the thread is idle when the echo arrives, so it
 *   is parsed in the task it arrived in instead of after the flood's current slice. The flood
 *   loses about one echo's round trip per keystroke. A terminal that answers too late or not at
 *   all makes nobody wait for a second (AnswerWatch);
 * - the short slices hold only while somebody types in the window; otherwise no echo is waiting
 *   and a task parses as long as xterm's own slice, for throughput.
 *
 * Each lane's data reaches its emulator in exactly the order it was written, and each write's
 * callback runs once the emulator has parsed it: acknowledgements (flow control) still mean
 * "parsed", so the backlog the host sees includes what waits here.
 */

/** What a lane feeds: xterm's Terminal (browser or headless) fits as is. */
export interface OutputTarget {
  write(data: string | Uint8Array, parsed?: () => void): void;
}

export interface OutputSchedulerOptions {
  /** Writes up to this size of a lane with nothing queued skip the queue. */
  smallBytes?: number;
  /** What is queued is handed over in pieces of at most this size. */
  pieceBytes?: number;
  /** Parsing that may follow the first parsed piece in one task before the scheduler yields, while somebody types. */
  sliceMs?: number;
  /** The same while nobody typed in any terminal for `inputPriorityMs`: no echo to keep waiting short. */
  quietSliceMs?: number;
  /** A lane whose terminal had input this recently is served before the others. */
  inputPriorityMs?: number;
  /** After a keystroke, other lanes wait this long at most for the typed terminal's answer. */
  answerWaitMs?: number;
  now?: () => number;
  /** Runs `fn` in a new task, after input and I/O that are already waiting. */
  nextTask?: (fn: () => void) => void;
  /** Timers (the end of an answer wait); tests pass a fake clock's. */
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

/**
 * An echo, a prompt or a status line: parsed in well under a millisecond, so it is never worth
 * queueing. The host's fair queue uses the same bound for "small frame".
 */
export const OUTPUT_SMALL_BYTES = 4 * 1024;
/**
 * 16 KB of mixed output parses in about 0.5 ms at xterm's ~30 MB/s, and in 2 ms on a loaded
 * machine: small enough that the first piece of a task never runs long, large enough that the
 * per-piece cost (a callback, a subarray) stays far below 1 % of the parse.
 */
export const OUTPUT_PIECE_BYTES = 16 * 1024;
/**
 * How long a task may go on parsing after its first piece. An echo that arrives meanwhile waits
 * at most this plus one piece (≈ 3–4 ms) instead of xterm's 12 ms slice; each yield costs the
 * emulator a timer hop (xterm schedules its parse with setTimeout), so shorter slices trade
 * throughput away.
 */
export const OUTPUT_SLICE_MS = 3;
/**
 * While nobody types, no echo waits: slices as long as xterm's own (its WRITE_TIMEOUT_MS), so a
 * flood pays a quarter of the yields (each a timer hop in the emulator) it pays while typing.
 */
export const OUTPUT_QUIET_SLICE_MS = 12;
/** Typing makes a terminal's output go first for this long (a typist pauses between words). */
export const OUTPUT_INPUT_PRIORITY_MS = 1_000;
/**
 * After a keystroke, other terminals' output waits at most this long for the echo. An echo takes
 * 0.5–2 ms on an idle machine and a few more on a busy one; a terminal that does not echo
 * (a password prompt, `stty -echo`) costs the others this much per keystroke.
 */
export const OUTPUT_ANSWER_WAIT_MS = 8;
/**
 * A piece not parsed after this long no longer holds the other terminals up (an emulator that
 * threw in the middle of a write never calls back). A 16 KB piece parses in milliseconds.
 */
export const OUTPUT_STALLED_MS = 2_000;

interface Item {
  data: string | Uint8Array;
  parsed?: () => void;
}

/** A new task without the 4 ms clamp browsers put on nested timers. */
function defaultNextTask(): (fn: () => void) => void {
  const g = globalThis as { setImmediate?: (fn: () => void) => unknown };
  if (typeof g.setImmediate === 'function') {
    const setImmediate = g.setImmediate;
    return (fn) => void setImmediate(fn);
  }
  if (typeof MessageChannel === 'function') {
    const channel = new MessageChannel();
    const waiting: Array<() => void> = [];
    // Typed loosely: Node's MessagePort typings lack onmessage (Node takes the setImmediate path above).
    (channel.port1 as unknown as { onmessage: () => void }).onmessage = () => waiting.shift()?.();
    return (fn) => {
      waiting.push(fn);
      channel.port2.postMessage(null);
    };
  }
  return (fn) => void setTimeout(fn, 0);
}

/** One terminal's place in the scheduler. */
export class OutputLane {
  /** @internal */ readonly items: Item[] = [];
  /** @internal */ head = 0;
  /** @internal */ lastInputAt = Number.NEGATIVE_INFINITY;
  /** @internal Its answers to keystrokes: too late or none, and its keys make nobody wait for a while. */
  readonly answers = new AnswerWatch();
  private closed = false;
  private heldBack = false;

  constructor(
    private readonly scheduler: OutputScheduler,
    readonly target: OutputTarget,
  ) {}

  /** Bytes (or characters, for text) waiting here, not yet handed to the emulator. */
  get queuedSize(): number {
    let n = 0;
    for (let i = this.head; i < this.items.length; i++) n += this.items[i]!.data.length;
    return n;
  }

  get isEmpty(): boolean {
    return this.head >= this.items.length;
  }

  /** Output waits here until `release` (a view started before its pane has a size to parse at). */
  get held(): boolean {
    return this.heldBack;
  }

  /**
   * Keeps this lane's output from its emulator until `release`, in order; the other lanes go
   * on meanwhile (a held lane is never the one the scheduler waits on). Only a lane with nothing
   * queued is held: one with output under way may have a piece with its emulator already.
   */
  hold(): void {
    if (!this.closed && this.isEmpty) this.heldBack = true;
  }

  /** Lets held output go to the emulator, in turn with the other lanes. */
  release(): void {
    if (!this.heldBack) return;
    this.heldBack = false;
    this.scheduler.released(this);
  }

  /**
   * Runs `fn` once the emulator has parsed everything written here before (a line the view adds
   * after the output, never part of it). Not an answer to a keystroke.
   */
  afterQueued(fn: () => void): void {
    if (this.closed || (this.isEmpty && !this.heldBack)) {
      this.target.write('', fn);
      return;
    }
    this.scheduler.enqueueMarker(this, fn);
  }

  /** Output for this terminal; `parsed` runs once the emulator has parsed all of it. */
  write(data: string | Uint8Array, parsed?: () => void): void {
    if (this.closed) {
      this.target.write(data, parsed);
      return;
    }
    this.scheduler.write(this, data, parsed);
  }

  /** The user typed here: this terminal's output goes before other lanes' for a while. */
  noteInput(): void {
    // A closed lane writes past the scheduler: its answer would never end the others' wait.
    if (this.closed) return;
    this.lastInputAt = this.scheduler.now();
    this.scheduler.awaitAnswer(this);
  }

  /**
   * Forgets what is queued and not yet handed over (the emulator is about to be reset, which
   * would wipe it anyway). Their callbacks do not run: nothing of it is parsed.
   */
  drop(): void {
    this.items.length = 0;
    this.head = 0;
  }

  /** Hands everything queued to the emulator now, in order; later writes go straight to it. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.heldBack = false;
    this.handAll();
    this.scheduler.remove(this);
  }

  /** @internal Hands everything queued to the emulator now, in order (its callbacks run as it parses). */
  handAll(): void {
    while (!this.isEmpty) {
      const item = this.take()!;
      this.target.write(item.data, item.parsed);
    }
  }

  /** @internal */
  push(item: Item): void {
    this.items.push(item);
  }

  /** @internal */
  take(): Item | undefined {
    const item = this.items[this.head];
    if (!item) return undefined;
    this.items[this.head++] = undefined as unknown as Item;
    if (this.head >= this.items.length) this.drop();
    else if (this.head > 64 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    return item;
  }
}

export class OutputScheduler {
  /** Lanes with something queued, in turn order (a Set keeps insertion order). */
  private readonly waiting = new Set<OutputLane>();
  /** The piece handed to an emulator and not parsed yet: the next one waits for it. */
  private busy: { lane: OutputLane; since: number } | null = null;
  /** Off while nobody looks (a hidden page): everything goes to the emulators at once. */
  private paced = true;
  /** A new task was asked for, to go on after yielding to the event loop. */
  private yielded = false;
  private pumping = false;
  private again = false;
  /** When the current task's first piece was parsed; null outside a run of pieces. */
  private sliceStart: number | null = null;
  private readonly smallBytes: number;
  private readonly pieceBytes: number;
  private readonly sliceMs: number;
  private readonly quietSliceMs: number;
  /** @internal When a terminal of this window was last typed in. */
  lastInputAt = Number.NEGATIVE_INFINITY;
  private readonly inputPriorityMs: number;
  private readonly answerWaitMs: number;
  /** A keystroke's terminal whose answer the other lanes wait for, until `until` (now()). */
  private awaiting: { lane: OutputLane; until: number } | null = null;
  private answerTimer: unknown = null;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (timer: unknown) => void;
  private readonly nextTask: (fn: () => void) => void;
  readonly now: () => number;
  /** Counters for tests and the benchmark. */
  readonly stats = { direct: 0, pieces: 0, yields: 0, answered: 0, answerTimeouts: 0 };

  constructor(opts: OutputSchedulerOptions = {}) {
    this.smallBytes = opts.smallBytes ?? OUTPUT_SMALL_BYTES;
    this.pieceBytes = opts.pieceBytes ?? OUTPUT_PIECE_BYTES;
    this.sliceMs = opts.sliceMs ?? OUTPUT_SLICE_MS;
    this.quietSliceMs = Math.max(this.sliceMs, opts.quietSliceMs ?? OUTPUT_QUIET_SLICE_MS);
    this.inputPriorityMs = opts.inputPriorityMs ?? OUTPUT_INPUT_PRIORITY_MS;
    this.answerWaitMs = opts.answerWaitMs ?? OUTPUT_ANSWER_WAIT_MS;
    this.now = opts.now ?? (() => performance.now());
    this.nextTask = opts.nextTask ?? defaultNextTask();
    this.setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = opts.clearTimer ?? ((t) => clearTimeout(t as ReturnType<typeof setTimeout>));
  }

  lane(target: OutputTarget): OutputLane {
    return new OutputLane(this, target);
  }

  /**
   * Pacing buys latency for someone typing and costs a timer hop per slice. In a hidden page
   * nobody types, and browsers run timers there about once a second, which would leave one
   * piece parsed per second: so there everything is handed over at once and xterm parses in its
   * own 12 ms slices, as without this scheduler.
   */
  setPaced(on: boolean): void {
    if (this.paced === on) return;
    this.paced = on;
    if (on) return;
    this.awaiting = null;
    this.stopAnswerTimer();
    // The lane whose piece is with its emulator is not in `waiting` until that piece is parsed.
    const lanes = new Set(this.waiting);
    if (this.busy) lanes.add(this.busy.lane);
    // A held lane keeps its output until released (which hands it over at once while unpaced).
    for (const lane of lanes) if (!lane.held) lane.handAll();
    this.waiting.clear();
  }

  /** @internal The user typed in `lane`'s terminal: the others wait for its answer (see the top of this file). */
  awaitAnswer(lane: OutputLane): void {
    this.lastInputAt = lane.lastInputAt;
    // Unpaced (a hidden page) nobody sees the echo; a lane that was closed is not fed from here.
    if (!this.paced) return;
    this.stopAnswerTimer();
    // Answered too late or not at all a moment ago: its typing goes first, but nobody waits.
    if (!lane.answers.worthWaiting(lane.lastInputAt)) {
      this.awaiting = null;
      if (!this.busy && !this.yielded && this.waiting.size > 0) this.pump();
      return;
    }
    this.awaiting = { lane, until: lane.lastInputAt + this.answerWaitMs };
    // The scheduler may have been idle on the previous keystroke's timer, stopped just now: a
    // new turn either hands this lane's queued output over or sets the timer again.
    if (!this.busy && !this.yielded && this.waiting.size > 0) this.pump();
  }

  private stopAnswerTimer(): void {
    if (this.answerTimer !== null) this.clearTimer(this.answerTimer);
    this.answerTimer = null;
  }

  /** The typed terminal answered, or its time ran out: the other lanes go on. */
  private answered(timedOut: boolean): void {
    const awaiting = this.awaiting;
    if (!awaiting) return;
    this.awaiting = null;
    if (timedOut) this.timedOut(awaiting.lane);
    else this.stats.answered++;
    this.stopAnswerTimer();
    if (!this.busy && !this.yielded) this.pump();
  }

  private timedOut(lane: OutputLane): void {
    this.stats.answerTimeouts++;
    lane.answers.ranOut(lane.lastInputAt);
  }

  /** @internal */
  write(lane: OutputLane, data: string | Uint8Array, parsed?: () => void): void {
    if (this.busy && this.now() - this.busy.since > OUTPUT_STALLED_MS) this.busy = null;
    lane.answers.answered(this.now());
    const answer = this.awaiting?.lane === lane;
    try {
      this.enqueue(lane, data, parsed);
    } finally {
      // After the answer went to its emulator (or into its lane, first in turn): the rest may go on.
      if (answer) this.answered(false);
    }
  }

  private enqueue(lane: OutputLane, data: string | Uint8Array, parsed?: () => void): void {
    if (lane.isEmpty && !lane.held && (data.length <= this.smallBytes || !this.paced)) {
      this.stats.direct++;
      lane.target.write(data, parsed);
      return;
    }
    // Subarrays and slices: no copy of bytes. A UTF-8 character or a surrogate pair cut in two
    // is fine, xterm carries the first half over to the next write.
    for (let at = 0; at + this.pieceBytes < data.length; at += this.pieceBytes) {
      lane.push({ data: typeof data === 'string' ? data.slice(at, at + this.pieceBytes) : data.subarray(at, at + this.pieceBytes) });
    }
    const last = Math.max(0, Math.floor((data.length - 1) / this.pieceBytes) * this.pieceBytes);
    lane.push({ data: last === 0 ? data : typeof data === 'string' ? data.slice(last) : data.subarray(last), ...(parsed ? { parsed } : {}) });
    this.queued(lane);
  }

  /** @internal An empty write with its callback, after what the lane holds: handed over in order like any piece. */
  enqueueMarker(lane: OutputLane, parsed: () => void): void {
    lane.push({ data: '', parsed });
    this.queued(lane);
  }

  /** @internal A held lane let go: what it kept goes in turn (at once in a hidden page, as every lane's does there). */
  released(lane: OutputLane): void {
    if (this.busy && this.now() - this.busy.since > OUTPUT_STALLED_MS) this.busy = null;
    if (lane.isEmpty) return;
    if (this.paced) this.queued(lane);
    else lane.handAll();
  }

  /** `lane` has output queued: it takes its turn, unless it is held. */
  private queued(lane: OutputLane): void {
    if (lane.held) return;
    this.waiting.add(lane);
    if (!this.busy && !this.yielded) this.pump();
  }

  /** @internal A closed lane's piece no longer holds the others up, parsed or not (its emulator may be gone). */
  remove(lane: OutputLane): void {
    this.waiting.delete(lane);
    if (this.awaiting?.lane === lane) this.answered(false);
    if (this.busy?.lane !== lane) return;
    this.busy = null;
    if (!this.yielded) this.pump();
  }

  /** Hands pieces over while the task's budget lasts (a loop, not recursion: a target may call back at once). */
  private pump(): void {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        this.handOne();
      } while (this.again && !this.busy);
    } finally {
      this.pumping = false;
    }
  }

  /** The next piece: of a lane typed in recently if any, else of the next lane in turn. */
  private handOne(): void {
    if (this.busy) return;
    let lane: OutputLane | null = null;
    const now = this.now();
    const awaiting = this.awaiting;
    // The lane whose answer the others wait for goes first, then lanes typed in recently, then the rest in turn.
    if (awaiting && this.waiting.has(awaiting.lane) && !awaiting.lane.isEmpty) lane = awaiting.lane;
    else {
      for (const l of this.waiting) {
        if (l.isEmpty) {
          this.waiting.delete(l);
          continue;
        }
        if (now - l.lastInputAt < this.inputPriorityMs) {
          lane = l;
          break;
        }
        lane ??= l;
      }
    }
    if (!lane) return;
    if (awaiting && lane !== awaiting.lane) {
      if (now >= awaiting.until) {
        this.awaiting = null;
        this.timedOut(awaiting.lane);
        this.stopAnswerTimer();
      } else {
        // Idle until the answer comes (write) or the wait is over.
        this.answerTimer ??= this.setTimer(() => {
          this.answerTimer = null;
          this.answered(true);
        }, Math.ceil(awaiting.until - now));
        return;
      }
    }
    const item = lane.take()!;
    // Back of the line once this piece is parsed: lanes waiting meanwhile go first.
    this.waiting.delete(lane);
    const piece = { lane, since: now };
    this.busy = piece;
    this.stats.pieces++;
    let called = false;
    lane.target.write(item.data, () => {
      if (called) return;
      called = true;
      this.parsed(piece, item);
    });
  }

  private parsed(piece: { lane: OutputLane; since: number }, item: Item): void {
    const current = this.busy === piece;
    if (current) this.busy = null;
    if (current && !piece.lane.isEmpty) this.waiting.add(piece.lane);
    item.parsed?.();
    if (!current || this.busy || this.waiting.size === 0) return;
    const now = this.now();
    if (this.sliceStart === null) {
      this.sliceStart = now;
      // Runs when the emulator's parse loop returns, i.e. at the end of this task.
      queueMicrotask(() => (this.sliceStart = null));
    }
    // Short slices only while somebody types (anywhere in the window): they buy echo latency with throughput.
    const budget = now - this.lastInputAt < this.inputPriorityMs ? this.sliceMs : this.quietSliceMs;
    if (now - this.sliceStart < budget) {
      // Same task: the emulator's parse loop takes the piece up right after this callback.
      this.pump();
      return;
    }
    if (this.yielded) return;
    this.yielded = true;
    this.stats.yields++;
    this.nextTask(() => {
      this.yielded = false;
      this.pump();
    });
  }
}

/** The window's scheduler: every terminal view in it shares the one thread, so it shares this. */
export const outputScheduler = new OutputScheduler();
