/**
 * Text a program the app does not control wrote (a container's console log), made safe to print
 * on the user's own terminal: a terminal obeys escape sequences, and some of them act outside the
 * text (OSC 52 writes the clipboard, OSC 8 makes a link whose text lies about its target, a
 * title, DCS/APC strings some terminals act on, cursor moves that paint over earlier lines).
 * Colours (SGR) are kept; every other sequence goes; \r\n and a lone \r become \n; other control
 * characters show as `?`. Newlines and tabs stay.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const TOKEN = /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d-\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c|$)|(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|\u001b[ -/]*[0-~]?|\r\n?|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex -- an SGR (colour) sequence, kept
const SGR = /^\u001b\[[0-9;:]*m$/;

export function terminalSafe(text: string): string {
  return text.replace(TOKEN, (t) => {
    if (SGR.test(t)) return t;
    if (t[0] === '\r') return '\n';
    if (t.length === 1 && t !== '\u001b') return '?';
    return '';
  });
}
