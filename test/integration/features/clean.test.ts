import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FeatureService } from '../../../src-main/features/feature-service';
import { DefaultGhOps } from '../../../src-main/features/git-ops';
import { mergedStatePath } from '../../../src-main/features/scanner';
import { readState } from '../../../src-main/features/state';
import { createLogger } from '../../../src-main/platform/logger';
import { openDatabase, type Database } from '../../../src-main/store/db';
import { WorktreeManager } from '../../../src-main/worktrees/worktree-manager';
import { cli } from '../../support/cli';
import { gitIn, tempDir } from '../../support/temp';
import { commitFile, ignoreTrees, makeActiveFeature, repoWithOrigin, type RepoWithOrigin } from './support/feature-repos';

const FAKE_GH_DIR = resolve(__dirname, '../../fixtures/gh');
const log = createLogger({ level: 'error' });

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function setup(prefix: string): { repo: RepoWithOrigin; db: Database; service(gh: DefaultGhOps, manager?: WorktreeManager): FeatureService } {
  const repo = repoWithOrigin(prefix);
  ignoreTrees(repo.path);
  gitIn(repo.path, 'push', '-q', 'origin', 'main');
  const data = tempDir(`${prefix}data-`);
  const db = openDatabase(join(data.path, 'fd.db'));
  const services: FeatureService[] = [];
  cleanups.push(() => {
    for (const s of services) void s.dispose();
    db.close();
    data.cleanup();
    repo.cleanup();
  });
  return {
    repo,
    db,
    service: (gh, manager = new WorktreeManager({ settleMs: 20 })) => {
      const s = new FeatureService({ db, log, projects: { list: () => [] }, worktrees: manager, gh });
      services.push(s);
      return s;
    },
  };
}

function scriptedGh(scenario: unknown): { gh: DefaultGhOps; calls(): string[][] } {
  const cfg = tempDir('fd-gh-cfg-');
  cleanups.push(cfg.cleanup);
  writeFileSync(join(cfg.path, 'scenario.json'), JSON.stringify(scenario));
  const gh = new DefaultGhOps({ ...process.env, PATH: `${FAKE_GH_DIR}${delimiter}${process.env.PATH ?? ''}`, GH_CONFIG_DIR: cfg.path });
  const calls = () => {
    const file = join(cfg.path, 'calls.jsonl');
    return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { argv: string[] }).argv) : [];
  };
  return { gh, calls };
}

function noGh(): DefaultGhOps {
  const empty = tempDir('fd-no-gh-');
  cleanups.push(empty.cleanup);
  return new DefaultGhOps({ ...process.env, PATH: empty.path });
}

/** Work on a feature: a commit in its worktree, pushed like a PR branch would be. */
function work(wt: string, slug: string, file: string, push = true): void {
  commitFile(wt, file, `${slug}\n`, `${slug}: work`);
  if (push) gitIn(wt, 'push', '-q', 'origin', `feature/${slug}`);
}

const branches = (repo: string) => gitIn(repo, 'branch', '--format=%(refname:short)').trim().split('\n').sort();
const archives = (repo: string) => gitIn(repo, 'for-each-ref', '--format=%(refname)', 'refs/flightdeck/archive/').trim();

describe('clean with gh (scripted)', () => {
  it('removes features whose PR is merged or closed, keeps open ones, and asks gh as the seed says', async () => {
    const { repo, service } = setup('fd-clean-gh-');
    for (const slug of ['merged-pr', 'closed-pr', 'open-pr', 'no-pr']) work(makeActiveFeature(repo.path, slug, slug === 'merged-pr' ? { pr: { number: 42 } } : {}), slug, `${slug}.txt`);
    const { gh, calls } = scriptedGh({
      prs: [
        { number: 42, state: 'MERGED', url: 'https://github.com/o/r/pull/42', title: 'merged', headRefName: 'feature/merged-pr' },
        { number: 38, state: 'CLOSED', url: 'https://github.com/o/r/pull/38', title: 'closed', headRefName: 'feature/closed-pr' },
        { number: 40, state: 'OPEN', url: 'https://github.com/o/r/pull/40', title: 'open', headRefName: 'feature/open-pr' },
      ],
    });
    const features = service(gh);

    const dry = await features.clean(repo.path, { dryRun: true });
    expect(dry.usedGh).toBe(true);
    expect(dry.candidates.map((c) => [c.slug, c.reason, c.pr?.number])).toEqual([
      ['closed-pr', 'pr_closed', 38],
      ['merged-pr', 'pr_merged', 42],
    ]);
    expect(dry.candidates.every((c) => c.diskBytes > 0)).toBe(true);
    expect(dry.skipped).toEqual([
      { slug: 'no-pr', why: 'no pull request for the branch' },
      { slug: 'open-pr', why: 'pull request #40 is open' },
    ]);
    // A dry run changes nothing.
    expect(existsSync(join(repo.path, '.trees', 'merged-pr'))).toBe(true);
    expect(archives(repo.path)).toBe('');

    // The known PR number is asked directly; the others by their branch, every state.
    const argv = calls();
    expect(argv).toContainEqual(['pr', 'view', '42', '--json', 'state,url,title,number']);
    for (const slug of ['closed-pr', 'open-pr', 'no-pr']) expect(argv).toContainEqual(['pr', 'list', '--head', `feature/${slug}`, '--state', 'all', '--json', 'state,url,title,number,isCrossRepository']);
    expect(argv.some((a) => a.includes('feature/merged-pr'))).toBe(false);

    const done = await features.clean(repo.path, { dryRun: false });
    expect(done.failed).toEqual([]);
    expect(done.removed.map((r) => r.slug).sort()).toEqual(['closed-pr', 'merged-pr']);
    expect(done.reclaimedBytes).toBe(done.removed.reduce((n, r) => n + r.reclaimedBytes, 0));
    expect(done.reclaimedBytes).toBeGreaterThan(0);
    for (const slug of ['closed-pr', 'merged-pr']) expect(existsSync(join(repo.path, '.trees', slug))).toBe(false);
    expect(branches(repo.path)).toEqual(['feature/no-pr', 'feature/open-pr', 'main']);
    expect(archives(repo.path)).toMatch(/refs\/flightdeck\/archive\/merged-pr\/\d{8}T\d{6}Z/);
    expect(archives(repo.path)).toMatch(/refs\/flightdeck\/archive\/closed-pr\//);

    // The merged feature stays visible as merged; the closed one does not pretend to be merged.
    const history = await readState(mergedStatePath(repo.path, 'merged-pr'));
    expect(history.status).toBe('merged');
    expect(history.pr?.number).toBe(42);
    expect(existsSync(mergedStatePath(repo.path, 'closed-pr'))).toBe(false);
    const listed = (await features.list({ repo: repo.path }))[0]!.features.map((f) => [f.slug, f.source, f.status]);
    expect(listed).toEqual([
      ['merged-pr', 'merged', 'merged'],
      ['no-pr', 'active', 'in_progress'],
      ['open-pr', 'active', 'in_progress'],
    ]);
  }, 60_000);

  it("a fork's merged PR from a branch named like the feature's is not the feature's: it is not cleaned", async () => {
    const { repo, service } = setup('fd-clean-fork-');
    work(makeActiveFeature(repo.path, 'forked', {}), 'forked', 'forked.txt');
    const { gh } = scriptedGh({ prs: [{ number: 50, state: 'MERGED', url: 'https://github.com/o/r/pull/50', title: 'from a fork', headRefName: 'feature/forked', isCrossRepository: true }] });
    const dry = await service(gh).clean(repo.path, { dryRun: true });
    expect(dry.candidates).toEqual([]);
    expect(dry.skipped).toEqual([{ slug: 'forked', why: 'no pull request for the branch' }]);
  });

  it('refuses a merged feature with uncommitted files or commits found on no remote, and restore brings them back', async () => {
    const { repo, service } = setup('fd-clean-risk-');
    const dirty = makeActiveFeature(repo.path, 'dirty', { pr: { number: 7 } });
    work(dirty, 'dirty', 'd.txt');
    writeFileSync(join(dirty, 'notes.txt'), 'unsaved thoughts\n');
    const unpushed = makeActiveFeature(repo.path, 'unpushed', { pr: { number: 8 } });
    work(unpushed, 'unpushed', 'u.txt');
    commitFile(unpushed, 'later.txt', 'after the merge\n', 'work after the PR merged');
    const { gh } = scriptedGh({
      prs: [
        { number: 7, state: 'MERGED', url: 'u7', title: 'd', headRefName: 'feature/dirty' },
        { number: 8, state: 'MERGED', url: 'u8', title: 'u', headRefName: 'feature/unpushed' },
      ],
    });
    const manager = new WorktreeManager({ settleMs: 20 });
    const r = await service(gh, manager).clean(repo.path, { dryRun: false });
    expect(r.candidates.map((c) => c.slug)).toEqual(['dirty', 'unpushed']);
    expect(r.removed).toEqual([]);
    const why = Object.fromEntries(r.failed.map((f) => [f.slug, f.message]));
    expect(why.dirty).toContain('notes.txt');
    expect(why.unpushed).toContain('"work after the PR merged"');
    expect(readFileSync(join(dirty, 'notes.txt'), 'utf8')).toBe('unsaved thoughts\n');
    expect(existsSync(join(unpushed, 'later.txt'))).toBe(true);
    expect(archives(repo.path)).toBe('');

    // The user insists (worktree remove --force): archived, then restored with everything.
    const head = gitIn(unpushed, 'rev-parse', 'HEAD').trim();
    await manager.remove(repo.path, 'dirty', { force: true });
    await manager.remove(repo.path, 'unpushed', { force: true });
    expect(existsSync(dirty)).toBe(false);
    await manager.restore(repo.path, 'dirty');
    await manager.restore(repo.path, 'unpushed');
    expect(readFileSync(join(dirty, 'notes.txt'), 'utf8')).toBe('unsaved thoughts\n');
    expect(gitIn(unpushed, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(gitIn(unpushed, 'log', '-1', '--format=%s').trim()).toBe('work after the PR merged');
  }, 60_000);
});

describe('clean and files git ignores', () => {
  it('archives a git-ignored file found only in the worktree (restore brings it back); refuses, naming them, ignored files too large to archive', async () => {
    const { repo, service } = setup('fd-clean-ignored-');
    commitFile(repo.path, '.gitignore', '.trees/\n.env\nbig-data/\n', 'ignore local files');
    gitIn(repo.path, 'push', '-q', 'origin', 'main');
    const env = makeActiveFeature(repo.path, 'with-env', { pr: { number: 11 } });
    work(env, 'with-env', 'e.txt');
    writeFileSync(join(env, '.env'), 'API_TOKEN=only-here\n');
    const big = makeActiveFeature(repo.path, 'with-data', { pr: { number: 12 } });
    work(big, 'with-data', 'b.txt');
    mkdirSync(join(big, 'big-data'));
    writeFileSync(join(big, 'big-data', 'small.csv'), 'a,b\n');
    // Larger than an archive takes (a sparse file: no disk is used).
    writeFileSync(join(big, 'big-data', 'dump.bin'), '');
    truncateSync(join(big, 'big-data', 'dump.bin'), 25 * 1024 * 1024);
    const { gh } = scriptedGh({
      prs: [
        { number: 11, state: 'MERGED', url: 'u11', title: 'e', headRefName: 'feature/with-env' },
        { number: 12, state: 'MERGED', url: 'u12', title: 'b', headRefName: 'feature/with-data' },
      ],
    });
    const manager = new WorktreeManager({ settleMs: 20 });
    const r = await service(gh, manager).clean(repo.path, { dryRun: false });
    expect(r.removed.map((x) => x.slug)).toEqual(['with-env']);
    expect(existsSync(env)).toBe(false);
    const why = Object.fromEntries(r.failed.map((f) => [f.slug, f.message]));
    expect(why['with-data']).toContain('files git ignores that exist nowhere else, too many or too large to archive');
    expect(why['with-data']).toContain('big-data/');
    expect(existsSync(join(big, 'big-data', 'small.csv'))).toBe(true);
    // The archive holds the ignored file: restoring the worktree brings it back.
    await manager.restore(repo.path, 'with-env');
    expect(readFileSync(join(env, '.env'), 'utf8')).toBe('API_TOKEN=only-here\n');
  }, 60_000);
});

describe('clean without gh (local merge detection)', () => {
  it('finds normal, squash and rebase merges, leaves the unmerged one, through the CLI', async () => {
    const { repo } = setup('fd-clean-local-');
    const wts: Record<string, string> = {};
    for (const slug of ['normal', 'squashed', 'rebased', 'unmerged']) {
      wts[slug] = makeActiveFeature(repo.path, slug);
      commitFile(wts[slug]!, `${slug}-1.txt`, 'one\n', `${slug} 1`);
      commitFile(wts[slug]!, `${slug}-2.txt`, 'two\n', `${slug} 2`);
    }
    commitFile(repo.path, 'main-moves.txt', 'later\n', 'main moves on');
    gitIn(repo.path, 'merge', '-q', '--no-ff', '-m', 'Merge feature/normal', 'feature/normal');
    gitIn(repo.path, 'merge', '-q', '--squash', 'feature/squashed');
    gitIn(repo.path, 'commit', '-q', '-m', 'Squash feature/squashed (#2)');
    gitIn(repo.path, 'cherry-pick', ...gitIn(repo.path, 'rev-list', '--reverse', 'main..feature/rebased').trim().split('\n'));
    // A project with an external worktree and one whose folder was deleted by hand.
    const ext = tempDir('fd-clean-ext-');
    cleanups.push(ext.cleanup);
    gitIn(repo.path, 'worktree', 'add', '-q', '-b', 'outside', join(ext.path, 'wt'), 'main');
    makeActiveFeature(repo.path, 'vanished');
    rmSync(join(repo.path, '.trees', 'vanished'), { recursive: true, force: true });

    const data = tempDir('fd-clean-cli-');
    cleanups.push(data.cleanup);
    const fd = (...a: string[]) => cli(...a, `--data-dir=${data.path}`, '--repo', repo.path);
    // The test machine has no gh; the in-process CLI uses the process PATH.
    const dry = await fd('feature', 'clean', '--dry-run');
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out).toContain('gh is not available');
    expect(dry.out).toMatch(/\[~\] normal\s+MERGED \(locally, by ancestry\)/);
    expect(dry.out).toMatch(/\[~\] rebased\s+MERGED \(locally, by patch-id\)/);
    expect(dry.out).toMatch(/\[~\] squashed\s+MERGED \(locally, by tree\)/);
    expect(dry.out).toMatch(/\[ \] unmerged\s+kept: branch not merged into the base/);
    expect(dry.out).toContain('3 worktree(s) would be removed');
    expect(dry.out).not.toContain('vanished');

    const done = await fd('feature', 'clean', '--yes', '--json');
    expect(done.code, done.err).toBe(0);
    const report = JSON.parse(done.out);
    expect(report.usedGh).toBe(false);
    expect(report.removed.map((r: { slug: string }) => r.slug).sort()).toEqual(['normal', 'rebased', 'squashed']);
    expect(report.reclaimedBytes).toBeGreaterThan(0);
    expect(branches(repo.path)).toEqual(['feature/unmerged', 'feature/vanished', 'main', 'outside']);
    expect(existsSync(join(ext.path, 'wt', 'README.md'))).toBe(true);

    // History: the normal and squash merges brought their state onto main; the rebase's too (cherry-picked).
    const list = await fd('feature', 'list', '--json');
    const feats = JSON.parse(list.out).projects[0].features.map((f: { slug: string; source: string; status: string }) => `${f.slug}:${f.source}:${f.status}`);
    expect(feats).toEqual(['normal:merged:merged', 'rebased:merged:merged', 'squashed:merged:merged', 'unmerged:active:in_progress']);
    const text = await fd('feature', 'clean', '--yes');
    expect(text.out).toContain('Nothing to clean.');

    // The vanished folder: not a feature any more, shown by worktree list and pruned on request.
    const wl = JSON.parse((await fd('worktree', 'list', '--json')).out) as { slug: string; missing: boolean; managed: boolean }[];
    expect(wl.find((w) => w.slug === 'vanished')).toMatchObject({ missing: true, managed: true });
    expect(wl.find((w) => w.slug === 'wt')).toMatchObject({ managed: false, missing: false });
    expect((await fd('feature', 'status', 'vanished')).code).toBe(1);
    expect((await fd('worktree', 'remove', 'vanished')).code).toBe(0);
    expect(archives(repo.path)).toContain('refs/flightdeck/archive/vanished/');
  }, 90_000);

  it('a git lock held by another process is waited for, then reported', async () => {
    const { repo, service } = setup('fd-clean-lock-');
    for (const slug of ['short-lock', 'stale-lock']) {
      makeActiveFeature(repo.path, slug);
      gitIn(repo.path, 'merge', '-q', '--no-ff', '-m', `Merge ${slug}`, `feature/${slug}`);
    }
    const lockOf = (slug: string) => join(repo.path, '.git', 'worktrees', slug, 'index.lock');
    // Another process holds each worktree's index lock: one lets go after a moment, one never does.
    const holder = spawn(process.execPath, [
      '-e',
      `const fs=require('fs');fs.writeFileSync(${JSON.stringify(lockOf('short-lock'))},'');fs.writeFileSync(${JSON.stringify(lockOf('stale-lock'))},'');` +
        `setTimeout(()=>fs.unlinkSync(${JSON.stringify(lockOf('short-lock'))}),400);setInterval(()=>{},1000);`,
    ]);
    cleanups.push(() => holder.kill('SIGKILL'));
    for (let i = 0; i < 200 && !existsSync(lockOf('stale-lock')); i++) await new Promise((r) => setTimeout(r, 20));
    const r = await service(noGh(), new WorktreeManager({ settleMs: 20, lockRetry: { attempts: 6, firstDelayMs: 100 } })).clean(repo.path, { dryRun: false });
    expect(r.removed.map((x) => x.slug)).toEqual(['short-lock']);
    expect(r.failed).toHaveLength(1);
    expect(r.failed[0]!.slug).toBe('stale-lock');
    expect(r.failed[0]!.message).toContain('Another git command is using the repository');
    expect(r.failed[0]!.message).toContain(lockOf('stale-lock'));
    expect(existsSync(join(repo.path, '.trees', 'stale-lock'))).toBe(true);
  }, 60_000);
});
