import { describe, expect, it } from 'vitest';
import { plainText, TerminalText } from '../../../src-main/terminals/agent-command-runner';

describe('terminal output as plain text', () => {
  it('removes colour, cursor and title sequences and turns CRLF into LF', () => {
    expect(plainText('\x1b[31mred\x1b[0m\r\n\x1b]0;title\x07ok\x1b[2K\r\n')).toBe('red\nok\n');
  });

  it('holds back a sequence or a CR LF split between reads, at every split point', () => {
    const full = 'a\x1b[1;32mgreen\x1b[0m\r\nb\x1b]0;t\x1b\\c\r\n';
    for (let i = 0; i <= full.length; i++) {
      const t = new TerminalText();
      const out = t.push(full.slice(0, i)) + t.push(full.slice(i));
      expect(out, `split at ${i}`).toBe('agreen\nbc\n');
    }
  });

  it('passes a stray escape through once it is clearly not a sequence', () => {
    const t = new TerminalText();
    expect(t.push('x\x1b' + 'y'.repeat(300))).toContain('x');
    // Nothing is held back: the text after the stray ESC comes out in the same read.
    expect(new TerminalText().push('x\x1b' + 'y'.repeat(300))).toBe('x\x1b' + 'y'.repeat(300));
  });
});
