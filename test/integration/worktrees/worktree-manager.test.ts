import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import { GitError } from '../../../src-main/git/git';
import { WorktreeManager } from '../../../src-main/worktrees/worktree-manager';
import { startTestApp } from '../../support/app';
import { gitIn, makeRepo, tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).reverse().forEach((c) => c()));

/** A clone of a bare `origin` (so origin/HEAD is set, as after a real clone), with one commit on main. */
function repoWithOrigin(): { work: string; origin: string } {
  const seed = makeRepo('fd-wt-seed-');
  const home = tempDir('fd-wt-');
  cleanups.push(seed.cleanup, home.cleanup);
  const origin = join(home.path, 'origin.git');
  gitIn(home.path, 'init', '-q', '--bare', '-b', 'main', origin);
  gitIn(seed.path, 'push', '-q', origin, 'main');
  const work = join(home.path, 'work');
  gitIn(home.path, 'clone', '-q', origin, work);
  return { work, origin };
}

function manager(o: ConstructorParameters<typeof WorktreeManager>[0] = {}): WorktreeManager {
  const m = new WorktreeManager({ settleMs: 150, ...o });
  m.start();
  cleanups.push(() => m.dispose());
  return m;
}

async function failure(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('WorktreeManager', () => {
  it('creates .trees/<slug> on <prefix>/<slug> from the detected base, ignores .trees/, lists and inspects it', async () => {
    const { work } = repoWithOrigin();
    gitIn(work, 'switch', '-q', '-c', 'elsewhere'); // The base comes from origin HEAD, not the current branch.
    const m = manager();
    expect(await m.detectBase(work)).toBe('main');
    const created = await m.create(work, 'add-auth');
    expect(created.gitignoreUpdated).toBe(true);
    expect(readFileSync(join(work, '.gitignore'), 'utf8')).toBe('.trees/\n');
    expect(created.entry).toMatchObject({ slug: 'add-auth', path: join(work, '.trees', 'add-auth'), branch: 'feature/add-auth', managed: true, missing: false });
    expect(gitIn(join(work, '.trees/add-auth'), 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('feature/add-auth');
    expect((await m.create(work, 'second')).gitignoreUpdated).toBe(false);
    // A rule that negates: whether .trees/ is ignored is git's to say (not read from the line alone).
    writeFileSync(join(work, '.gitignore'), '.trees/\n!.trees/\n');
    expect((await m.create(work, 'third')).gitignoreUpdated).toBe(true);
    expect(readFileSync(join(work, '.gitignore'), 'utf8')).toBe('.trees/\n!.trees/\n.trees/\n');
    await m.remove(work, 'third', { force: true });
    // The same negation behind a byte-order mark, with .trees/ named in info/exclude: git skips
    // the mark, so the line still negates and .trees/ is not ignored.
    const exclude = join(work, '.git', 'info', 'exclude');
    const excludeBefore = readFileSync(exclude, 'utf8');
    writeFileSync(join(work, '.gitignore'), '\ufeff!.trees/\n');
    writeFileSync(exclude, `${excludeBefore}.trees/\n`);
    expect(() => gitIn(work, 'check-ignore', '-q', '--no-index', '.trees/x')).toThrow();
    expect((await m.create(work, 'fourth')).gitignoreUpdated).toBe(true);
    await m.remove(work, 'fourth', { force: true });
    writeFileSync(exclude, excludeBefore);
    writeFileSync(join(work, '.gitignore'), '.trees/\n');

    const wt = join(work, '.trees/add-auth');
    writeFileSync(join(wt, 'a.txt'), 'one\n');
    gitIn(wt, 'add', 'a.txt');
    gitIn(wt, 'commit', '-q', '-m', 'Add a');
    writeFileSync(join(wt, 'README.md'), '# changed\n');
    writeFileSync(join(wt, 'notes.md'), 'draft\n');
    const d = await m.inspect(work, 'add-auth');
    expect(d).toMatchObject({ branch: 'feature/add-auth', base: 'main', changed: ['README.md'], untracked: ['notes.md'], aheadOfBase: 1, behindBase: 0, upstream: null });
    expect(d.lastCommit?.subject).toBe('Add a');
    expect(d.diskBytes).toBe('one\n'.length + '# changed\n'.length + 'draft\n'.length);

    const list = await m.list(join(wt, 'subdir-does-not-matter', '..'));
    expect(list.map((e) => e.slug).sort()).toEqual(['add-auth', 'second']);

    expect((await failure(m.create(work, 'Bad_Name'))).message).toMatch(/lowercase letters, digits and single hyphens/);
    expect((await failure(m.create(work, 'add-auth'))).message).toMatch(/already exists/);
  });

  it('falls back to main/master, then the current branch, when origin has no HEAD', async () => {
    const r = makeRepo();
    cleanups.push(r.cleanup);
    expect(await manager().detectBase(r.path)).toBe('main');
    gitIn(r.path, 'branch', '-m', 'main', 'trunk');
    expect(await manager().detectBase(r.path)).toBe('trunk');
    gitIn(r.path, 'branch', 'master');
    expect(await manager().detectBase(r.path)).toBe('master');
    expect(await manager({ baseBranch: 'trunk' }).detectBase(r.path)).toBe('trunk');
  });

  it('refuses to remove a dirty worktree or one with unpushed commits, naming files and subjects; archives and restores it', async () => {
    const { work } = repoWithOrigin();
    const m = manager({ now: () => new Date('2026-02-18T10:30:00Z') });
    await m.create(work, 'feat');
    const wt = join(work, '.trees/feat');
    writeFileSync(join(wt, 'done.txt'), 'committed\n');
    gitIn(wt, 'add', 'done.txt');
    gitIn(wt, 'commit', '-q', '-m', 'Finish the login form');
    writeFileSync(join(wt, 'README.md'), '# edited, not committed\n');
    rmSync(join(wt, 'done.txt'));
    mkdirSync(join(wt, 'new'));
    writeFileSync(join(wt, 'new', 'untracked.txt'), 'only here\n');
    const tip = gitIn(wt, 'rev-parse', 'HEAD').trim();

    const refused = await failure(m.remove(work, 'feat'));
    expect(refused.code).toBe('conflict');
    expect(refused.message).toContain('2 files with uncommitted changes: README.md, done.txt');
    expect(refused.message).toContain('new/untracked.txt');
    expect(refused.message).toContain('"Finish the login form"');
    expect(refused.message).toContain('--force');
    expect(existsSync(join(wt, 'new', 'untracked.txt'))).toBe(true);
    expect(gitIn(work, 'for-each-ref', 'refs/flightdeck/')).toBe('');

    const removed = await m.remove(work, 'feat', { force: true });
    expect(removed.archive.ref).toBe('refs/flightdeck/archive/feat/20260218T103000Z');
    expect(removed.branchDeleted).toBe(true);
    expect(existsSync(wt)).toBe(false);
    expect(gitIn(work, 'branch', '--list', 'feature/feat').trim()).toBe('');
    expect(gitIn(work, 'rev-parse', `${removed.archive.ref}^1`).trim()).toBe(tip);
    expect(gitIn(work, 'show', `${removed.archive.ref}:new/untracked.txt`)).toBe('only here\n');
    expect((await m.archives(work, 'feat'))[0]).toMatchObject({ dirty: true, head: tip, branch: 'feature/feat', base: 'main' });

    const restored = await m.restore(work, 'feat');
    expect(restored.reappliedDirty).toBe(true);
    expect(gitIn(wt, 'rev-parse', 'HEAD').trim()).toBe(tip);
    expect(gitIn(wt, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('feature/feat');
    expect(readFileSync(join(wt, 'README.md'), 'utf8')).toBe('# edited, not committed\n');
    expect(readFileSync(join(wt, 'new', 'untracked.txt'), 'utf8')).toBe('only here\n');
    // Back as uncommitted work, not as a commit.
    expect(gitIn(wt, 'status', '--porcelain', '--untracked-files=all')).toBe(' M README.md\n D done.txt\n?? new/untracked.txt\n');
    expect(existsSync(join(wt, 'done.txt'))).toBe(false);
  });

  it('refuses a worktree whose only risk is an unpushed commit; removes a pushed, clean one without asking', async () => {
    const { work } = repoWithOrigin();
    const m = manager();
    await m.create(work, 'pushed');
    const wt = join(work, '.trees/pushed');
    writeFileSync(join(wt, 'x.txt'), 'x\n');
    gitIn(wt, 'add', 'x.txt');
    gitIn(wt, 'commit', '-q', '-m', 'Only local');
    const e = await failure(m.remove(work, 'pushed'));
    expect(e.message).toMatch(/1 commit not on main or the branch's upstream: [0-9a-f]{7} "Only local"/);
    expect(e.message).not.toMatch(/untracked/);
    gitIn(wt, 'push', '-q', '-u', 'origin', 'feature/pushed');
    const d = await m.inspect(work, 'pushed');
    expect(d).toMatchObject({ upstream: 'origin/feature/pushed', aheadOfUpstream: 0, behindUpstream: 0, aheadOfBase: 1 });
    const r = await m.remove(work, 'pushed');
    expect(r.archive.dirty).toBe(false);
    expect(r.saved).toEqual([]);
    expect(existsSync(wt)).toBe(false);
  });

  it('lists a worktree created outside Flightdeck, and flags a vanished folder, pruning it only on confirmation', async () => {
    const { work } = repoWithOrigin();
    const outside = tempDir('fd-wt-outside-');
    cleanups.push(outside.cleanup);
    gitIn(work, 'worktree', 'add', '-q', '-b', 'hand-made', join(outside.path, 'mine'));
    const m = manager();
    await m.create(work, 'gone');
    const list = await m.list(work);
    expect(list.find((e) => e.slug === 'mine')).toMatchObject({ branch: 'hand-made', managed: false, missing: false });

    gitIn(join(work, '.trees/gone'), 'commit', '-q', '--allow-empty', '-m', 'Work before the folder vanished');
    const tip = gitIn(work, 'rev-parse', 'feature/gone').trim();
    rmSync(join(work, '.trees/gone'), { recursive: true, force: true });
    const flagged = (await m.list(work)).find((e) => e.slug === 'gone');
    expect(flagged).toMatchObject({ missing: true });
    const details = await m.inspect(work, 'gone');
    expect(details.missing).toBe(true);

    const dry = await m.prune(work);
    expect(dry.missing.map((e) => e.slug)).toEqual(['gone']);
    expect(dry.pruned).toEqual([]);
    expect((await m.list(work)).some((e) => e.slug === 'gone')).toBe(true);

    const done = await m.prune(work, { confirm: true });
    expect(done.pruned.map((r) => r.slug)).toEqual(['gone']);
    expect((await m.list(work)).map((e) => e.slug)).toEqual(['mine']);
    expect(gitIn(work, 'rev-parse', `${done.pruned[0]!.archive.ref}^1`).trim()).toBe(tip);
    // The hand-made worktree and its branch are untouched.
    expect(existsSync(join(outside.path, 'mine'))).toBe(true);

    // One whose folder name is outside the slug rules is still removable, archived under a folded slug, its branch kept.
    gitIn(work, 'worktree', 'add', '-q', '-b', 'odd', join(outside.path, 'My_Fix'));
    const odd = await m.remove(work, 'My_Fix');
    expect(odd.archive.ref).toMatch(/^refs\/flightdeck\/archive\/my-fix\//);
    expect(odd.branchDeleted).toBe(false);
    expect(gitIn(work, 'branch', '--list', 'odd').trim()).toBe('odd');
  });

  it('gives clear messages for a locked worktree and a branch checked out elsewhere', async () => {
    const { work } = repoWithOrigin();
    const m = manager();
    await m.create(work, 'held');
    gitIn(work, 'worktree', 'lock', '--reason', 'agent running', join(work, '.trees/held'));
    const locked = await failure(m.remove(work, 'held', { force: true }));
    expect(locked.message).toMatch(/is locked \(agent running\): unlock it first with: git worktree unlock/);
    expect(existsSync(join(work, '.trees/held'))).toBe(true);

    gitIn(work, 'switch', '-q', '-c', 'feature/busy');
    const busy = await failure(m.create(work, 'busy'));
    expect(busy.message).toContain(`The branch feature/busy is already checked out in ${work}`);

    // A worktree git still records whose folder vanished, its branch gone too (create then lists
    // nothing: git's own refusal is said the same way as the listing would).
    await m.create(work, 'vanished');
    gitIn(join(work, '.trees/vanished'), 'switch', '-q', '--detach');
    rmSync(join(work, '.trees/vanished'), { recursive: true, force: true });
    gitIn(work, 'branch', '-q', '-D', 'feature/vanished');
    const vanished = await failure(m.create(work, 'vanished'));
    expect(vanished.message).toBe('The worktree "vanished" is registered but its folder is missing: remove it first (worktree remove vanished).');
  });

  it('waits for a git running in the worktree (index.lock), and reports a lock that stays', async () => {
    const { work } = repoWithOrigin();
    const m = manager({ lockRetry: { attempts: 5, firstDelayMs: 100 } });
    await m.create(work, 'one');
    await m.create(work, 'two');
    const lockOf = (slug: string) => join(work, '.git', 'worktrees', slug, 'index.lock');

    writeFileSync(lockOf('one'), '');
    const release = setTimeout(() => rmSync(lockOf('one')), 300);
    cleanups.push(() => clearTimeout(release));
    await m.remove(work, 'one');
    expect(existsSync(join(work, '.trees/one'))).toBe(false);

    writeFileSync(lockOf('two'), '');
    const e = await failure(m.remove(work, 'two'));
    expect(e.message).toContain(`Another git command is using the repository (${lockOf('two')} exists)`);
    expect(e.message).toContain('delete');
    expect(existsSync(join(work, '.trees/two'))).toBe(true);
  });

  it("waits while another process's worktree is half made (git stops on its empty commondir), for a new branch and an existing one", async () => {
    const { work } = repoWithOrigin();
    const m = manager({ lockRetry: { attempts: 6, firstDelayMs: 100 } });
    // What another process's `git worktree add` leaves for a moment: gitdir written, commondir not yet.
    const halfMade = () => {
      const admin = join(work, '.git', 'worktrees', 'elsewhere');
      mkdirSync(admin, { recursive: true });
      writeFileSync(join(admin, 'gitdir'), join(work, '..', 'elsewhere', '.git') + '\n');
      writeFileSync(join(admin, 'commondir'), '');
      const done = setTimeout(() => rmSync(admin, { recursive: true, force: true }), 400);
      cleanups.push(() => clearTimeout(done));
    };
    halfMade();
    // git makes the new branch, then stops: the retry checks that branch out.
    const fresh = await m.create(work, 'fresh');
    expect(fresh.entry.branch).toBe('feature/fresh');
    expect(gitIn(join(work, '.trees/fresh'), 'rev-parse', 'HEAD').trim()).toBe(gitIn(work, 'rev-parse', 'main').trim());
    gitIn(work, 'branch', '-q', 'feature/kept', 'main');
    halfMade();
    const kept = await m.create(work, 'kept');
    expect(kept.entry.branch).toBe('feature/kept');
    expect(gitIn(work, 'worktree', 'list', '--porcelain').match(/^branch refs\/heads\/feature\/(fresh|kept)$/gm)?.sort()).toEqual(['branch refs/heads/feature/fresh', 'branch refs/heads/feature/kept']);
  });

  it('retries a git write that meets a ref lock, then succeeds', async () => {
    const { work } = repoWithOrigin();
    const m = manager({ lockRetry: { attempts: 6, firstDelayMs: 100 } });
    const refLock = join(work, '.git', 'refs', 'heads', 'feature', 'late.lock');
    mkdirSync(join(work, '.git', 'refs', 'heads', 'feature'), { recursive: true });
    writeFileSync(refLock, '');
    const release = setTimeout(() => rmSync(refLock), 400);
    cleanups.push(() => clearTimeout(release));
    const r = await m.create(work, 'late');
    expect(r.entry.branch).toBe('feature/late');
  });

  it('refuses removal while something is still writing in the worktree, and archives the last write once it stops', async () => {
    const { work } = repoWithOrigin();
    const m = manager({ settleMs: 300 });
    await m.create(work, 'busy');
    const wt = join(work, '.trees/busy');
    const log = join(wt, 'out.log');
    // The writer runs on this process's event loop, every 10 ms: the manager's settle timer
    // (300 ms, on the same loop) cannot fire before it has written again, however loaded the
    // machine is. A writer in a process of its own can be starved past any settle window.
    let i = 0;
    writeFileSync(log, String(i++));
    const writer = setInterval(() => writeFileSync(log, String(i++)), 10);
    cleanups.push(() => clearInterval(writer));
    const e = await failure(m.remove(work, 'busy', { force: true }));
    expect(e.message).toMatch(/still changing \(a process is writing in/);
    expect(existsSync(wt)).toBe(true);
    clearInterval(writer);
    const last = readFileSync(log, 'utf8');
    expect(Number(last)).toBeGreaterThan(1);
    const removed = await m.remove(work, 'busy', { force: true });
    expect(gitIn(work, 'show', `${removed.archive.ref}:out.log`)).toBe(last);
    expect(existsSync(wt)).toBe(false);
  });

  it('says the worktree is still changing when git itself met a file shrinking under it (short read while indexing), not a raw git error', async () => {
    // CI run 35: the writer above truncated out.log while the snapshot's `git add` hashed it.
    const { work } = repoWithOrigin();
    const m = manager({ settleMs: 50 });
    await m.create(work, 'shrinking');
    const snap = vi
      .spyOn(m as unknown as { snapshotTree(path: string): Promise<string> }, 'snapshotTree')
      .mockRejectedValueOnce(new GitError('git add failed', 128, "error: short read while indexing out.log\nerror: out.log: failed to insert into database\nfatal: adding files failed\n"));
    cleanups.push(() => snap.mockRestore());
    const e = await failure(m.remove(work, 'shrinking', { force: true }));
    expect(e.message).toMatch(/still changing \(a process is writing in/);
    expect(existsSync(join(work, '.trees/shrinking'))).toBe(true);
    // Any other git failure is still itself.
    snap.mockRejectedValueOnce(new GitError('git add failed', 128, 'fatal: unable to write new index file\n'));
    await expect(m.remove(work, 'shrinking', { force: true })).rejects.toBeInstanceOf(GitError);
    // And once git reads the files whole, the removal goes through.
    expect((await m.remove(work, 'shrinking', { force: true })).slug).toBe('shrinking');
  });
});

describe('worktrees.* channels', () => {
  it('list, refuse, remove with force and restore through the bridge router, by project id', async () => {
    const { work } = repoWithOrigin();
    const t = await startTestApp();
    cleanups.push(t.cleanup);
    const ctx = { origin: 'test' as const, connectionId: 't' };
    const project = await t.app.projects.add(work);
    await t.app.worktrees.create(work, 'via-ui');
    writeFileSync(join(work, '.trees/via-ui/draft.md'), 'draft\n');

    const listed = await t.app.router.dispatch('worktrees.list', { projectId: project.id }, ctx);
    expect(listed).toMatchObject({ ok: true, value: { worktrees: [{ slug: 'via-ui', branch: 'feature/via-ui', managed: true }], archives: [] } });
    const refused = await t.app.router.dispatch('worktrees.remove', { projectId: project.id, slug: 'via-ui' }, ctx);
    expect(refused).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringContaining('draft.md') as unknown } });
    const removed = await t.app.router.dispatch('worktrees.remove', { projectId: project.id, slug: 'via-ui', force: true }, ctx);
    expect(removed).toMatchObject({ ok: true, value: { branchDeleted: true, archive: { slug: 'via-ui', dirty: true } } });
    expect(await t.app.router.dispatch('worktrees.list', { projectId: project.id }, ctx)).toMatchObject({ ok: true, value: { worktrees: [], archives: [{ slug: 'via-ui' }] } });
    const restored = await t.app.router.dispatch('worktrees.restore', { projectId: project.id, slug: 'via-ui' }, ctx);
    expect(restored).toMatchObject({ ok: true, value: { reappliedDirty: true, worktree: { slug: 'via-ui' } } });
    expect(readFileSync(join(work, '.trees/via-ui/draft.md'), 'utf8')).toBe('draft\n');
    expect(await t.app.router.dispatch('worktrees.restore', { projectId: project.id, slug: 'Nope!' }, ctx)).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });
});
