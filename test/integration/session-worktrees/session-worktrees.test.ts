/**
 * Sessions in worktrees against real git: a temporary repository whose `origin` is a bare
 * repository, the real services, the scripted model server for the agent's writes and a
 * scripted `gh` on PATH for pull requests.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import { DefaultGhOps } from '../../../src-main/features/git-ops';
import { harness, type Harness } from '../agents/harness';
import { gitIn, makeRepo, tempDir } from '../../support/temp';

const GH_FIXTURE = resolve(__dirname, '../../fixtures/gh');

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A repository on `main` with a bare `origin` (pushed, origin/HEAD set) and a committer identity. */
function repoWithOrigin(): { repo: string; origin: string } {
  const origin = tempDir('fd-sw-origin-');
  const repo = makeRepo('fd-sw-repo-');
  cleanups.push(origin.cleanup, repo.cleanup);
  gitIn(origin.path, 'init', '-q', '--bare', '-b', 'main');
  gitIn(repo.path, 'config', 'user.name', 'Session Tester');
  gitIn(repo.path, 'config', 'user.email', 'tester@example.com');
  gitIn(repo.path, 'remote', 'add', 'origin', origin.path);
  gitIn(repo.path, 'push', '-q', '-u', 'origin', 'main');
  gitIn(repo.path, 'remote', 'set-head', 'origin', 'main');
  return { repo: repo.path, origin: origin.path };
}

async function setup(script: Parameters<typeof harness>[0] = []): Promise<{ h: Harness; repo: string; origin: string; projectId: string }> {
  const { repo, origin } = repoWithOrigin();
  const h = await harness(script, { repo });
  cleanups.push(() => h.cleanup());
  const project = await h.app.projects.add(repo);
  return { h, repo, origin, projectId: project.id };
}

const status = (dir: string) => gitIn(dir, 'status', '--porcelain', '--untracked-files=all');
const tip = (dir: string, ref = 'HEAD') => gitIn(dir, 'rev-parse', ref).trim();

async function rejection(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('sessions in worktrees', () => {
  it('starts a session in a new worktree: the agent writes only there, the checkout stays untouched; commit then merge brings it into main', async () => {
    const { h, repo, projectId } = await setup([
      { blocks: [{ type: 'tool_use', name: 'write', input: { path: 'agent.txt', content: 'from the agent\n' } }] },
      { blocks: [{ type: 'text', text: 'Wrote agent.txt.' }] },
    ]);
    const sw = h.app.sessionWorktrees;
    const probe = await sw.probe(repo);
    expect(probe).toMatchObject({ kind: 'git', root: repo, currentBranch: 'main', base: 'main', branchPrefix: 'feature', dirtyCount: 0, worktreeProblem: null });
    if (probe.kind !== 'git') throw new Error('unreachable');
    expect(probe.suggestedSlug).toMatch(/^session-\d{8}-\d{4}$/);

    const { session, worktree } = await sw.startSession({ projectId, placement: 'worktree', mode: 'auto-edit' });
    const slug = worktree!.slug;
    expect(session.root).toBe(join(repo, '.trees', slug));
    expect(session.projectId).toBe(projectId);
    expect(session.worktree).toEqual({ slug, branch: `feature/${slug}`, base: 'main', path: session.root, repo, archiveRef: null });
    expect(h.app.agents.listSessions(projectId).find((s) => s.id === session.id)?.worktree?.branch).toBe(`feature/${slug}`);
    expect(gitIn(session.root, 'branch', '--show-current').trim()).toBe(`feature/${slug}`);

    const r = await h.app.agents.run(session.id, 'please write agent.txt');
    expect(r.outcome).toBe('completed');
    expect(readFileSync(join(session.root, 'agent.txt'), 'utf8')).toBe('from the agent\n');
    expect(existsSync(join(repo, 'agent.txt'))).toBe(false);
    // The user's checkout: nothing changed, not even .gitignore (.trees/ is excluded in .git/info/exclude).
    expect(status(repo)).toBe('');
    expect(readFileSync(join(repo, '.git/info/exclude'), 'utf8')).toContain('.trees/');

    const before = await sw.status(session.id);
    expect(before).toMatchObject({ state: 'active', aheadOfBase: 0, behindBase: 0, changed: 0, untracked: 1, files: ['agent.txt'], remote: expect.stringContaining('fd-sw-origin-'), ghAvailable: expect.any(Boolean) });

    const c = await sw.commit(session.id, 'Add agent.txt');
    expect(c).toMatchObject({ subject: 'Add agent.txt', files: 1 });
    expect(tip(session.root)).toBe(c.sha);
    expect(await sw.status(session.id)).toMatchObject({ aheadOfBase: 1, changed: 0, untracked: 0, lastCommit: { sha: c.sha, subject: 'Add agent.txt' } });
    expect((await rejection(sw.commit(session.id, 'again'))).message).toContain('Nothing to commit');

    const mainBefore = tip(repo, 'main');
    const m = await sw.merge(session.id, 'merge');
    expect(m).toMatchObject({ base: 'main', strategy: 'merge', commits: 1, updatedCheckout: repo });
    expect(gitIn(repo, 'log', '-1', '--format=%P%n%s', 'main').trim().split('\n')).toEqual([`${mainBefore} ${c.sha}`, `Merge branch 'feature/${slug}' into main`]);
    // The checkout moved with its branch (fast-forward to the merge): the file is there, nothing is pending.
    expect(readFileSync(join(repo, 'agent.txt'), 'utf8')).toBe('from the agent\n');
    expect(status(repo)).toBe('');
    expect(existsSync(join(repo, '.git/MERGE_HEAD'))).toBe(false);
    expect(await sw.status(session.id)).toMatchObject({ aheadOfBase: 0, behindBase: 1 });
  }, 60_000);

  it('squash-merges; refuses a conflicting merge, a dirty checkout holding the base and uncommitted work, changing nothing; merges by ref when no checkout holds the base', async () => {
    const { h, repo, projectId } = await setup();
    const sw = h.app.sessionWorktrees;

    const a = (await sw.startSession({ projectId, placement: 'worktree', slug: 'squash-me', title: 'Add two notes' })).session;
    writeFileSync(join(a.root, 'one.txt'), '1\n');
    await sw.commit(a.id, 'one');
    writeFileSync(join(a.root, 'two.txt'), '2\n');
    await sw.commit(a.id, 'two');
    const mainBefore = tip(repo, 'main');
    const sq = await sw.merge(a.id, 'squash');
    expect(sq).toMatchObject({ strategy: 'squash', commits: 2, updatedCheckout: repo });
    expect(gitIn(repo, 'log', '-1', '--format=%P', 'main').trim()).toBe(mainBefore);
    expect(gitIn(repo, 'log', '-1', '--format=%B', 'main')).toContain('Add two notes\n\nSquashed commits of feature/squash-me:\n\n* one\n* two');
    expect(readFileSync(join(repo, 'two.txt'), 'utf8')).toBe('2\n');
    expect(status(repo)).toBe('');

    // Conflict: the worktree and main both change README.md's line.
    const b = (await sw.startSession({ projectId, placement: 'worktree', slug: 'conflicting' })).session;
    writeFileSync(join(b.root, 'README.md'), '# from the session\n');
    await sw.commit(b.id, 'session edits README');
    writeFileSync(join(repo, 'README.md'), '# from main\n');
    gitIn(repo, 'commit', '-q', '-am', 'main edits README');
    const mainTip = tip(repo, 'main');
    const conflict = await rejection(sw.merge(b.id, 'merge'));
    expect(conflict.code).toBe('conflict');
    expect(conflict.message).toContain('would conflict in 1 file: README.md');
    expect(tip(repo, 'main')).toBe(mainTip);
    expect(status(repo)).toBe('');
    expect(existsSync(join(repo, '.git/MERGE_HEAD'))).toBe(false);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('# from main\n');

    // The checkout holding main is dirty: refused before anything moves.
    const c = (await sw.startSession({ projectId, placement: 'worktree', slug: 'clean-change' })).session;
    writeFileSync(join(c.root, 'three.txt'), '3\n');
    writeFileSync(join(c.root, 'four.txt'), '4\n');
    const uncommitted = await rejection(sw.merge(c.id, 'merge'));
    expect(uncommitted.message).toContain('has 2 uncommitted files (four.txt, three.txt): commit them first');
    await sw.commit(c.id, 'three and four');
    writeFileSync(join(repo, 'README.md'), '# user is editing\n');
    const dirty = await rejection(sw.merge(c.id, 'merge'));
    expect(dirty.message).toContain(`${repo} has main checked out with 1 uncommitted change (README.md)`);
    expect(tip(repo, 'main')).toBe(mainTip);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('# user is editing\n');
    gitIn(repo, 'checkout', '--', 'README.md');

    // No checkout holds main (the user switched to another branch): main moves by ref, the checkout's files do not.
    gitIn(repo, 'switch', '-q', '-c', 'elsewhere');
    const byRef = await sw.merge(c.id, 'merge');
    expect(byRef.updatedCheckout).toBeNull();
    expect(tip(repo, 'main')).toBe(byRef.commit);
    expect(gitIn(repo, 'show', 'main:three.txt')).toBe('3\n');
    expect(existsSync(join(repo, 'three.txt'))).toBe(false);
    expect(status(repo)).toBe('');
    expect((await rejection(sw.merge(c.id, 'squash'))).message).toContain('Nothing to merge');
  }, 60_000);

  it('offers the checkout with the count of its dirty files, starts there on request, and only "the folder" outside git; reads branch_prefix and base from the project config', async () => {
    const { h, repo, projectId } = await setup();
    const sw = h.app.sessionWorktrees;
    writeFileSync(join(repo, 'README.md'), '# changed\n');
    writeFileSync(join(repo, 'notes.txt'), 'untracked\n');
    const probe = await sw.probe(repo);
    expect(probe).toMatchObject({ kind: 'git', dirtyCount: 2, dirtyFiles: ['README.md', 'notes.txt'] });

    const inCheckout = await sw.startSession({ projectId, placement: 'checkout' });
    expect(inCheckout.worktree).toBeNull();
    expect(inCheckout.session.root).toBe(repo);
    expect(inCheckout.session.worktree).toBeNull();
    expect(await sw.status(inCheckout.session.id)).toBeNull();
    expect((await rejection(sw.commit(inCheckout.session.id, 'x'))).message).toContain('works in the checkout');
    expect(existsSync(join(repo, '.trees'))).toBe(false);

    const plain = tempDir('fd-sw-plain-');
    cleanups.push(plain.cleanup);
    const folderProbe = await sw.probe(plain.path);
    expect(folderProbe.kind).toBe('folder');
    if (folderProbe.kind === 'folder') expect(folderProbe.reason).toContain('is not a git repository');
    expect((await rejection(sw.startSession({ root: plain.path, placement: 'worktree' }))).code).toBe('not_a_git_repo');
    expect((await sw.startSession({ root: plain.path, placement: 'checkout' })).session.root).toBe(plain.path);

    gitIn(repo, 'branch', 'develop');
    mkdirSync(join(repo, '.flightdeck'));
    writeFileSync(join(repo, '.flightdeck/config.yml'), 'version: 1\ngit:\n  branch_prefix: agent\n  base_branch: develop\n');
    expect(await sw.probe(repo)).toMatchObject({ branchPrefix: 'agent', base: 'develop', worktreeProblem: null });
    const configured = await sw.startSession({ projectId, placement: 'worktree', slug: 'from-config' });
    expect(configured.worktree).toMatchObject({ branch: 'agent/from-config', base: 'develop' });
    expect(tip(configured.session.root)).toBe(tip(repo, 'develop'));

    writeFileSync(join(repo, '.flightdeck/config.yml'), 'version: 1\ngit:\n  branch_prefx: agent\n');
    const broken = await sw.probe(repo);
    expect(broken.kind === 'git' && broken.worktreeProblem).toContain('branch_prefx');
    expect((await rejection(sw.startSession({ projectId, placement: 'worktree' }))).message).toContain('branch_prefx');
    expect(readFileSync(join(repo, '.flightdeck/config.yml'), 'utf8')).toContain('branch_prefx'); // never rewritten
  }, 60_000);

  it('pushes to origin and opens the pull request with gh (its arguments recorded), finds an open one instead of a second, gives the compare URL without gh, and says so without a remote', async () => {
    const { h, repo, origin, projectId } = await setup();
    const sw = h.app.sessionWorktrees;
    const ghDir = tempDir('fd-sw-gh-');
    cleanups.push(ghDir.cleanup);
    writeFileSync(join(ghDir.path, 'scenario.json'), JSON.stringify({ createUrl: 'https://github.com/acme/widgets/pull/7', prs: [] }));
    const ghEnv = { ...process.env, PATH: `${GH_FIXTURE}:${process.env.PATH ?? ''}`, GH_CONFIG_DIR: ghDir.path };
    sw.gh = new DefaultGhOps(ghEnv);

    const { session } = await sw.startSession({ projectId, placement: 'worktree', slug: 'pr-please', title: 'Make widgets faster' });
    writeFileSync(join(session.root, 'fast.txt'), 'fast\n');
    await sw.commit(session.id, 'Speed up widgets');
    expect((await sw.status(session.id))?.ghAvailable).toBe(true);
    const pushed = await sw.push(session.id);
    expect(pushed).toMatchObject({ remote: origin, branch: 'feature/pr-please', pr: { url: 'https://github.com/acme/widgets/pull/7', number: 7, existing: false }, compareUrl: null, note: null });
    expect(tip(origin, 'refs/heads/feature/pr-please')).toBe(tip(session.root));
    expect(await sw.status(session.id)).toMatchObject({ upstream: 'origin/feature/pr-please', aheadOfUpstream: 0, behindUpstream: 0 });
    const calls = () => readFileSync(join(ghDir.path, 'calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { argv: string[]; cwd: string; promptDisabled: string | null });
    expect(calls().map((c) => c.argv)).toEqual([
      ['pr', 'list', '--head', 'feature/pr-please', '--state', 'all', '--json', 'state,url,title,number,isCrossRepository'],
      ['pr', 'create', '--title', 'Speed up widgets', '--body', 'Opened from a Flightdeck session.\n\nCommits:\n- Speed up widgets', '--base', 'main', '--head', 'feature/pr-please'],
    ]);
    expect(calls().every((c) => c.cwd === session.root && c.promptDisabled === '1')).toBe(true);

    // A second push finds the open pull request instead of creating another.
    writeFileSync(join(ghDir.path, 'scenario.json'), JSON.stringify({ prs: [{ number: 7, state: 'OPEN', url: 'https://github.com/acme/widgets/pull/7', title: 'Speed up widgets', headRefName: 'feature/pr-please' }] }));
    expect((await sw.push(session.id)).pr).toEqual({ url: 'https://github.com/acme/widgets/pull/7', number: 7, existing: true });
    expect(calls().filter((c) => c.argv[1] === 'create')).toHaveLength(1);

    // Without gh: the compare page of origin's web address (pushes still go to the bare repository).
    const empty = tempDir('fd-sw-nogh-');
    cleanups.push(empty.cleanup);
    sw.gh = new DefaultGhOps({ PATH: empty.path });
    gitIn(repo, 'remote', 'set-url', 'origin', 'git@github.com:acme/widgets.git');
    gitIn(repo, 'remote', 'set-url', '--push', 'origin', origin);
    writeFileSync(join(session.root, 'faster.txt'), 'faster\n');
    await sw.commit(session.id, 'Even faster');
    const manual = await sw.push(session.id);
    expect(manual).toMatchObject({ pr: null, compareUrl: 'https://github.com/acme/widgets/compare/main...feature/pr-please?expand=1' });
    expect(manual.note).toContain('not installed');
    expect(tip(origin, 'refs/heads/feature/pr-please')).toBe(tip(session.root));
    expect(calls().filter((c) => c.argv[1] === 'create')).toHaveLength(1);

    // No remote at all.
    gitIn(repo, 'remote', 'remove', 'origin');
    const none = await rejection(sw.push(session.id));
    expect(none.code).toBe('not_found');
    expect(none.message).toContain('no remote "origin"');
  }, 60_000);

  it('discards the worktree only after a confirmation that lists what would be lost, archived first, and restores it from the archive', async () => {
    const { h, repo, projectId } = await setup();
    const sw = h.app.sessionWorktrees;
    const { session, worktree } = await sw.startSession({ projectId, placement: 'worktree', slug: 'throwaway' });
    writeFileSync(join(session.root, 'kept.txt'), 'committed\n');
    const c = await sw.commit(session.id, 'Keep this commit');
    writeFileSync(join(session.root, 'wip.txt'), 'not committed\n');

    const preview = await sw.discardPreview(session.id);
    expect(preview.lines).toEqual(['1 untracked file: wip.txt', `1 commit not on main or the branch's upstream: ${c.sha.slice(0, 7)} "Keep this commit"`]);
    const refused = await rejection(sw.discard(session.id, false));
    expect(refused.code).toBe('conflict');
    expect(refused.message).toContain('would lose work');
    expect(existsSync(join(session.root, 'wip.txt'))).toBe(true);

    const d = await sw.discard(session.id, true);
    expect(d.archive.ref).toMatch(/^refs\/flightdeck\/archive\/throwaway\/\d{8}T\d{6}Z/);
    expect(d.archive).toMatchObject({ branch: 'feature/throwaway', base: 'main', head: c.sha, dirty: true });
    expect(d.branchDeleted).toBe(true);
    expect(existsSync(worktree!.path)).toBe(false);
    expect(gitIn(repo, 'branch', '--list', 'feature/throwaway').trim()).toBe('');
    expect(tip(repo, d.archive.ref)).toBe(d.archive.commit);
    expect(h.app.agents.getSession(session.id).worktree?.archiveRef).toBe(d.archive.ref);
    expect(await sw.status(session.id)).toMatchObject({ state: 'discarded' });
    expect((await rejection(sw.commit(session.id, 'x'))).message).toContain('was discarded');
    expect(status(repo)).toBe('');

    const r = await sw.restore(session.id);
    expect(r).toMatchObject({ path: worktree!.path, branch: 'feature/throwaway', archiveRef: d.archive.ref, reappliedDirty: true });
    expect(readFileSync(join(session.root, 'wip.txt'), 'utf8')).toBe('not committed\n');
    expect(tip(session.root)).toBe(c.sha);
    expect(await sw.status(session.id)).toMatchObject({ state: 'active', untracked: 1, aheadOfBase: 1 });
    expect(h.app.agents.getSession(session.id).worktree?.archiveRef).toBeNull();
  }, 60_000);

  it('two sessions started at once get two worktrees; /new keeps the worktree; one removed from the project page is reconciled by Discard with its archive', async () => {
    const { h, repo, projectId } = await setup();
    const sw = h.app.sessionWorktrees;
    const [a, b] = await Promise.all([sw.startSession({ projectId, placement: 'worktree' }), sw.startSession({ projectId, placement: 'worktree' })]);
    expect(a.worktree!.slug).not.toBe(b.worktree!.slug);
    expect([a.worktree!.slug, b.worktree!.slug].sort()[1]).toMatch(/^session-\d{8}-\d{4}-2$|^session-\d{8}-\d{4}$/);
    expect(gitIn(a.session.root, 'branch', '--show-current').trim()).toBe(a.worktree!.branch);
    expect(gitIn(b.session.root, 'branch', '--show-current').trim()).toBe(b.worktree!.branch);

    // `/new` in a worktree session: the fresh session works in the same worktree, and sees it discarded with it.
    const fresh = await h.app.agents.run(a.session.id, '/new');
    expect(fresh.sessionId).not.toBe(a.session.id);
    expect(h.app.agents.getSession(fresh.sessionId)).toMatchObject({ root: a.session.root, worktree: { slug: a.worktree!.slug, branch: a.worktree!.branch, archiveRef: null } });

    writeFileSync(join(a.session.root, 'left.txt'), 'left behind\n');
    const removed = await h.app.worktrees.remove(repo, a.worktree!.slug, { force: true });
    expect(await sw.status(a.session.id)).toMatchObject({ state: 'missing' });
    const d = await sw.discard(a.session.id, false);
    expect(d.archive.ref).toBe(removed.archive.ref);
    expect(h.app.agents.getSession(a.session.id).worktree?.archiveRef).toBe(removed.archive.ref);
    expect(h.app.agents.getSession(fresh.sessionId).worktree?.archiveRef).toBe(removed.archive.ref);
    await sw.restore(a.session.id);
    expect(readFileSync(join(a.session.root, 'left.txt'), 'utf8')).toBe('left behind\n');
  }, 60_000);
});
