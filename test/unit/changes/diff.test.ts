import { describe, expect, it } from 'vitest';
import { fileChange, formatGitDiff, isBinary, MAX_DIFF_BYTES, revertHunk } from '../../../src-main/changes/diff';
import { requests } from '../../../src-preload/contract';

const b = (s: string) => Buffer.from(s);
const BASE = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join('\n') + '\n';

describe('changes: pure diff logic', () => {
  it('gives no change for equal or absent content, and the status otherwise', () => {
    expect(fileChange('a', b('x\n'), b('x\n'))).toBeNull();
    expect(fileChange('a', null, null)).toBeNull();
    expect(fileChange('a', null, b('x\n'))).toMatchObject({ status: 'added', added: 1, removed: 0 });
    expect(fileChange('a', b('x\n'), null)).toMatchObject({ status: 'deleted', added: 0, removed: 1 });
  });

  it('writes git-format headers, with an empty side starting at 0', () => {
    const added = fileChange('n.txt', null, b('one\ntwo\n'))!;
    expect(added.diff).toBe('diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n');
    expect(formatGitDiff('d', 'deleted', [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 0, lines: ['-x'] }])).toContain('@@ -1 +0,0 @@');
  });

  it('leaves binary and oversized files without hunks', () => {
    expect(isBinary(b('a\0b'))).toBe(true);
    expect(fileChange('img', b('\0\x01'), b('\0\x02'))).toMatchObject({ binary: true, hunks: [], diff: '' });
    const big = Buffer.alloc(MAX_DIFF_BYTES, 'a');
    expect(fileChange('big', big, b('small'))).toMatchObject({ tooLarge: true, hunks: [] });
  });

  it('reverts one hunk, also after lines above it moved, and refuses when its lines changed', () => {
    const edited = BASE.replace('l2\n', 'L2\n').replace('l18\n', 'L18\n');
    const change = fileChange('f', b(BASE), b(edited))!;
    expect(change.hunks).toHaveLength(2);
    expect(revertHunk(edited, 'f', change.hunks[1]!)).toBe(BASE.replace('l2\n', 'L2\n'));
    // Lines inserted above shift the hunk: it still applies.
    const shifted = 'new top\n' + edited;
    expect(revertHunk(shifted, 'f', change.hunks[1]!)).toBe('new top\n' + BASE.replace('l2\n', 'L2\n'));
    // The hunk's own line changed again: refused.
    expect(revertHunk(edited.replace('L18\n', 'L18 again\n'), 'f', change.hunks[1]!)).toBeNull();
  });
});

describe('changes, providers and folders contract: malformed input is refused', () => {
  const bad: Array<[keyof typeof requests, unknown]> = [
    ['changes.list', { sessionId: 'x' }],
    ['changes.list', { sessionId: 'ses-abcdef12', scope: 'everything' }],
    ['changes.revertFile', { sessionId: 'ses-abcdef12', path: '' }],
    ['changes.revertFile', { sessionId: 'ses-abcdef12', path: 'a\0b' }],
    ['changes.revertHunk', { sessionId: 'ses-abcdef12', path: 'a', hunk: { oldStart: -1, oldLines: 0, newStart: 1, newLines: 1, lines: ['+x'] } }],
    ['changes.revertHunk', { sessionId: 'ses-abcdef12', path: 'a', hunk: { oldStart: 1, oldLines: 0, newStart: 1, newLines: 1, lines: [] } }],
    ['changes.commit', { sessionId: 'ses-abcdef12', paths: [], message: 'm' }],
    ['changes.commit', { sessionId: 'ses-abcdef12', paths: ['a'], message: '   ' }],
    ['changes.commit', { sessionId: 'ses-abcdef12', paths: ['a'], message: 'm', extra: 1 }],
    ['providers.testConnection', { name: 'Bad Name!' }],
    ['folders.suggest', { typed: 'a\0' }],
    ['folders.suggest', { typed: 'x'.repeat(5000) }],
  ];
  it.each(bad)('%s refuses %j', (channel, input) => {
    expect(requests[channel].input.safeParse(input).success).toBe(false);
  });
  it('accepts well-formed input', () => {
    expect(requests['changes.list'].input.parse({ sessionId: 'ses-abcdef12' })).toEqual({ sessionId: 'ses-abcdef12', scope: 'session' });
    expect(requests['folders.suggest'].input.safeParse({ typed: '' }).success).toBe(true);
  });
});
