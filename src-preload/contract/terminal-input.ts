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
