import { describe, expect, it } from 'vitest';
import { fixRoundText, judgeAnchor, linesOf } from '../../../src-main/review-comments/anchor';

const FILE = ['a', 'b', 'c', 'd', 'e', ''].join('\n');
const at = (lineStart: number, lineEnd = lineStart) => ({ lineStart, lineEnd });

describe('where a review comment stands after a fix', () => {
  it('quotes lines, and nothing past the end', () => {
    expect(linesOf(FILE, 2, 3)).toBe('b\nc');
    expect(linesOf('x\r\ny\r\n', 2, 2)).toBe('y');
    expect(linesOf(FILE, 5, 6)).toBeNull();
    expect(linesOf(FILE, 0, 1)).toBeNull();
  });

  it('addressed when the fix changed, removed part of, or wrote next to or inside its lines', () => {
    expect(judgeAnchor(at(2, 3), FILE, FILE.replace('b', 'B'))).toBe('addressed');
    expect(judgeAnchor(at(2, 3), FILE, FILE.replace('c\n', ''))).toBe('addressed');
    // A doc comment right above, or a line right after, or one between.
    expect(judgeAnchor(at(2, 3), FILE, FILE.replace('b\n', '// why\nb\n'))).toBe('addressed');
    expect(judgeAnchor(at(2, 3), FILE, FILE.replace('c\n', 'c\n// after\n'))).toBe('addressed');
    expect(judgeAnchor(at(2, 3), FILE, FILE.replace('b\n', 'b\nnew\n'))).toBe('addressed');
    // Rewritten wholesale: its lines are gone, something took their place.
    expect(judgeAnchor(at(2, 3), FILE, FILE.replace('b\nc\n', 'x\ny\nz\n'))).toBe('addressed');
  });

  it('outdated when its lines or its file are gone; open when the fix left them and their neighbours alone', () => {
    expect(judgeAnchor(at(2, 3), FILE, FILE.replace('b\nc\n', ''))).toBe('outdated');
    expect(judgeAnchor(at(2, 3), FILE, null)).toBe('outdated');
    expect(judgeAnchor(at(2, 3), FILE, FILE)).toBe('open');
    // Moved down by an edit far above: still to do.
    expect(judgeAnchor(at(4), FILE, `x\n${FILE}`)).toBe('open');
    expect(judgeAnchor(at(1), FILE, FILE.replace('e', 'E'))).toBe('open');
  });

  it('asks for one fix round with each comment anchored as file, lines, the quoted code and the text', () => {
    const text = fixRoundText([
      { file: 'a.ts', lineStart: 3, lineEnd: 3, quote: 'const x = `y`;', body: ' Rename x. ' },
      { file: 'b.ts', lineStart: 1, lineEnd: 2, quote: '```\ncode', body: 'Why?' },
    ]);
    expect(text).toContain('left 2 comments');
    expect(text).toContain('### 1. a.ts, line 3\n\n```\nconst x = `y`;\n```\n\nRename x.');
    // A quote holding a fence gets a longer one, so it cannot close it early.
    expect(text).toContain('### 2. b.ts, lines 1-2\n\n````\n```\ncode\n````\n\nWhy?');
    expect(fixRoundText([{ file: 'a', lineStart: 1, lineEnd: 1, quote: 'q', body: 'b' }])).toContain('left a comment');
  });
});
