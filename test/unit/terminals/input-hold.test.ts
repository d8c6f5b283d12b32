import { describe, expect, it } from 'vitest';
import { INPUT_HOLD_MS, InputHold, KEYSTROKE_MAX_CHARS } from '../../../src-main/terminals/pty-host/input-hold';

/** A terminal as the hold sees it, recording what it was told. */
function term(name: string, flooding: boolean) {
  const t = { name, flooding, awaitingAnswer: true, held: false, changes: [] as boolean[], hold: (on: boolean) => void (t.changes.push(on), (t.held = on)) };
  return t;
}
type T = ReturnType<typeof term>;

/** A clock the test moves by hand. */
function timers() {
  let now = 0;
  const due: Array<{ at: number; fn: () => void; cleared: boolean }> = [];
  return {
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
    hold.typed(typed, 1, [typed, a, b, quiet]);
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

  it('ends a hold whose answer never comes after INPUT_HOLD_MS (a password prompt, stty -echo)', () => {
    const clock = timers();
    const hold = new InputHold<T>(clock);
    const typed = term('typed', false);
    const flood = term('flood', true);
    hold.typed(typed, 1, [typed, flood]);
    clock.advance(INPUT_HOLD_MS - 1);
    expect(flood.held).toBe(true);
    clock.advance(1);
    expect(flood.held).toBe(false);
  });

  it('a keystroke ends the hold of the one before it and holds the terminals flooding now', () => {
    const clock = timers();
    const hold = new InputHold<T>(clock);
    const typed = term('typed', false);
    const a = term('a', true);
    const b = term('b', false);
    hold.typed(typed, 1, [typed, a, b]);
    a.flooding = false;
    b.flooding = true;
    hold.typed(typed, 3, [typed, a, b]);
    expect([a.held, b.held]).toEqual([false, true]);
    expect(a.changes).toEqual([true, false]);
    // The first keystroke's timer does not end the second one's hold early.
    clock.advance(INPUT_HOLD_MS - 1);
    expect(b.held).toBe(true);
    clock.advance(1);
    expect(b.held).toBe(false);
  });

  it('a paste, a terminal that awaits nothing, or nothing flooding holds nobody', () => {
    const clock = timers();
    const hold = new InputHold<T>(clock);
    const typed = term('typed', false);
    const flood = term('flood', true);
    hold.typed(typed, KEYSTROKE_MAX_CHARS + 1, [typed, flood]);
    expect(flood.changes).toEqual([]);
    hold.typed(typed, KEYSTROKE_MAX_CHARS, [typed, flood]);
    expect(flood.held).toBe(true);
    hold.release();
    // An exited terminal takes no input: no answer will come.
    typed.awaitingAnswer = false;
    hold.typed(typed, 1, [typed, flood]);
    expect(flood.changes).toEqual([true, false]);
    typed.awaitingAnswer = true;
    // A flooding terminal typed in is not held for its own keystroke.
    const busy = term('busy', true);
    hold.typed(busy, 1, [busy]);
    expect(busy.changes).toEqual([]);
    expect(hold.count).toBe(1);
  });
});
