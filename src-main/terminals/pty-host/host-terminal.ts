import { randomBytes } from 'node:crypto';
import { closeSync, constants as fsConstants, openSync, writeSync } from 'node:fs';
import type { IPty } from 'node-pty';
import { DataBatcher } from '../batcher';
import { HOST_IPC_BACKLOG_MAX_BYTES } from '../constants';
import { FlowWindow } from '../flow-window';
import { Utf8Splitter } from '../utf8-splitter';
import type { HostTerminalStats } from './protocol';
import { isZombie, pidAlive } from '../../platform/process-identity';

export interface HostTerminalSink {
  /** Hands a batch to the main process; `done` runs once the IPC channel has taken it. */
  data(offset: number, data: Uint8Array, done: () => void): void;
  flow(paused: boolean, window: number): void;
  exit(exitCode: number, signal: number, stats: HostTerminalStats): void;
  /** The first read after input: its echo, or the program's answer. */
  answered?(): void;
}

/**
 * One pty inside the pty host: reads raw bytes, never splits a UTF-8 character, batches, and
 * applies flow control. The pty is paused when the slowest live view is more than the flow
 * window behind or when the IPC channel to the main process is backed up, and resumed when
 * both have drained (see flow-window.ts). Output stays bytes here: it is never decoded.
 */
export class HostTerminal {
  private readonly splitter = new Utf8Splitter();
  private readonly batcher: DataBatcher;
  private readonly flowWindow = new FlowWindow();
  /** Bytes handed to the main process so far (the stream offset of the next batch). */
  private sent = 0;
  private readonly stats: HostTerminalStats = { bytesRead: 0, firstReadAt: null, lastReadAt: null, pauses: 0, pausedMs: 0, window: 0, holds: 0, echoes: [] };
  private pausedAt = 0;
  private consumed: number | null = null;
  private ipcBacklog = 0;
  /** Input was written to the pty and nothing has been read since. */
  private inputSinceRead = false;
  private paused = false;
  /** Paused for another terminal's keystroke until its echo (input-hold.ts). */
  private held = false;
  /** Whether the pty is being read: not while paused by flow control or held (syncReading). */
  private reading = true;
  /** Bytes read since `spanStart` (performance.now()); a flood fills FLOOD_BYTES within FLOOD_SPAN_MS. */
  private spanStart = Number.NEGATIVE_INFINITY;
  private spanBytes = 0;
  /** When output last came at a flood's rate. */
  private floodSeenAt = Number.NEGATIVE_INFINITY;
  private exited = false;
  /** The pty's leader exited: what is left in the kernel buffer is read at once, flow control or not. */
  private leaderGone = false;
  private drainTimer: NodeJS.Timeout | null = null;
  /** Our own handle on the pty's slave side (see holdSlave). */
  private slaveFd: number | null = null;
  /** The end-of-output mark written through the slave once the leader is gone (see markEnd); null until written. */
  private endMark: Buffer | null = null;
  /** The end of what was read after the mark was written that may be the start of the mark: held back until the next read tells. */
  private markHeld: Uint8Array = EMPTY;
  /** What ended the stream here, null until it is (node-pty reports the exit once it has reaped the leader). */
  private endedBy: 'mark' | 'quiet' | null = null;
  /** Reads so far: the quiet spell's end checks that none came in the turn it fired. */
  private reads = 0;
  /** Part of a mark went in but too little to be told from output: no other mark is written (two would both show). */
  private markCut = false;

  constructor(
    private readonly pty: IPty,
    private readonly sink: HostTerminalSink,
  ) {
    this.batcher = new DataBatcher((bytes) => this.send(bytes));
    this.holdSlave();
    pty.onData((chunk) => this.onChunk(chunk as unknown as Uint8Array));
    watchLeader(this);
    pty.onExit(({ exitCode, signal }) => {
      this.exited = true;
      unwatchLeader(this);
      if (this.drainTimer) clearTimeout(this.drainTimer);
      this.drainTimer = null;
      if (this.slaveFd !== null) closeSync(this.slaveFd);
      this.slaveFd = null;
      // Still held back as a possible start of the mark: the mark's, cut off by node-pty's own
      // close (its wait for the pty ends 200 ms after it reaped the leader). Never shown.
      this.markHeld = EMPTY;
      // The last bytes (and an incomplete trailing character, as U+FFFD) go out before the exit.
      const rest = this.splitter.flush();
      if (rest.length > 0) this.batcher.write(rest);
      this.batcher.flush();
      this.batcher.dispose();
      sink.exit(exitCode, signal ?? 0, this.getStats());
    });
  }

  get pid(): number {
    return this.pty.pid;
  }

  get isExited(): boolean {
    return this.exited;
  }

  /** Whether the leader's exit was noticed here (the leader watch), not only by node-pty. */
  get leaderExitNoticed(): boolean {
    return this.leaderGone;
  }

  /** What ended the stream after the leader's exit: its end mark read, a quiet spell, or neither (node-pty). */
  get streamEndedBy(): 'mark' | 'quiet' | null {
    return this.endedBy;
  }

  private get streamEnded(): boolean {
    return this.endedBy !== null;
  }

  write(data: string): void {
    if (this.exited || this.streamEnded) return;
    this.pty.write(data);
    this.inputSinceRead = true;
    const echoes = this.stats.echoes;
    if (echoes.length >= ECHO_SAMPLES_MAX) echoes.shift();
    echoes.push({ inputAt: performance.timeOrigin + performance.now(), readAt: null });
  }

  /** Whether this terminal's output is a flood right now: FLOOD_BYTES read within FLOOD_SPAN_MS, a moment ago at most. */
  get flooding(): boolean {
    return !this.exited && performance.now() - this.floodSeenAt < FLOOD_SPAN_MS;
  }

  /** Input was written and nothing read since, and the pty is being read: its answer (an echo) can come. */
  get awaitingAnswer(): boolean {
    return this.inputSinceRead && !this.exited && !this.streamEnded && !this.paused && !this.held;
  }

  /** Stops (or resumes) reading the pty for another terminal's keystroke (input-hold.ts), flow control aside. */
  hold(on: boolean): void {
    if (this.held === on || this.exited) return;
    // The last output of a leader that is gone is read at once (see checkLeader).
    if (on && this.leaderGone) return;
    this.held = on;
    if (on) this.stats.holds++;
    this.syncReading();
  }

  /** Reads the pty unless flow control pauses it or a keystroke elsewhere holds it: the one place that pauses and resumes it. */
  private syncReading(): void {
    const read = !this.paused && !this.held;
    if (read === this.reading) return;
    this.reading = read;
    if (read) this.pty.resume();
    else this.pty.pause();
  }

  resize(cols: number, rows: number): void {
    // Once the stream is ended node-pty has closed the pty's descriptor: its number may be reused.
    if (this.exited || this.streamEnded) return;
    try {
      this.pty.resize(cols, rows);
    } catch {
      // The pty closed between the exit check and the ioctl: resizing a dead terminal is moot.
    }
  }

  setConsumed(offset: number | null): void {
    this.consumed = offset === null ? null : Math.min(offset, this.sent);
    // Nobody watching: the next view starts from the small window, not one sized for another view.
    if (offset === null) this.flowWindow.reset();
    this.updateFlow();
  }

  /** Throughput figures for the benchmark and diagnostics. */
  getStats(): HostTerminalStats {
    const pausedNow = this.paused ? performance.now() - this.pausedAt : 0;
    return { ...this.stats, pausedMs: this.stats.pausedMs + pausedNow, window: this.flowWindow.window, echoes: this.stats.echoes.map((e) => ({ ...e })) };
  }

  /** Signals the whole process group: a shell's children (a running build) must stop with it. */
  signal(sig: NodeJS.Signals): void {
    if (this.exited) return;
    try {
      process.kill(-this.pty.pid, sig);
    } catch {
      try {
        this.pty.kill(sig);
      } catch {
        // Already gone: the exit event reports it.
      }
    }
  }

  killNow(): void {
    killGroup(this.pty.pid);
  }

  private onChunk(chunk: Uint8Array): void {
    this.reads++;
    if (this.leaderGone) {
      if (this.endMark) return this.readToMark(chunk);
      this.armDrain();
      // The mark could not be written (the pty's output queue was full): now that some was read, again.
      this.markEnd();
    }
    this.take(chunk);
  }

  /** Reads what came after the leader's exit, up to the end mark: then the stream is over. */
  private readToMark(chunk: Uint8Array): void {
    const mark = this.endMark!;
    const data = this.markHeld.length > 0 ? Buffer.concat([this.markHeld, chunk]) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.markHeld = EMPTY;
    const at = data.indexOf(mark);
    if (at >= 0) {
      // Everything the leader and its children wrote before it exited came before the mark.
      // What follows it is from a process still holding the pty: handed on, and the stream ends.
      if (at > 0) this.take(data.subarray(0, at));
      if (at + mark.length < data.length) this.take(data.subarray(at + mark.length));
      this.endStream('mark');
      return;
    }
    this.armDrain(MARKED_QUIET_MS);
    const keep = partialMarkAtEnd(data, mark);
    this.markHeld = keep > 0 ? Uint8Array.from(data.subarray(data.length - keep)) : EMPTY;
    if (keep < data.length) this.take(data.subarray(0, data.length - keep));
  }

  private take(chunk: Uint8Array): void {
    const at = performance.now();
    const now = performance.timeOrigin + at;
    this.stats.bytesRead += chunk.length;
    this.noteRate(chunk.length, at);
    this.stats.firstReadAt ??= now;
    this.stats.lastReadAt = now;
    const whole = this.splitter.write(chunk);
    // The first read after input is its echo (or the program's answer): it skips the batch window.
    // A read that is only the start of a character hands nothing on: the next read is the echo.
    if (whole.length === 0) return this.updateFlow();
    const urgent = this.inputSinceRead;
    this.inputSinceRead = false;
    if (urgent) for (let i = this.stats.echoes.length - 1; i >= 0 && this.stats.echoes[i]!.readAt === null; i--) this.stats.echoes[i]!.readAt = now;
    this.batcher.write(whole, urgent);
    this.updateFlow();
    if (urgent) this.sink.answered?.();
  }

  /** `n` bytes read at `at` (performance.now()). */
  private noteRate(n: number, at: number): void {
    if (at - this.spanStart > FLOOD_SPAN_MS) {
      this.spanStart = at;
      this.spanBytes = 0;
    }
    this.spanBytes += n;
    if (this.spanBytes >= FLOOD_BYTES) this.floodSeenAt = at;
  }

  private send(bytes: Uint8Array): void {
    const offset = this.sent;
    const n = bytes.length;
    this.sent += n;
    this.ipcBacklog += n;
    this.sink.data(offset, bytes, () => {
      this.ipcBacklog -= n;
      this.updateFlow();
    });
  }

  /** Unacknowledged = sent + still batched − consumed, all in bytes. */
  private updateFlow(): void {
    if (this.exited) return;
    const unacked = this.consumed === null ? 0 : this.sent + this.batcher.pending - this.consumed;
    const backlog = this.ipcBacklog;
    const w = this.flowWindow;
    if (!this.paused && !this.leaderGone && (w.shouldPause(unacked) || backlog > HOST_IPC_BACKLOG_MAX_BYTES)) {
      this.paused = true;
      this.pausedAt = performance.now();
      this.stats.pauses++;
      if (this.consumed !== null) w.paused(this.consumed);
      this.syncReading();
      this.sink.flow(true, w.window);
      // Nothing more will join the batch while paused: send it now rather than after the timer,
      // so the views can parse (and acknowledge) it sooner.
      this.batcher.flush();
    } else if (this.paused && (this.leaderGone || (w.shouldResume(unacked) && backlog < HOST_IPC_BACKLOG_MAX_BYTES / 2))) {
      this.paused = false;
      this.stats.pausedMs += performance.now() - this.pausedAt;
      if (this.consumed !== null) w.resumed(this.consumed);
      this.syncReading();
      this.sink.flow(false, w.window);
    }
  }

  /**
   * Linux drops the tail of a pty's output when its last writer exits: libuv treats the hang-up
   * that follows a short read as end of file while the kernel still holds data (node-pty #72,
   * #85, #726). Holding the slave side open ourselves means there is no hang-up, so every byte
   * is read; the exit is then detected by watching the leader (below).
   */
  private holdSlave(): void {
    const slave = (this.pty as unknown as { _pty?: unknown })._pty;
    if (typeof slave !== 'string' || !slave.startsWith('/dev/')) return;
    try {
      this.slaveFd = openSync(slave, fsConstants.O_RDWR | fsConstants.O_NOCTTY | fsConstants.O_NONBLOCK);
    } catch {
      // Without it we fall back to node-pty's own handling (which may lose a tail on exit).
      this.slaveFd = null;
    }
  }

  /**
   * node-pty reaps the leader, then waits (at most 200 ms) for the pty to close before reporting
   * the exit and destroying the socket — with the slave held open it never closes by itself. So
   * once the leader is gone we read on regardless of flow control and, when the output has been
   * quiet for a moment, end the stream ourselves so the exit is reported without that delay.
   * Called by the shared leader watch (below): when a child of this process exits (`zombie`: a
   * leader that has ended but is not reaped yet counts as gone — where /proc tells), and on its
   * net's poll.
   */
  checkLeader(zombie = false): void {
    if (this.leaderGone || (pidAlive(this.pty.pid) && !(zombie && isZombie(this.pty.pid)))) return;
    this.leaderGone = true;
    unwatchLeader(this);
    // Its last output is read at once, held for a keystroke or not.
    this.hold(false);
    this.updateFlow();
    this.armDrain();
    this.markEnd();
  }

  /**
   * Writes a mark through our slave handle once the leader is gone. The kernel queues it after
   * every byte already written to the pty, so reading it means the leader's output has all been
   * read: the stream ends then, not after a quiet spell (which cost every command 30 ms, and a
   * process that kept writing after its leader exited held the exit back for as long as it
   * wrote). Random per terminal (nothing running in it can print it: it is written after them
   * and never shown to them), an APC sequence of capitals and digits (a terminal ignores one;
   * the output flags a program may set, OLCUC and the newline ones, leave those bytes as they are),
   * taken out of the output. When it cannot be written (the queue is full: it is retried as the
   * output is read; where the system revokes the slave as the session's leader exits, as macOS
   * does, never) the quiet spell ends the stream; when it is never read back (a process still in
   * the terminal flushed the queue), a longer one, or node-pty's own close 200 ms after it reaped
   * the leader.
   */
  private markEnd(): void {
    if (this.endMark || this.markCut || this.slaveFd === null || this.exited || this.streamEnded) return;
    const mark = Buffer.from(`\x1b_FLIGHTDECK-END-${randomBytes(8).toString('hex').toUpperCase()}\x1b\\`, 'latin1');
    let n: number;
    try {
      n = writeSync(this.slaveFd, mark);
    } catch {
      return; // EAGAIN (a full queue) or the pty is gone: the quiet spell.
    }
    // A partial write (a queue with less room than the mark; Linux gives room in larger steps):
    // what went in is the mark if it holds enough of the random part to be told from output.
    if (n < MARK_MIN_BYTES) {
      // Those bytes are in the output; the quiet spell ends the stream.
      this.markCut = n > 0;
      return;
    }
    this.endMark = mark.subarray(0, n);
    this.armDrain(MARKED_QUIET_MS);
  }

  private armDrain(ms = DRAIN_QUIET_MS): void {
    if (this.exited) return;
    if (this.drainTimer) clearTimeout(this.drainTimer);
    this.drainTimer = setTimeout(() => {
      this.drainTimer = null;
      // After a stall of this process (a flood in another terminal, a collection) the timer can
      // fire while output waits unread. An I/O phase always comes between a timer and the next
      // immediate: the stream is ended only if its reads bring nothing (a read re-arms the timer,
      // or ends the stream at the mark), and not if node-pty reported the exit meanwhile.
      const reads = this.reads;
      setImmediate(() => {
        if (this.reads === reads && !this.drainTimer && !this.exited && !this.streamEnded) this.endStream('quiet');
      });
    }, ms);
  }

  private endStream(by: 'mark' | 'quiet'): void {
    this.endedBy ??= by;
    if (this.drainTimer) clearTimeout(this.drainTimer);
    this.drainTimer = null;
    const socket = (this.pty as unknown as { _socket?: { destroy(): void } })._socket;
    socket?.destroy();
  }
}

/**
 * Output at 640 KB/s or more (this much within FLOOD_SPAN_MS) is a flood: a `cat` of a large
 * file, a verbose build, `yes`. Its terminal counts as flooding for FLOOD_SPAN_MS after, and is
 * held for other terminals' keystrokes (input-hold.ts). Prompts, echoes, a test runner's
 * progress or a log at a reading pace are far below.
 */
const FLOOD_BYTES = 64 * 1024;
const FLOOD_SPAN_MS = 100;

/** Inputs whose echo timing a terminal keeps for its stats: the benchmark types a few hundred keys; 16 bytes each. */
const ECHO_SAMPLES_MAX = 1_000;

/**
 * When the ptys' leaders are checked for having exited (one cheap kill(pid, 0) per watched
 * terminal). Each leader is a child of this process, so its exit raises SIGCHLD here: the
 * leaders are checked then, a zombie counting as exited where /proc shows it (the signal comes
 * as the child becomes one, and signal 0 still reaches it until node-pty's thread has reaped
 * it), and again every `EXIT_RECHECK_MS` for `EXIT_RECHECK_FOR_MS` where /proc does not tell
 * (macOS): node-pty starts its 200 ms wait only once it has reaped the leader. Between exits
 * nothing wakes this process for them, however many terminals are open: a 20 ms poll of every
 * leader was most of the pty host's idle CPU (50 wake-ups a second; 1.4 % of a core with 30
 * terminals on a slow machine). A slow poll stays as a net (a signal that never came), and
 * Windows, without SIGCHLD, keeps the fast one.
 */
const SIGCHLD_WATCH = process.platform !== 'win32';
/**
 * The poll: the net where SIGCHLD tells of exits, the only watch on Windows. Read when the
 * poll's timer starts (the first watched terminal); a test stretches it to show that the
 * signal alone finds an exit.
 */
export const leaderWatch = { pollMs: SIGCHLD_WATCH ? 1_000 : 20 };
const EXIT_RECHECK_MS = 10;
/** Well inside node-pty's 200 ms wait, after which it destroys the pty's socket. */
const EXIT_RECHECK_FOR_MS = 150;

/**
 * The terminals whose leader is still being watched, all checked by one shared timer (one
 * wake-up per tick for the whole host, not one per terminal); it runs only while one is watched.
 */
const watchedLeaders = new Set<HostTerminal>();
let leaderTimer: NodeJS.Timeout | null = null;
let recheckTimer: NodeJS.Timeout | null = null;
let recheckUntil = 0;

function checkLeaders(zombie = false): void {
  // checkLeader may unwatch the terminal: deleting the current entry while iterating a Set is safe.
  for (const w of watchedLeaders) w.checkLeader(zombie);
}

/** A child of this process ended: check now, and for a moment after (it may not be reaped yet). */
function onChildExit(): void {
  checkLeaders(true);
  // A monotonic clock: a wall clock stepped back would keep this interval going.
  recheckUntil = performance.now() + EXIT_RECHECK_FOR_MS;
  recheckTimer ??= setInterval(() => {
    checkLeaders(true);
    if (performance.now() < recheckUntil && watchedLeaders.size > 0) return;
    clearInterval(recheckTimer!);
    recheckTimer = null;
  }, EXIT_RECHECK_MS);
}

// Listening from the start, not from the first watched terminal: a leader that exits while its
// terminal is being set up raises the signal before it is watched, and is checked when the
// signal's callback runs (a later turn of the event loop, after the terminal is watched).
if (SIGCHLD_WATCH) process.on('SIGCHLD', onChildExit);

function watchLeader(t: HostTerminal): void {
  watchedLeaders.add(t);
  leaderTimer ??= setInterval(() => checkLeaders(), leaderWatch.pollMs);
}

function unwatchLeader(t: HostTerminal): void {
  watchedLeaders.delete(t);
  if (watchedLeaders.size > 0 || !leaderTimer) return;
  clearInterval(leaderTimer);
  leaderTimer = null;
}

/**
 * After the leader exited, output quiet this long means the kernel buffer is drained (the last
 * bytes are already queued when the process is reaped). Well under node-pty's own 200 ms.
 */
const DRAIN_QUIET_MS = 30;
/**
 * The same once the end mark is written: only its net (a mark that never came back, a queue
 * flushed by a process still in the terminal), so it waits longer.
 */
const MARKED_QUIET_MS = 150;
/** The mark's fixed start and 8 of its 16 random characters: a partial write shorter than this is not taken for it. */
const MARK_MIN_BYTES = '\x1b_FLIGHTDECK-END-'.length + 8;

const EMPTY = new Uint8Array(0);

/** How many bytes at the end of `data` are the start of `mark` (0 when none): they may be its beginning, cut by the read. */
export function partialMarkAtEnd(data: Uint8Array, mark: Uint8Array): number {
  for (let n = Math.min(mark.length - 1, data.length); n > 0; n--) {
    let same = true;
    for (let i = 0; i < n && same; i++) same = data[data.length - n + i] === mark[i];
    if (same) return n;
  }
  return 0;
}


export function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // No such group: everything in it has already exited.
  }
}
