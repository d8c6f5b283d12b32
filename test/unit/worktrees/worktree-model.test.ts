import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import {
  archiveMessage,
  archiveRef,
  archiveSlugFor,
  archiveTimestamp,
  isLossless,
  lockFileInMessage,
  parseArchiveMessage,
  parseArchiveRef,
  parseStatusZ,
  parseWorktreeList,
  slugProblem,
  summarizeLoss,
  validateSlug,
} from '../../../src-main/worktrees/worktree-model';
import { KeyedLock } from '../../../src-main/platform/keyed-lock';

describe('slug rules', () => {
  it('accepts lowercase letters, digits and single hyphens up to 64 characters', () => {
    for (const ok of ['a', 'add-user-auth', 'fix-42', '0', 'a'.repeat(64)]) expect(slugProblem(ok)).toBeNull();
  });

  it('refuses everything else with a message naming the rule', () => {
    for (const bad of ['', 'Add', 'a--b', '-a', 'a-', 'a_b', 'a b', 'a/b', '..', 'ä', 'a'.repeat(65)]) {
      const p = slugProblem(bad);
      expect(p, bad).toMatch(/lowercase letters, digits and single hyphens/);
      expect(p).toMatch(/at most 64 characters/);
    }
    expect(slugProblem('a'.repeat(65))).toMatch(/too long \(65 characters\)/);
    expect(() => validateSlug('Bad')).toThrow(AppError);
  });
});

describe('git worktree list --porcelain', () => {
  const newline = [
    'worktree /r',
    'HEAD 1111111111111111111111111111111111111111',
    'branch refs/heads/main',
    '',
    'worktree /r/.trees/a',
    'HEAD 2222222222222222222222222222222222222222',
    'branch refs/heads/feature/a',
    'locked agent running',
    '',
    'worktree /r/.trees/b',
    'HEAD 3333333333333333333333333333333333333333',
    'detached',
    'prunable gitdir file points to non-existent location',
    '',
    'worktree /r/.trees/c',
    'HEAD 4444444444444444444444444444444444444444',
    'branch refs/heads/feature/c',
    'locked',
    'future-attribute xyz',
    '',
  ].join('\n');

  it('parses branches, detached heads, locks (with and without reason) and prunable entries', () => {
    const list = parseWorktreeList(newline);
    expect(list).toHaveLength(4);
    expect(list[0]).toMatchObject({ path: '/r', branch: 'main', locked: null, prunable: null, detached: false });
    expect(list[1]).toMatchObject({ path: '/r/.trees/a', branch: 'feature/a', locked: 'agent running' });
    expect(list[2]).toMatchObject({ branch: null, detached: true, prunable: 'gitdir file points to non-existent location' });
    expect(list[3]).toMatchObject({ branch: 'feature/c', locked: '' });
  });

  it('reads the -z form the same way, keeping a newline inside a path', () => {
    const z = newline.replace(/\n/g, '\0').replace('/r/.trees/a', '/r/.trees/a\nb');
    const list = parseWorktreeList(z);
    expect(list.map((w) => w.path)).toEqual(['/r', '/r/.trees/a\nb', '/r/.trees/b', '/r/.trees/c']);
  });

  it('reads a bare repository entry', () => {
    expect(parseWorktreeList('worktree /srv/x.git\nbare\n\n')).toEqual([{ path: '/srv/x.git', head: null, branch: null, bare: true, detached: false, locked: null, prunable: null }]);
  });
});

describe('git status -z', () => {
  it('separates changes, untracked files and renames', () => {
    const s = parseStatusZ(' M a.txt\0?? new dir/x\0R  to.txt\0from.txt\0A  b\0');
    expect(s).toEqual([
      { code: ' M', path: 'a.txt' },
      { code: '??', path: 'new dir/x' },
      { code: 'R ', path: 'to.txt', from: 'from.txt' },
      { code: 'A ', path: 'b' },
    ]);
  });
});

describe('archive refs', () => {
  it('names refs/flightdeck/archive/<slug>/<timestamp> and reads them back', () => {
    const ts = archiveTimestamp(new Date('2026-02-18T10:30:00.123Z'));
    expect(ts).toBe('20260218T103000Z');
    const ref = archiveRef('add-auth', ts);
    expect(ref).toBe('refs/flightdeck/archive/add-auth/20260218T103000Z');
    expect(parseArchiveRef(ref)).toEqual({ slug: 'add-auth', timestamp: ts });
    expect(parseArchiveRef('refs/flightdeck/archive/add-auth/20260218T103000Z-2')).toEqual({ slug: 'add-auth', timestamp: '20260218T103000Z-2' });
    expect(parseArchiveRef('refs/heads/main')).toBeNull();
    expect(() => archiveRef('../x', ts)).toThrow(/not a valid worktree name/);
  });

  it('files a hand-made worktree with a folder name outside the rules under a folded slug', () => {
    expect(archiveSlugFor('add-auth')).toBe('add-auth');
    expect(archiveSlugFor('My_Fix (2)')).toBe('my-fix-2');
    expect(archiveSlugFor('___')).toBe('worktree');
    expect(slugProblem(archiveSlugFor('X'.repeat(100) + '-y'))).toBeNull();
  });

  it('round-trips the archive commit message', () => {
    const meta = { slug: 's', branch: 'feature/s', base: 'main', head: 'a'.repeat(40), dirty: true };
    expect(parseArchiveMessage(archiveMessage(meta))).toEqual(meta);
    const detached = { ...meta, branch: null, base: null, dirty: false };
    expect(parseArchiveMessage(archiveMessage(detached))).toEqual(detached);
    expect(parseArchiveMessage('some other commit')).toBeNull();
  });
});

describe('what would be lost', () => {
  it('is empty for a clean, pushed worktree', () => {
    const r = { changed: [], untracked: [], unpushed: [] };
    expect(isLossless(r)).toBe(true);
    expect(summarizeLoss(r, 'main')).toEqual([]);
  });

  it('names files and commit subjects, counting beyond the first 20', () => {
    const r = {
      changed: ['src/a.ts'],
      untracked: Array.from({ length: 23 }, (_, i) => `u${i}.txt`),
      unpushed: [{ sha: 'abcdef0123456789abcdef0123456789abcdef01', subject: 'Add login' }],
    };
    expect(isLossless(r)).toBe(false);
    const lines = summarizeLoss(r, 'main');
    expect(lines[0]).toBe('1 file with uncommitted changes: src/a.ts');
    expect(lines[1]).toMatch(/^23 untracked files: u0.txt, .*u19.txt and 3 more$/);
    expect(lines[2]).toBe(`1 commit not on main or the branch's upstream: abcdef0 "Add login"`);
  });
});

describe('lock messages and the keyed lock', () => {
  it('finds the lock file in git\'s message', () => {
    expect(lockFileInMessage("fatal: Unable to create '/r/.git/index.lock': File exists.\n\nAnother git process seems to be running")).toBe('/r/.git/index.lock');
    expect(lockFileInMessage('fatal: not a git repository')).toBeNull();
  });

  it('runs tasks with one key one at a time in order, other keys in parallel, surviving failures', async () => {
    const lock = new KeyedLock();
    const events: string[] = [];
    const task = (name: string, ms: number, fail = false) => async () => {
      events.push(`start ${name}`);
      await new Promise((r) => setTimeout(r, ms));
      events.push(`end ${name}`);
      if (fail) throw new Error(name);
      return name;
    };
    const a = lock.run('r1', task('a', 30, true));
    const b = lock.run('r1', task('b', 1));
    const c = lock.run('r2', task('c', 1));
    await expect(a).rejects.toThrow('a');
    expect(await b).toBe('b');
    expect(await c).toBe('c');
    expect(events.indexOf('end a')).toBeLessThan(events.indexOf('start b'));
    expect(events.indexOf('start c')).toBeLessThan(events.indexOf('end a'));
    await new Promise((r) => setTimeout(r, 0));
    expect(lock.busyKeys()).toEqual([]);
  });
});
