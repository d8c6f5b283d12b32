/** The Settings → MCP servers form's parsers: the command line and the secret lines. */
import { describe, expect, it } from 'vitest';
import { pairLines, splitCommandLine } from '../../../src-renderer/src/mcp/command-line';

describe('the Settings form', () => {
  it('splits a command line on whitespace, quotes grouping', () => {
    expect(splitCommandLine('npx -y @scope/server --root "/a b" \'c d\'')).toEqual(['npx', '-y', '@scope/server', '--root', '/a b', 'c d']);
    expect(splitCommandLine('   ')).toEqual([]);
    expect(splitCommandLine('""')).toEqual(['']);
  });

  it('reads NAME=value and Name: value lines, refusing one without the separator', () => {
    expect(pairLines('A=1\n\n  B = x=y  \n', '=')).toEqual({ A: '1', B: 'x=y' });
    expect(pairLines('Authorization: Bearer a:b', ':')).toEqual({ Authorization: 'Bearer a:b' });
    expect(() => pairLines('NOVALUE', '=')).toThrow('"NOVALUE" is not NAME=value');
    expect(() => pairLines('=v', '=')).toThrow('is not NAME=value');
  });
});
