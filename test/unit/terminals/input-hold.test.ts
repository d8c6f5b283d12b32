import { describe, expect, it } from 'vitest';
import { INPUT_HOLD_MS, InputHold, KEYSTROKE_MAX_CHARS } from '../../../src-main/terminals/pty-host/input-hold';
import { SLOW_ANSWER_MS, UNANSWERED_PAUSE_MS } from '../../../src-preload/contract/terminal-input';

/** A terminal as the hold sees it, recording what it was told. */
function term(name: string, flooding: boolean) {
  const t = {
    name,
    flooding,
    /** Whether it could answer if it were not held (HostTerminal: not exited, not paused by flow control). */
    canAnswer: true,
    get awaitingAnswer() {
      return t.canAnswer && !t.held;
    },
    held: false,
    changes: [] as boolean[],
    hold: (on: boolean) => void (t.changes.push(on), (t.held = on)),
  };
  return t;
}
type T = ReturnType<typeof term>;

/** A clock the test moves by hand. */
function timers() {
  let now = 0;
  const due: Array<{ at: number; fn: () => void; cleared: boolean }> = [];
  return {
    now: () => now,
    setTimer: (fn: () => void, ms: number) => {
      const t = { at: now + ms, fn, cleared: false };
      due.push(t);
      return t;
    },
    clearTimer: (t: unknown) => void ((t as { cleared: boolean }).cleared = true),
    advance(ms: number) {
      now += ms;
      for (const t of due.splice(0)) {
        if (t.cleared) continue;
        if (t.at <= now) t.fn();
        else due.push(t);
      }
    },
  };
}

describe('InputHold', () => {
  it("holds every other flooding terminal from a keystroke until the typed terminal's answer", () => {
    const clock = timers();
    const hold = new InputHold<T>(clock);
    const typed = term('typed', false);
    const a = term('flood a', true);
    const b = term('flood b', true);
    const quiet = term('quiet', false);
    hold.typed(typed, 'k', [typed, a, b, quiet]);
    expect([a.held, b.held, quiet.held, typed.held]).toEqual([true, true, false, false]);
    expect(hold.held).toEqual([a, b]);
    // Another terminal's output is no answer.
    hold.answered(a);
    expect(a.held).toBe(true);
    hold.answered(typed);
    expect([a.held, b.held]).toEqual([false, false]);
    expect(hold.held).toEqual([]);
    // The timer of the ended hold does nothing later.
    clock.advance(INPUT_HOLD_MS);
    expect(a.changes).toEqual([true, false]);
    expect(hold.count).toBe(1);
  });

  it('ends a hold whose answer never comes after INPUT_HOLD_MS; a terminal answered too late or not at all then holds nobody for a second', () => {
    const clock = timers();
    const hold = new InputHold<T>(clock);
    const typed = term('password prompt', false);
    const flood = term('flood', true);
    hold.typed(typed, 's', [typed, flood]);
    clock.advance(INPUT_HOLD_MS - 1);
    expect(flood.held).toBe(true);
    clock.advance(1);
    expect(flood.held).toBe(false);
    // The next key soon after: the first one's echo may yet come in time (a busy machine), so it holds.
    clock.advance(2);
    hold.typed(typed, 'e', [typed, flood]);
    expect(flood.held).toBe(true);
    clock.advance(INPUT_HOLD_MS);
    expect(flood.held).toBe(false);
    // SLOW_ANSWER_MS after the first key, still nothing: the keys cost the flood nothing for a second...
    clock.advance(SLOW_ANSWER_MS - 2 - INPUT_HOLD_MS * 2);
    hold.typed(typed, 'c', [typed, flood]);
    clock.advance(UNANSWERED_PAUSE_MS - 1);
    hold.typed(typed, 'r', [typed, flood]);
    expect(flood.changes).toEqual([true, false, true, false]);
    // ...then one key tries again.
    clock.advance(1);
    hold.typed(typed, 'e', [typed, flood]);
    expect(flood.held).toBe(true);
    // Answered in time: the hold ends at once and the next key holds again.
    hold.answered(typed);
    expect(flood.held).toBe(false);
    hold.typed(typed, 't', [typed, flood]);
    expect(flood.held).toBe(true);
    hold.answered(typed);
    // Another terminal's keystrokes are not paused by this one's silence.
    hold.typed(typed, 'x', [typed, flood]);
    clock.advance(SLOW_ANSWER_MS);
    hold.typed(typed, 'y', [typed, flood]);
    expect(flood.held).toBe(false);
    const other = term('shell', false);
    hold.typed(other, 'l', [typed, flood, other]);
    expect(flood.held).toBe(true);
  });

  it('a key typed before a merely slow echo (a fast typist on a busy machine) keeps the holds', () => {
    const clock = timers();
    const hold = new InputHold<T>(clock);
    const shell = term('shell', false);
    const flood = term('flood', true);
    hold.typed(shell, 'l', [shell, flood]);
    clock.advance(INPUT_HOLD_MS + 2);
    hold.typed(shell, 's', [shell, flood]);
    expect(flood.held).toBe(true);
    // Both echoes come 12 ms after the first key: not too late.
    clock.advance(2);
    hold.answered(shell);
    expect(flood.held).toBe(false);
    clock.advance(SLOW_ANSWER_MS);
    hold.typed(shell, '\r', [shell, flood]);
    expect(flood.held).toBe(true);
  });

  it('an answer a little late (a busy machine) keeps the holds; one SLOW_ANSWER_MS late (an ssh session far away) pauses them', () => {
    const clock = timers();
    const hold = new InputHold<T>(clock);
    const shell = term('local shell', false);
    const ssh = term('ssh', false);
    const flood = term('flood', true);
    const all = [shell, ssh, flood];
    hold.typed(shell, 'l', all);
    clock.advance(INPUT_HOLD_MS + 4);
    hold.answered(shell);
    hold.typed(shell, 's', all);
    expect(flood.held).toBe(true);
    hold.release();
    hold.typed(ssh, 'l', all);
    clock.advance(SLOW_ANSWER_MS);
    hold.answered(ssh);
    hold.typed(ssh, 's', all);
    expect(flood.held).toBe(false);
    clock.advance(UNANSWERED_PAUSE_MS);
    hold.typed(ssh, '\r', all);
    expect(flood.held).toBe(true);
  });

  it('a keystroke ends the hold of the one before it and holds the terminals flooding now', () => {
    const clock = timers();
    const hold = new InputHold<T>(clock);
    const typed = term('typed', false);
    const a = term('a', true);
    const b = term('b', false);
    hold.typed(typed, 'k', [typed, a, b]);
    a.flooding = false;
    b.flooding = true;
    hold.typed(typed, '\x1b[A', [typed, a, b]);
    expect([a.held, b.held]).toEqual([false, true]);
    expect(a.changes).toEqual([true, false]);
    // The first keystroke's timer does not end the second one's hold early.
    clock.advance(INPUT_HOLD_MS - 1);
    expect(b.held).toBe(true);
    clock.advance(1);
    expect(b.held).toBe(false);
  });

  it('a paste, mouse and focus reports, the emulator’s answers, a terminal that cannot answer, or nothing flooding hold nobody', () => {
    const clock = timers();
    const hold = new InputHold<T>(clock);
    const typed = term('typed', false);
    const flood = term('flood', true);
    hold.typed(typed, 'x'.repeat(KEYSTROKE_MAX_CHARS + 1), [typed, flood]);
    for (const report of ['\x1b[<35;12;7M', '\x1b[<0;1;1m', '\x1b[M !!', '\x1b[I', '\x1b[O', '\x1b[12;40R', '\x1b[?1;2c', '\x1b]11;rgb:0000/0000/0000\x07']) hold.typed(typed, report, [typed, flood]);
    expect(flood.changes).toEqual([]);
    hold.typed(typed, 'y'.repeat(KEYSTROKE_MAX_CHARS), [typed, flood]);
    expect(flood.held).toBe(true);
    hold.release();
    // An exited terminal, or one paused by flow control: no answer is read.
    typed.canAnswer = false;
    hold.typed(typed, 'k', [typed, flood]);
    expect(flood.changes).toEqual([true, false]);
    typed.canAnswer = true;
    // A flooding terminal typed in is not held for its own keystroke.
    const busy = term('busy', true);
    hold.typed(busy, 'k', [busy]);
    expect(busy.changes).toEqual([]);
    expect(hold.count).toBe(1);
  });

  it('a held terminal that is closed is read again at once; a typed one that exits ends the hold', () => {
    const clock = timers();
    const hold = new InputHold<T>(clock);
    const typed = term('typed', false);
    const a = term('a', true);
    const b = term('b', true);
    hold.typed(typed, 'k', [typed, a, b]);
    hold.forget(a);
    expect([a.held, b.held]).toEqual([false, true]);
    expect(hold.held).toEqual([b]);
    hold.forget(typed);
    expect(b.held).toBe(false);
    clock.advance(INPUT_HOLD_MS);
    expect(a.changes).toEqual([true, false]);
    expect(b.changes).toEqual([true, false]);
  });

  it('a key typed into a terminal held for another one ends that hold first, and holds the floods but itself', () => {
    const clock = timers();
    const hold = new InputHold<T>(clock);
    const shell = term('shell', false);
    const build = term('build', true);
    const log = term('log', true);
    hold.typed(shell, 'l', [shell, build, log]);
    expect([build.held, log.held]).toEqual([true, true]);
    // Ctrl+C into the flooding build, held for the shell's echo: released, it can answer, and the log waits for that.
    hold.typed(build, '\x03', [shell, build, log]);
    expect([build.held, log.held]).toEqual([false, true]);
    expect(hold.held).toEqual([log]);
  });

  it('forgets a terminal that exits: its pause and its holds go with it', () => {
    const clock = timers();
    const hold = new InputHold<T>(clock);
    const silent = term('silent', false);
    const flood = term('flood', true);
    hold.typed(silent, 'x', [silent, flood]);
    clock.advance(INPUT_HOLD_MS);
    hold.forget(silent);
    // A terminal started later in its place (a new object) is not paused; the same one after forget neither.
    hold.typed(silent, 'y', [silent, flood]);
    expect(flood.held).toBe(true);
  });
});
