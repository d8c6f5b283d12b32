/**
 * A feature's review data on a real repository: the branch diff against its merge base
 * (committed and uncommitted work, not the base's own later commits) and spend per day.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { featureDiff, spendPerDay } from '../../../src-main/features/review';
import { activeStatePath } from '../../../src-main/features/scanner';
import { newFeatureState, writeState } from '../../../src-main/features/state';
import { openDatabase } from '../../../src-main/store/db';
import { makeRepo, tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

const g = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });

function featureRepo() {
  const repo = makeRepo('fd-review-');
  cleanups.push(repo.cleanup);
  const root = repo.path;
  writeFileSync(join(root, 'shared.txt'), 'one\ntwo\nthree\n');
  g(root, 'add', '.');
  g(root, 'commit', '-qm', 'shared');
  const wt = join(root, '.trees', 'add-thing');
  g(root, 'worktree', 'add', '-q', '-b', 'feature/add-thing', wt, 'main');
  writeState(activeStatePath(root, 'add-thing'), newFeatureState({ slug: 'add-thing', now: new Date(), worktreePath: '.trees/add-thing', branch: 'feature/add-thing', baseBranch: 'main', devPhases: ['build'] }));
  return { root, wt };
}

describe('featureDiff', () => {
  it("shows the branch's commits and uncommitted work against the merge base, not the base's later commits", async () => {
    const { root, wt } = featureRepo();
    writeFileSync(join(wt, 'shared.txt'), 'one\nTWO\nthree\n');
    g(wt, 'commit', '-qam', 'change two');
    mkdirSync(join(wt, 'src'));
    writeFileSync(join(wt, 'src', 'new.ts'), 'export const n = 1;\n');
    // The base moves on after the branch left it: that change is not the feature's.
    writeFileSync(join(root, 'later-on-main.txt'), 'main only\n');
    g(root, 'add', 'later-on-main.txt');
    g(root, 'commit', '-qm', 'later on main');

    const d = await featureDiff(root, 'add-thing');
    expect(d.branch).toBe('feature/add-thing');
    expect(d.base).toBe('main');
    expect(d.mergeBase).toBe(g(root, 'rev-parse', 'HEAD~1').trim());
    const paths = d.changes.files.map((f) => f.path);
    expect(paths).toContain('shared.txt');
    expect(paths).toContain('src/new.ts');
    expect(paths).not.toContain('later-on-main.txt');
    // The feature's own state files are untracked in the worktree and part of its work too.
    const shared = d.changes.files.find((f) => f.path === 'shared.txt')!;
    expect(shared).toMatchObject({ status: 'modified', added: 1, removed: 1 });
    expect(shared.diff).toContain('+TWO');
    expect(d.changes.files.find((f) => f.path === 'src/new.ts')).toMatchObject({ status: 'added' });
  });

  it('an unknown slug, or a feature whose worktree folder was deleted by hand, is a clear error naming it', async () => {
    const { root, wt } = featureRepo();
    await expect(featureDiff(root, 'nope')).rejects.toThrow(/no feature "nope"/);
    execFileSync('rm', ['-rf', wt]);
    await expect(featureDiff(root, 'add-thing')).rejects.toThrow(/no feature "add-thing"/);
  });
});

describe('spendPerDay', () => {
  it('sums model calls per local day, zero-filled, and per project', () => {
    const dir = tempDir('fd-spend-');
    cleanups.push(dir.cleanup);
    const db = openDatabase(join(dir.path, 'db.sqlite'));
    cleanups.unshift(() => db.close());
    const now = Date.parse('2026-03-10T12:00:00Z');
    const ses = (id: string, project: string | null) =>
      db
        .prepare(`INSERT INTO agent_sessions (id, title, root, project_id, mode, profile, model, policy_preset, disabled_tools, status, todos, state, turn_count, created_at, updated_at) VALUES (?, 't', '/r', ?, 'default', 'p', 'm', 'balanced', '[]', 'idle', '[]', '{}', 0, 0, 0)`)
        .run(id, project);
    if (!db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'projects'`).get()) throw new Error('no projects table');
    db.prepare(`INSERT INTO projects (id, name, path, added_at) VALUES ('prj-aaaaaa', 'a', '/a', 0)`).run();
    ses('ses-aaaaaaaa', 'prj-aaaaaa');
    ses('ses-bbbbbbbb', null);
    const cost = (session: string, at: number, usd: number) =>
      db.prepare(`INSERT INTO agent_costs (session_id, turn_id, purpose, profile, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, usd, created_at) VALUES (?, NULL, 'turn', 'p', 'm', 10, 1, 0, 0, ?, ?)`).run(session, usd, at);
    cost('ses-aaaaaaaa', Date.parse('2026-03-10T01:00:00Z'), 0.5);
    cost('ses-bbbbbbbb', Date.parse('2026-03-10T02:00:00Z'), 0.25);
    cost('ses-aaaaaaaa', Date.parse('2026-03-08T23:30:00Z'), 1);
    cost('ses-aaaaaaaa', Date.parse('2026-01-01T00:00:00Z'), 9); // outside the window

    const all = spendPerDay(db, { days: 3, tzOffsetMinutes: 0, now });
    expect(all.map((d) => [d.day, d.usd, d.calls])).toEqual([
      ['2026-03-08', 1, 1],
      ['2026-03-09', 0, 0],
      ['2026-03-10', 0.75, 2],
    ]);
    // One hour east of UTC, 23:30 UTC on the 8th is already the 9th.
    const east = spendPerDay(db, { days: 3, tzOffsetMinutes: 60, now });
    expect(east.map((d) => [d.day, d.usd])).toEqual([
      ['2026-03-08', 0],
      ['2026-03-09', 1],
      ['2026-03-10', 0.75],
    ]);
    const one = spendPerDay(db, { days: 3, tzOffsetMinutes: 0, now, projectId: 'prj-aaaaaa' });
    expect(one.at(-1)).toMatchObject({ usd: 0.5, calls: 1, inputTokens: 10 });
  });
});
