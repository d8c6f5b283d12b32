import { describe, expect, it } from 'vitest';
import { createTwoFilesPatch } from 'diff';
import { diffChangesNothing } from '../../../../src-renderer/src/agents/diff-parse';

/** The approval's preview is built this way (src-main/agents/tools/patch-apply.ts previewDiff). */
const preview = (rel: string, before: string | null, after: string) => createTwoFilesPatch(before === null ? '/dev/null' : `a/${rel}`, `b/${rel}`, before ?? '', after, undefined, undefined, { context: 3 });

describe('an approval diff that changes nothing', () => {
  it('is a write of the content already there', () => {
    expect(diffChangesNothing(preview('a.txt', 'same\n', 'same\n'))).toBe(true);
  });
  it('is not an edit, a new file (even an empty one), or a deletion of every line', () => {
    expect(diffChangesNothing(preview('a.txt', 'old\n', 'new\n'))).toBe(false);
    expect(diffChangesNothing(preview('a.txt', null, ''))).toBe(false);
    expect(diffChangesNothing(preview('a.txt', null, 'x\n'))).toBe(false);
    expect(diffChangesNothing(preview('a.txt', 'x\n', ''))).toBe(false);
  });
});
