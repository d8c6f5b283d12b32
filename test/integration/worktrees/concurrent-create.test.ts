import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorktreeManager } from '../../../src-main/worktrees/worktree-manager';
import { gitIn, makeRepo } from '../../support/temp';

let repo: { path: string; cleanup(): void };
beforeAll(() => {
  repo = makeRepo('fd-concurrent-');
});
afterAll(() => repo.cleanup());

describe('concurrent worktree creation', () => {
  it('one manager: simultaneous creates are serialized and all succeed', async () => {
    const m = new WorktreeManager();
    const slugs = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'];
    const results = await Promise.all(slugs.map((s) => m.create(repo.path, s)));
    expect(results.map((r) => r.entry.branch).sort()).toEqual(slugs.map((s) => `feature/${s}`));
    for (const s of slugs) expect(existsSync(join(repo.path, '.trees', s, 'README.md'))).toBe(true);
    // The first create added the ignore line; the others found it there.
    expect(results.filter((r) => r.gitignoreUpdated)).toHaveLength(1);
    expect(readFileSync(join(repo.path, '.gitignore'), 'utf8').match(/^\.trees\/$/gm)).toHaveLength(1);
    // The same slug twice at once: one wins, the other is told it exists.
    const twice = await Promise.allSettled([m.create(repo.path, 'same'), m.create(repo.path, 'same')]);
    expect(twice.filter((t) => t.status === 'fulfilled')).toHaveLength(1);
    expect(String((twice.find((t) => t.status === 'rejected') as PromiseRejectedResult).reason)).toContain('already exists');
  }, 60_000);

  it('two managers (as two processes would be) creating at once: git keeps them apart', async () => {
    const a = new WorktreeManager();
    const b = new WorktreeManager();
    const made = await Promise.all([...['a1', 'a2', 'a3'].map((s) => a.create(repo.path, s)), ...['b1', 'b2', 'b3'].map((s) => b.create(repo.path, s))]);
    expect(made).toHaveLength(6);
    const listed = gitIn(repo.path, 'worktree', 'list', '--porcelain').match(/^branch refs\/heads\/feature\/[ab]\d$/gm) ?? [];
    expect(listed.sort()).toEqual(['a1', 'a2', 'a3', 'b1', 'b2', 'b3'].map((s) => `branch refs/heads/feature/${s}`));
    expect(gitIn(repo.path, 'fsck', '--no-progress').trim()).toBe('');
  }, 60_000);
});
