/**
 * Parking a hidden terminal: its xterm (a few MB of cell buffers per 5,000 lines, plus DOM) is
 * replaced by a snapshot of what it shows — screen, scrollback, alternate screen, cursor, modes —
 * as the serialize addon writes it, and the stream offset the snapshot stands for. Showing it
 * again writes the snapshot into a new xterm of the size it was taken at, continues the stream
 * from that offset (the main process keeps the output in between), and only then fits the pane,
 * so cursor addressing in the snapshot lands where it was written.
 *
 * A view whose emulator holds exactly the terminal's output from its first character, parsed at
 * the size it still has (a first show that was never resized since, in practice most of them),
 * is parked without a snapshot: the main process's output from offset 0 rebuilds it, parsed the
 * same way, so serializing it (the addon walks every cell: 70–95 ms for 5,000 lines, more than
 * parsing them) would only keep a copy of what the main process already holds.
 *
 * A longer history the view saw whole, from its first character and at its present size, is
 * parked as the view's own copy of that output (up to COPY_PARK_MAX_CHARS): parking it costs
 * nothing and needs nothing of the main process, where a snapshot would walk every cell (a long
 * task in an idle page: 70–95 ms for 5,000 lines); showing it again parses that output, as a
 * first show parses the main process's replay.
 *
 * Nothing here touches the DOM: the same code parks and restores @xterm/headless in tests.
 */

/** What a parked terminal keeps: a few hundred KB of text instead of a live emulator. */
export interface ParkedTerminal {
  /**
   * The serialize addon's output: replaying it into an emulator of `cols`×`rows` rebuilds the
   * state. Null: the main process's output from offset 0 does (`offset` is then 0).
   */
  snapshot: string | null;
  /**
   * Instead of a snapshot: the terminal's output from offset 0 up to `offset`, as the view wrote
   * it into its emulator (strings and UTF-8 bytes, in order). Writing it into an emulator of
   * `cols`×`rows` rebuilds the state; `snapshot` is null then.
   */
  output?: ReadonlyArray<Uint8Array>;
  /** The stream offset of the next character the snapshot does not hold. */
  offset: number;
  cols: number;
  rows: number;
  /** The closing line of an ended terminal is part of the snapshot already. */
  endWritten: boolean;
  /** The cursor in the active screen (0-based, viewport rows), set again after the snapshot (see restoreTerminal). */
  cursor: { x: number; y: number };
}

/** The parts of xterm (browser or headless) parking needs. */
export interface ParkableTerminal {
  readonly cols: number;
  readonly rows: number;
  readonly buffer: { readonly active: { readonly cursorX: number; readonly cursorY: number } };
  write(data: string | Uint8Array, callback?: () => void): void;
}

export interface Serializer {
  serialize(options?: { scrollback?: number }): string;
}

/**
 * Takes the snapshot once everything handed to the emulator is parsed. The caller has already
 * stopped the stream (nothing more is written), so `offset` is exactly what the snapshot holds.
 * Null when there is nothing to stand on (the view never attached). `replayable`: the emulator
 * holds the output from offset 0 and nothing else, parsed at its present size — no snapshot is
 * taken (see the top of this file); the closing line of an ended terminal is written again
 * after the replay, as on a first show.
 */
export function parkTerminal(term: ParkableTerminal, serializer: Serializer, offset: number | null, endWritten: boolean, replayable = false, output: ReadonlyArray<Uint8Array> | null = null): Promise<ParkedTerminal | null> {
  if (offset === null) return Promise.resolve(null);
  if (replayable) return Promise.resolve({ snapshot: null, offset: 0, cols: term.cols, rows: term.rows, endWritten: false, cursor: { x: 0, y: 0 } });
  // The view's copy of what it was written (see the top of this file): no cell is read, so
  // nothing waits for the parse. The closing line is not part of the output: drawn again after.
  if (output) return Promise.resolve({ snapshot: null, output, offset, cols: term.cols, rows: term.rows, endWritten: false, cursor: { x: 0, y: 0 } });
  return new Promise((resolve) => {
    term.write('', () => {
      const { cursorX: x, cursorY: y } = term.buffer.active;
      resolve({ snapshot: serializer.serialize(), offset, cols: term.cols, rows: term.rows, endWritten, cursor: { x, y } });
    });
  });
}

/**
 * What a parked terminal is rebuilt from: its copy of the output, the main process's replay from
 * offset 0, or a snapshot.
 */
export function parkedAs(parked: ParkedTerminal): 'copy' | 'replay' | 'snapshot' {
  return parked.output ? 'copy' : parked.snapshot === null ? 'replay' : 'snapshot';
}

/**
 * Writes a snapshot into a fresh emulator created at `parked.cols`×`parked.rows`; `done` runs once
 * it is parsed (then the emulator may be resized to its pane).
 */
export function restoreTerminal(term: ParkableTerminal, parked: ParkedTerminal, done: () => void): void {
  const how = parkedAs(parked);
  if (how === 'copy') {
    // The output itself, as the view first wrote it: the cursor is where it left it.
    const chunks = parked.output!;
    if (chunks.length === 0) return done();
    chunks.forEach((c, i) => term.write(c, i === chunks.length - 1 ? done : undefined));
    return;
  }
  if (how === 'replay') {
    // Nothing to write: the stream replays from offset 0.
    done();
    return;
  }
  // The addon puts the cursor back with relative moves, which land one column short after a
  // full-width row (a status line at the bottom of vim): it is placed again by address. A cursor
  // past the last column (a wrap pending) is left as the addon put it: an address would cancel the wrap.
  const { x, y } = parked.cursor;
  term.write(parked.snapshot + (x < parked.cols ? `\x1b[${y + 1};${x + 1}H` : ''), done);
}

/**
 * The longest history a view parks without a snapshot: shown again, it replays from offset 0,
 * which the main process must still hold then. Its scrollback keeps the last 1,000,000
 * characters (DEFAULT_SCROLLBACK_CHARS): a longer history leaves less than 600,000 for the
 * output while parked (an agent's busy terminal), past which the start is gone, and with it
 * the lines the view held (a gap notice, the rest replayed from the middle of a redraw).
 */
export const REPLAY_PARK_MAX_CHARS = 400_000;

/**
 * The most a view's copy of its output holds, in UTF-8 bytes (at least its characters), to park
 * a longer history without a snapshot (see the top of this file). Past it the copy goes and the
 * view parks with a snapshot: showing it again would parse more than a snapshot of xterm's 5,000
 * lines holds. It bounds the copy's memory; nothing else depends on it (resuming needs only what
 * came after the parked offset, which the main process's scrollback keeps).
 */
export const COPY_PARK_MAX_CHARS = 1_000_000;

/**
 * The fewest lines xterm's normal buffer holds for a view to park as its copy: a history that is
 * mostly redraws (a full-screen program, a spinner) leaves few lines, whose snapshot is small and
 * quick to take, where parsing all of its output again on show would not be.
 */
export const COPY_PARK_MIN_LINES = 1_000;

/** Pieces under this many bytes are gathered, and joined into one array once this many bytes are gathered: a spinner's thousands of writes stay a few arrays. */
const SMALL_PIECE_BYTES = 4 * 1024;
const JOINED_BYTES = 16 * 1024;

const encoder = new TextEncoder();

/**
 * A view's copy of what it wrote into its emulator, as UTF-8 bytes of its own: a string piece is
 * encoded (a slice of the main process's whole scrollback read would otherwise keep all of that
 * read alive), small pieces are gathered and joined (each byte copied once). `held` turns false
 * for good once the copy can no longer stand for the emulator's state: a reset, a resize after
 * output, the stream not holding the output from offset 0, or more than COPY_PARK_MAX_CHARS bytes.
 */
export class OutputCopy {
  private pieces: Uint8Array[] | null;
  /** Small pieces not joined yet, in order after `pieces`. */
  private small: Uint8Array[] = [];
  private smallBytes = 0;
  private bytes = 0;

  constructor(from: ReadonlyArray<Uint8Array> | null = []) {
    this.pieces = from ? [...from] : null;
    for (const p of from ?? []) this.bytes += p.length;
  }

  get held(): boolean {
    return this.pieces !== null;
  }

  /** The copy so far (null once dropped). */
  get output(): ReadonlyArray<Uint8Array> | null {
    this.join();
    return this.pieces;
  }

  /** Bytes held. */
  get size(): number {
    return this.bytes;
  }

  push(data: string | Uint8Array): void {
    if (!this.pieces) return;
    const piece = typeof data === 'string' ? encoder.encode(data) : data;
    this.bytes += piece.length;
    if (this.bytes > COPY_PARK_MAX_CHARS) return this.drop();
    if (piece.length < SMALL_PIECE_BYTES) {
      this.small.push(piece);
      this.smallBytes += piece.length;
      if (this.smallBytes >= JOINED_BYTES) this.join();
    } else {
      this.join();
      this.pieces.push(piece);
    }
  }

  drop(): void {
    this.pieces = null;
    this.small = [];
    this.smallBytes = 0;
    this.bytes = 0;
  }

  /** The gathered small pieces, as one array of their own at the end of the copy. */
  private join(): void {
    if (!this.pieces || this.small.length === 0) return;
    const joined = new Uint8Array(this.smallBytes);
    let at = 0;
    for (const p of this.small) {
      joined.set(p, at);
      at += p.length;
    }
    this.pieces.push(joined);
    this.small = [];
    this.smallBytes = 0;
  }
}

/**
 * Resets an emulator in order with what it was handed before: after those writes are parsed, not
 * before (xterm's `reset()` acts at once, and writes still queued, a snapshot or a copy being
 * restored, would then land on the reset screen, before the replay that follows).
 */
export function resetInOrder(term: ParkableTerminal): void {
  term.write('\x1bc');
}

/**
 * Whether a view may be parked without a snapshot, beyond its stream holding all output from
 * offset 0 (`offset` characters, at most REPLAY_PARK_MAX_CHARS): xterm rewraps its lines when
 * resized, so output parsed before a resize is not what a replay at the new size gives. A resize
 * before any output (the first fit) does not count.
 */
export class ReplayWatch {
  private wrote = false;
  private resizedAfterOutput = false;

  output(): void {
    this.wrote = true;
  }

  resized(): void {
    if (this.wrote) this.resizedAfterOutput = true;
  }

  /** The emulator holds what the output from offset 0 gives at its present size: a copy of it (or a replay) rebuilds it. */
  exact(holdsAllFromStart: boolean): boolean {
    return holdsAllFromStart && !this.resizedAfterOutput;
  }

  replayable(holdsAllFromStart: boolean, offset: number): boolean {
    return this.exact(holdsAllFromStart) && offset <= REPLAY_PARK_MAX_CHARS;
  }
}

/** A view the cache can keep alive while hidden and park later. */
export interface CachedView {
  /** Takes the snapshot and disposes the view (null: nothing worth keeping, disposed all the same). */
  park(): Promise<ParkedTerminal | null>;
  dispose(): void;
}

export interface ViewCacheOptions {
  /** Hidden this long, a view is parked. */
  parkAfterMs: number;
  /** At most this many hidden views stay live; past it the one hidden longest is parked at once. */
  maxHidden: number;
  /** A view started ahead of its pane (`warm`) that no pane takes within this long is disposed (default 1 s). */
  warmForMs?: number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (t: unknown) => void;
}

/** Views started ahead of their pane kept at once; starting one more disposes the oldest (going through terminals quickly). */
const MAX_WARMING = 2;
/**
 * A pane takes the view in the task that went to its terminal (React renders the switch in a
 * microtask of it): one not taken by then never will be. Short, because the view holds its
 * output unparsed and unacknowledged meanwhile, which may pause a flooding pty.
 */
const WARM_FOR_MS = 1_000;

/**
 * Which terminals have a live view and which a snapshot. A view taken off the screen stays live
 * (switching back to it is only re-attaching its element) until it has been hidden for a while,
 * then it is parked; the number of hidden live views is bounded whatever the timing.
 */
export class TerminalViewCache<V extends CachedView> {
  /**
   * Views started when the app went to a terminal, before React drew the pane that shows it: its
   * history is asked for while the page renders instead of after (terminal-view.ts, `prewarm`).
   */
  private readonly warming = new Map<string, { view: V; timer: unknown }>();
  private readonly hidden = new Map<string, { view: V; timer: unknown }>();
  private readonly parked = new Map<string, ParkedTerminal>();
  /** Parks under way, so a caller can wait for the snapshot rather than replay everything. */
  private readonly parking = new Map<string, Promise<void>>();
  /** Terminals whose view is on screen: a park that finishes after the terminal came back keeps no snapshot. */
  private readonly shown = new Set<string>();
  private trimQueued = false;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (t: unknown) => void;

  constructor(private readonly o: ViewCacheOptions) {
    this.setTimer = o.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = o.clearTimer ?? ((t) => clearTimeout(t as ReturnType<typeof setTimeout>));
  }

  /**
   * Whether the terminal has a view or a snapshot here, or one being taken, or is on screen: a
   * view started for it now would be a second one.
   */
  has(id: string): boolean {
    return this.warming.has(id) || this.shown.has(id) || this.hidden.has(id) || this.parking.has(id) || this.parked.has(id);
  }

  /**
   * Keeps a view started ahead of its pane (which takes it), for a short while: one no pane
   * takes (the app moved on before drawing it) is disposed, and so is the oldest past a bound.
   * A terminal that already has a view here keeps that one; `view` is disposed.
   */
  warm(id: string, view: V): void {
    if (this.has(id)) {
      view.dispose();
      return;
    }
    const timer = this.setTimer(() => {
      if (this.warming.get(id)?.view === view) this.drop(id);
    }, this.o.warmForMs ?? WARM_FOR_MS);
    this.warming.set(id, { view, timer });
    while (this.warming.size > MAX_WARMING) this.drop(this.warming.keys().next().value!);
  }

  /** The view started ahead of its pane, else the hidden live view of a terminal (taken out of the cache), else its snapshot, else nothing. */
  take(id: string): { view: V } | { parked: ParkedTerminal } | null {
    this.shown.add(id);
    const live = this.takeLive(this.warming, id) ?? this.takeLive(this.hidden, id);
    if (live) return { view: live };
    const p = this.parked.get(id);
    if (p) {
      this.parked.delete(id);
      return { parked: p };
    }
    return null;
  }

  /** Resolves once a park of this terminal that is under way has finished (its snapshot is then takeable). */
  settled(id: string): Promise<void> {
    return this.parking.get(id) ?? Promise.resolve();
  }

  /**
   * A view left the screen: it stays live for a while, then is parked. Past the bound the view
   * hidden longest is parked once the current task's synchronous work is done, not at once: a
   * pane that switches terminals hides the old one before it takes the new one (React runs an
   * effect's cleanup before its next run in the same commit), and in a round of switches the view
   * hidden longest is the very one being taken — parked at once, it would come back by a replay.
   */
  hide(id: string, view: V): void {
    this.drop(id);
    this.shown.delete(id);
    const timer = this.setTimer(() => void this.park(id), this.o.parkAfterMs);
    this.hidden.set(id, { view, timer });
    if (this.hidden.size > this.o.maxHidden && !this.trimQueued) {
      this.trimQueued = true;
      queueMicrotask(() => {
        this.trimQueued = false;
        while (this.hidden.size > this.o.maxHidden) {
          // Maps iterate in insertion order: the first is the one hidden longest.
          void this.park(this.hidden.keys().next().value!);
        }
      });
    }
  }

  /** Forgets terminals that no longer exist (closed): their views are disposed, their snapshots dropped. */
  retain(ids: ReadonlySet<string>): void {
    for (const id of [...this.warming.keys(), ...this.hidden.keys(), ...this.parked.keys()]) if (!ids.has(id)) this.drop(id);
    for (const id of [...this.shown]) if (!ids.has(id)) this.shown.delete(id);
  }

  get counts(): { warming: number; hidden: number; parked: number } {
    return { warming: this.warming.size, hidden: this.hidden.size, parked: this.parked.size };
  }

  /** A live view kept in `map` (warming or hidden), taken out with its timer stopped. */
  private takeLive(map: Map<string, { view: V; timer: unknown }>, id: string): V | null {
    const entry = map.get(id);
    if (!entry) return null;
    this.clearTimer(entry.timer);
    map.delete(id);
    return entry.view;
  }

  /** Disposes the terminal's live views here (warming or hidden) and forgets its snapshot. */
  private drop(id: string): void {
    this.takeLive(this.warming, id)?.dispose();
    this.takeLive(this.hidden, id)?.dispose();
    this.parked.delete(id);
  }

  private park(id: string): Promise<void> {
    const view = this.takeLive(this.hidden, id);
    if (!view) return Promise.resolve();
    const done = view.park().then(
      (p) => {
        if (p && !this.shown.has(id)) this.parked.set(id, p);
      },
      // A view that cannot be serialized is simply disposed: showing it again replays the main process's scrollback.
      () => undefined,
    );
    const settled = done.finally(() => {
      if (this.parking.get(id) === settled) this.parking.delete(id);
    });
    this.parking.set(id, settled);
    return settled;
  }
}
