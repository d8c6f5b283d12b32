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
