import { AnswerWatch, isTypedInput } from '../../../src-preload/contract/terminal-input';

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
  /** Each typed terminal's answers (too late or none: its keys hold nobody for a while). */
  private readonly answers = new Map<T, AnswerWatch>();
  private readonly holdMs: number;
  private readonly keystrokeMaxChars: number;
  private readonly now: () => number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (timer: unknown) => void;
  /** Holds started, for the host's stats. */
  count = 0;

  constructor(opts: InputHoldOptions = {}) {
    this.holdMs = opts.holdMs ?? INPUT_HOLD_MS;
    this.keystrokeMaxChars = opts.keystrokeMaxChars ?? KEYSTROKE_MAX_CHARS;
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
   * too late or not at all (AnswerWatch).
   */
  typed(typed: T, input: string, all: Iterable<T>): void {
    if (input.length > this.keystrokeMaxChars || !isTypedInput(input)) return;
    this.release();
    const now = this.now();
    let answers = this.answers.get(typed);
    if (!answers) this.answers.set(typed, (answers = new AnswerWatch()));
    if (!answers.worthWaiting(now)) return;
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

  /** `t` read its answer: a hold waiting for it ends; a late one is judged (AnswerWatch). */
  answered(t: T): void {
    if (this.current?.typed === t) this.release();
    this.answers.get(t)?.answered(this.now());
  }

  /** `t` exited or was closed: a hold waiting for it ends, a hold of it too (a closed terminal is read to its end), and it is forgotten. */
  forget(t: T): void {
    if (this.current?.typed === t) this.release();
    this.answers.delete(t);
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
    this.answers.get(c.typed)?.ranOut(c.at);
    this.release();
  }
}
