import { isTypedInput } from '../../../src-preload/contract/terminal-input';

/** What the hold needs of a terminal (HostTerminal fits). */
export interface Holdable {
  /** Its output is a flood right now (it outruns the reader). */
  readonly flooding: boolean;
  /** Input was written to it, nothing has been read since, and its output is being read (not paused, not ended). */
  readonly awaitingAnswer: boolean;
  /** Stops (true) or resumes (false) reading its pty, flow control aside. */
  hold(on: boolean): void;
}

export interface InputHoldOptions {
  holdMs?: number;
  keystrokeMaxChars?: number;
  unansweredPauseMs?: number;
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

/** Input up to this long is a keystroke (a key, an escape sequence, a short IME commit): its echo is waited for. */
export const KEYSTROKE_MAX_CHARS = 64;
/**
 * The longest a keystroke holds the floods: a terminal that does not echo (a password prompt,
 * `stty -echo`) costs them this much per keystroke. An echo takes 0.5–2 ms on an idle machine,
 * a few more on a busy one. The view waits as long for the same echo before it parses other
 * terminals' output again (OUTPUT_ANSWER_WAIT_MS in output-scheduler.ts).
 */
export const INPUT_HOLD_MS = 8;
/**
 * A terminal whose keystroke is answered this late, or not at all (a password prompt, a program
 * that reads keys without echoing, an ssh session across the world), holds nobody for
 * UNANSWERED_PAUSE_MS: the hold runs out before its answer comes, so every key would cost the
 * floods the whole 8 ms for nothing. A local echo merely slow on a busy machine stays held for:
 * here it is the pty's own echo, key written to echo read, about 3 ms at the bench's p99 during
 * a flood. "Answer" is the first read after the key, whatever it is (a program printing on its
 * own may stand in for it: the rule then leans to holding).
 */
export const SLOW_ANSWER_MS = 25;
/**
 * How long a terminal answered too late or not at all holds nobody; the first key after it
 * tries again (a password prompt still costs the floods one 8 ms hold a second).
 */
export const UNANSWERED_PAUSE_MS = 1_000;

/**
 * After a keystroke in one terminal, the pty host stops reading every other terminal that is
 * flooding until the keystroke's answer (its echo, or the program's reply) has been read, or
 * INPUT_HOLD_MS at most. On a machine whose cores are busy with a flood (the program writing
 * it, this host reading and framing it, the view parsing it) the echo's way back, a wake-up of
 * this host and then of the view, otherwise waits for a CPU at each step. Held, the flooding
 * program blocks on its full pty and this host has nothing else to do; the view holds its
 * parsing of other terminals for the same echo. A flood loses about one echo's round trip per
 * keystroke, and nothing of its output: the pty only is not read meanwhile.
 *
 * Measured with `npm run bench terminals` (three alternating pairs, same code otherwise): echo
 * p99 during a flood 11.4 / 13.4 / 12.1 ms without, 10.0 / 10.8 / 9.7 ms with; the pty's hop
 * (input written → its echo read here) fell most.
 */
export class InputHold<T extends Holdable> {
  private current: { typed: T; held: T[]; timer: unknown; at: number } | null = null;
  /** Terminals whose hold ran out before their answer came: when the key was typed. */
  private readonly late = new Map<T, number>();
  /** Terminals answered too late or not at all (SLOW_ANSWER_MS), and until when they hold nobody. */
  private readonly unanswered = new Map<T, number>();
  private readonly holdMs: number;
  private readonly keystrokeMaxChars: number;
  private readonly unansweredPauseMs: number;
  private readonly now: () => number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (timer: unknown) => void;
  /** Holds started, for the host's stats. */
  count = 0;

  constructor(opts: InputHoldOptions = {}) {
    this.holdMs = opts.holdMs ?? INPUT_HOLD_MS;
    this.keystrokeMaxChars = opts.keystrokeMaxChars ?? KEYSTROKE_MAX_CHARS;
    this.unansweredPauseMs = opts.unansweredPauseMs ?? UNANSWERED_PAUSE_MS;
    this.now = opts.now ?? (() => performance.now());
    this.setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = opts.clearTimer ?? ((t) => clearTimeout(t as NodeJS.Timeout));
  }

  /** The terminals held now (empty when no hold is on). */
  get held(): readonly T[] {
    return this.current?.held ?? [];
  }

  /**
   * `input` was just written to `typed`; `all` are the host's terminals. A keystroke awaiting its
   * answer holds the others that flood, and ends the hold of an earlier one. Nothing else
   * changes anything: a paste (its answer is no echo anybody waits for), the emulator's own
   * answers to queries, mouse and focus reports (isTypedInput), input to a terminal that answers
   * too late or not at all (SLOW_ANSWER_MS).
   */
  typed(typed: T, input: string, all: Iterable<T>): void {
    if (input.length > this.keystrokeMaxChars || !isTypedInput(input)) return;
    this.release();
    const now = this.now();
    // An earlier key whose hold ran out is still unanswered: too late once SLOW_ANSWER_MS have
    // passed since it; before that (a fast typist on a busy machine) its echo may yet come in time.
    const lateSince = this.late.get(typed);
    if (lateSince !== undefined && now - lateSince >= SLOW_ANSWER_MS) {
      this.late.delete(typed);
      this.unanswered.set(typed, now + this.unansweredPauseMs);
    }
    const pausedUntil = this.unanswered.get(typed);
    if (pausedUntil !== undefined && now < pausedUntil) return;
    this.unanswered.delete(typed);
    if (!typed.awaitingAnswer) return;
    const floods: T[] = [];
    for (const t of all) if (t !== typed && t.flooding) floods.push(t);
    if (floods.length === 0) return;
    // Recorded before any is held, so that whatever happens the timer releases every one held.
    const held: T[] = [];
    this.current = { typed, held, at: now, timer: this.setTimer(() => this.ranOut(), this.holdMs) };
    this.count++;
    for (const t of floods) {
      held.push(t);
      t.hold(true);
    }
  }

  /**
   * `t` read its answer: a hold waiting for it ends. An answer that came after its hold ran out
   * and later than SLOW_ANSWER_MS after the key pauses `t`'s holds.
   */
  answered(t: T): void {
    if (this.current?.typed === t) this.release();
    const typedAt = this.late.get(t);
    if (typedAt === undefined) return;
    this.late.delete(t);
    const now = this.now();
    if (now - typedAt >= SLOW_ANSWER_MS) this.unanswered.set(t, now + this.unansweredPauseMs);
  }

  /** `t` exited or was closed: a hold waiting for it ends, a hold of it too (a closed terminal is read to its end), and it is forgotten. */
  forget(t: T): void {
    if (this.current?.typed === t) this.release();
    this.late.delete(t);
    this.unanswered.delete(t);
    const held = this.current?.held;
    const at = held ? held.indexOf(t) : -1;
    if (at < 0) return;
    held!.splice(at, 1);
    t.hold(false);
  }

  release(): void {
    const c = this.current;
    if (!c) return;
    this.current = null;
    this.clearTimer(c.timer);
    for (const t of c.held) t.hold(false);
  }

  private ranOut(): void {
    const c = this.current;
    if (!c) return;
    // The earliest key still unanswered is the one the answer is judged against.
    if (!this.late.has(c.typed)) this.late.set(c.typed, c.at);
    this.release();
  }
}
