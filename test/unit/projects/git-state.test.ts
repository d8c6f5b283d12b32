import { describe, expect, it } from 'vitest';
import { parseStatusCount, parseWorktreeCount } from '../../../src-main/projects/git-state';

describe('parseStatusCount', () => {
  it('counts porcelain -z entries, renames carrying a second path', () => {
    expect(parseStatusCount('')).toBe(0);
    expect(parseStatusCount(' M a.txt\0?? b.txt\0')).toBe(2);
    expect(parseStatusCount('R  new.txt\0old.txt\0 M c.txt\0')).toBe(2);
    expect(parseStatusCount('?? with space.txt\0')).toBe(1);
  });
});

describe('parseWorktreeCount', () => {
  it('counts linked worktrees only', () => {
    expect(parseWorktreeCount('worktree /repo\nHEAD abc\nbranch refs/heads/main\n\n')).toBe(0);
    expect(parseWorktreeCount('worktree /repo\nHEAD abc\n\nworktree /wt/a\nHEAD def\n\nworktree /wt/b\nHEAD 123\n')).toBe(2);
    expect(parseWorktreeCount('')).toBe(0);
  });
});
