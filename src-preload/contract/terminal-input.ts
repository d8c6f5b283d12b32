/**
 * What xterm sends to the program on its own, in answer to a query in the output: device
 * attributes (`CSI ? … c`, `CSI > … c`), status and cursor position reports (`CSI … n`,
 * `CSI row ; col R`), mode reports (`CSI ? … $ y`), window reports (`CSI … t`), and OSC and DCS
 * answers (colours, settings). A replay of old output makes xterm answer its old queries again;
 * those answers are dropped (terminal-view.ts), keys typed meanwhile are not. Shift+F3 and the
 * like (`CSI 1 ; m R`) look like a cursor report and are lost if pressed during a replay.
 */
// eslint-disable-next-line no-control-regex -- escape sequences are what is matched
const REPLY = /^(?:\x1b\[[?>]?[\d;]*(?:c|n|R|t|\$y)|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1bP[^\x1b]*\x1b\\)+$/;

export function isTerminalReply(data: string): boolean {
  return REPLY.test(data);
}

/**
 * Mouse reports (X10/normal `CSI M` and three bytes, SGR `CSI < b ; x ; y M|m`, urxvt
 * `CSI b ; x ; y M`) and focus reports (`CSI I`, `CSI O`): xterm sends them as the pointer moves
 * or the window is focused, with nothing for the program to echo.
 */
// eslint-disable-next-line no-control-regex -- escape sequences are what is matched
const MOUSE_OR_FOCUS = /^(?:\x1b\[M[\s\S]{3}|\x1b\[<\d+;\d+;\d+[Mm]|\x1b\[\d+;\d+;\d+M|\x1b\[[IO])+$/;

/**
 * Whether what xterm hands on (onData) was typed or pasted, whose echo the user is waiting for:
 * not one of its own answers, mouse or focus reports. Only typed input makes the other
 * terminals' output wait for the echo, in the view (output-scheduler.ts) and in the pty host
 * (input-hold.ts): a pointer moving over a program that tracks it would otherwise hold every
 * flood back 8 ms per move.
 */
export function isTypedInput(data: string): boolean {
  return !REPLY.test(data) && !MOUSE_OR_FOCUS.test(data);
}

/**
 * A keystroke answered this long after it, or not at all (a password prompt, a program that
 * reads keys without echoing, an ssh session far away), is not worth waiting for: the wait for
 * its echo (8 ms in the view's output scheduler and in the pty host's input hold) runs out before
 * the answer comes, so every key would hold the other terminals for nothing. A local echo merely
 * slow on a busy machine (about 12 ms key to echo in the view, 3 ms in the pty host, at the
 * bench's p99 during a flood) is well under it.
 */
export const SLOW_ANSWER_MS = 25;
/** How long such a terminal's keystrokes hold nobody; the first key after it tries again (a password prompt still costs one wait a second). */
export const UNANSWERED_PAUSE_MS = 1_000;

/**
 * One terminal's answers to its keystrokes, for whoever waits for them (output-scheduler.ts in
 * the view, input-hold.ts in the pty host): whether the next key's answer is worth waiting for.
 * Times are one clock's milliseconds, the caller's. The "answer" is the terminal's next output,
 * whatever it is: a program printing on its own may stand in for it, and the rule then leans to
 * waiting.
 */
export class AnswerWatch {
  /** When the earliest key was typed whose wait ran out before its answer came; null when none. */
  private lateSince: number | null = null;
  private pausedUntil = Number.NEGATIVE_INFINITY;

  /** The wait for the answer to the key typed at `typedAt` ran out. */
  ranOut(typedAt: number): void {
    this.lateSince ??= typedAt;
  }

  /** The terminal's output came, at `now`: a late answer, or a too-late one that pauses the waits. */
  answered(now: number): void {
    if (this.lateSince === null) return;
    if (now - this.lateSince >= SLOW_ANSWER_MS) this.pausedUntil = now + UNANSWERED_PAUSE_MS;
    this.lateSince = null;
  }

  /**
   * A key was typed at `now`: whether to wait for its answer. An earlier key still unanswered
   * SLOW_ANSWER_MS after it pauses the waits; before that (a fast typist on a busy machine) its
   * echo may yet come in time.
   */
  worthWaiting(now: number): boolean {
    if (this.lateSince !== null && now - this.lateSince >= SLOW_ANSWER_MS) {
      this.lateSince = null;
      this.pausedUntil = now + UNANSWERED_PAUSE_MS;
    }
    return now >= this.pausedUntil;
  }
}
