import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCleanCandidates, type CleanFeature } from '../../../src-main/features/clean-candidates';
import { DefaultGhOps, DefaultGitOps, GH_NOT_INSTALLED_MESSAGE } from '../../../src-main/features/git-ops';
import { detectMerged } from '../../../src-main/features/merge-detect';
import { gitIn, makeRepo, tempDir } from '../../support/temp';

const FAKE_GH_DIR = resolve(__dirname, '../../fixtures/gh');

function commitFile(cwd: string, file: string, content: string, msg: string): void {
  writeFileSync(join(cwd, file), content);
  gitIn(cwd, 'add', file);
  gitIn(cwd, 'commit', '-q', '-m', msg);
}

/**
 * A repository with a bare origin and four feature branches: merged normally (--no-ff), squash
 * merged, rebase merged (commits replayed with new ids), and not merged.
 */
function buildRepo(): { repo: string; cleanup(): void } {
  const r = makeRepo('fd-clean-');
  const remote = tempDir('fd-clean-origin-');
  const origin = join(remote.path, 'origin.git');
  gitIn(r.path, 'clone', '-q', '--bare', r.path, origin);
  gitIn(r.path, 'remote', 'add', 'origin', origin);

  gitIn(r.path, 'checkout', '-q', '-b', 'feature/normal', 'main');
  commitFile(r.path, 'normal.txt', 'normal\n', 'normal work');
  gitIn(r.path, 'checkout', '-q', '-b', 'feature/squash', 'main');
  commitFile(r.path, 'squash.txt', 'one\n', 'squash 1');
  commitFile(r.path, 'squash.txt', 'one\ntwo\n', 'squash 2');
  gitIn(r.path, 'checkout', '-q', '-b', 'feature/rebase', 'main');
  commitFile(r.path, 'rebase-a.txt', 'a\n', 'rebase a');
  commitFile(r.path, 'rebase-b.txt', 'b\n', 'rebase b');
  gitIn(r.path, 'checkout', '-q', '-b', 'feature/open', 'main');
  commitFile(r.path, 'open.txt', 'open\n', 'open work');
  gitIn(r.path, 'push', '-q', 'origin', 'feature/normal', 'feature/squash', 'feature/rebase', 'feature/open');

  gitIn(r.path, 'checkout', '-q', 'main');
  commitFile(r.path, 'main-moves.txt', 'later\n', 'main moves on');
  gitIn(r.path, 'merge', '-q', '--no-ff', '-m', 'Merge feature/normal', 'feature/normal');
  gitIn(r.path, 'merge', '-q', '--squash', 'feature/squash');
  gitIn(r.path, 'commit', '-q', '-m', 'Squash feature/squash (#2)');
  gitIn(r.path, 'checkout', '-q', '-b', 'feature/squash-edited', 'main');
  commitFile(r.path, 'edited.txt', 'a\n', 'edited 1');
  commitFile(r.path, 'edited.txt', 'a\nb\n', 'edited 2');
  gitIn(r.path, 'checkout', '-q', 'main');
  gitIn(r.path, 'merge', '-q', '--squash', 'feature/squash-edited');
  gitIn(r.path, 'commit', '-q', '-m', 'Squash feature/squash-edited (#5)');
  // The base edits the squashed lines afterwards: merging the branch again would now conflict.
  commitFile(r.path, 'edited.txt', 'A\nb\n', 'main edits the squashed lines');
  const rebased = gitIn(r.path, 'rev-list', '--reverse', 'main..feature/rebase').trim().split('\n');
  gitIn(r.path, 'cherry-pick', ...rebased);
  gitIn(r.path, 'push', '-q', 'origin', 'main');
  return {
    repo: r.path,
    cleanup: () => {
      r.cleanup();
      remote.cleanup();
    },
  };
}

let repo: string;
let cleanup: () => void;
beforeAll(() => {
  ({ repo, cleanup } = buildRepo());
});
afterAll(() => cleanup());

describe('detectMerged on a real repository', () => {
  it('tells each kind of merge apart, and an unmerged branch', async () => {
    // The rebased branch is not an ancestor: the check below is what ancestry alone would miss.
    expect(gitIn(repo, 'branch', '--merged', 'main')).not.toContain('feature/rebase');
    expect(await detectMerged(repo, 'feature/normal', 'main')).toEqual({ merged: true, method: 'ancestry' });
    expect(await detectMerged(repo, 'feature/rebase', 'main')).toEqual({ merged: true, method: 'patch-id' });
    expect(await detectMerged(repo, 'feature/squash', 'main')).toEqual({ merged: true, method: 'tree' });
    expect(await detectMerged(repo, 'feature/open', 'main')).toEqual({ merged: false });
    expect(await detectMerged(repo, 'feature/squash-edited', 'main')).toEqual({ merged: true, method: 'squash-patch-id' });
  });

  it('a branch whose squash left out part of it is not merged', async () => {
    gitIn(repo, 'branch', 'feature/partial', 'feature/squash');
    gitIn(repo, 'checkout', '-q', 'feature/partial');
    commitFile(repo, 'extra.txt', 'not on main\n', 'after the squash');
    gitIn(repo, 'checkout', '-q', 'main');
    expect(await detectMerged(repo, 'feature/partial', 'main')).toEqual({ merged: false });
  });
});

const FEATURES: CleanFeature[] = [
  { slug: 'normal', branch: 'feature/normal', prNumber: 1 },
  { slug: 'squash', branch: 'feature/squash' },
  { slug: 'rebase', branch: 'feature/rebase' },
  { slug: 'open', branch: 'feature/open' },
];

describe('clean candidates with the scripted gh', () => {
  function ghWithScenario(scenario: unknown): { gh: DefaultGhOps; calls(): { argv: string[]; cwd: string; promptDisabled: string | null }[] } {
    const cfg = tempDir('fd-gh-');
    writeFileSync(join(cfg.path, 'scenario.json'), JSON.stringify(scenario));
    const gh = new DefaultGhOps({ ...process.env, PATH: `${FAKE_GH_DIR}${delimiter}${process.env.PATH ?? ''}`, GH_CONFIG_DIR: cfg.path });
    return {
      gh,
      calls: () => {
        let text = '';
        try {
          text = readFileSync(join(cfg.path, 'calls.jsonl'), 'utf8');
        } catch {
          // No call made yet: no file.
        }
        return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { argv: string[]; cwd: string; promptDisabled: string | null });
      },
    };
  }

  it('merged and closed PRs are candidates, an open one is not; gh is asked the seed way', async () => {
    expect(statSync(join(FAKE_GH_DIR, 'gh')).mode & 0o111).not.toBe(0);
    const { gh, calls } = ghWithScenario({
      prs: [
        { number: 1, state: 'MERGED', url: 'https://github.com/o/r/pull/1', title: 'Normal', headRefName: 'feature/normal' },
        { number: 2, state: 'CLOSED', url: 'https://github.com/o/r/pull/2', title: 'Squash', headRefName: 'feature/squash' },
        { number: 4, state: 'OPEN', url: 'https://github.com/o/r/pull/4', title: 'Open', headRefName: 'feature/open' },
      ],
    });
    const git = new DefaultGitOps();
    const out = await findCleanCandidates(FEATURES, { repo, base: 'main', gh, isMerged: (a, b, c) => git.isMerged(a, b, c) });
    expect(out.usedGh).toBe(true);
    expect(out.entries.map((e) => [e.feature.slug, e.decision])).toEqual([
      ['normal', { candidate: true, reason: 'pr_merged', pr: { number: 1, state: 'MERGED', url: 'https://github.com/o/r/pull/1', title: 'Normal' } }],
      ['squash', { candidate: true, reason: 'pr_closed', pr: { number: 2, state: 'CLOSED', url: 'https://github.com/o/r/pull/2', title: 'Squash' } }],
      // Merged locally, but gh is the judge when present and knows no PR for it.
      ['rebase', { candidate: false, why: 'no pull request for the branch' }],
      ['open', { candidate: false, why: 'pull request #4 is open' }],
    ]);
    const recorded = calls();
    expect(recorded.map((c) => c.argv)).toEqual([
      ['pr', 'view', '1', '--json', 'state,url,title,number'],
      ['pr', 'list', '--head', 'feature/squash', '--state', 'all', '--json', 'state,url,title,number,isCrossRepository'],
      ['pr', 'list', '--head', 'feature/rebase', '--state', 'all', '--json', 'state,url,title,number,isCrossRepository'],
      ['pr', 'list', '--head', 'feature/open', '--state', 'all', '--json', 'state,url,title,number,isCrossRepository'],
    ]);
    expect(recorded.every((c) => c.cwd === repo && c.promptDisabled === '1')).toBe(true);
  });

  it('a PR number gh does not know is reported, not a crash', async () => {
    const { gh } = ghWithScenario({ prs: [] });
    const res = await gh.prView(repo, 99);
    expect(res).toMatchObject({ ok: false, reason: 'failed' });
    expect(!res.ok && res.message).toContain('Could not resolve to a PullRequest with the number of 99');
  });

  it('pr create passes title, body, base and head and returns the URL and number', async () => {
    const { gh, calls } = ghWithScenario({ createUrl: 'https://github.com/o/r/pull/42' });
    const res = await gh.prCreate(repo, { title: 'feat(x): add x', body: 'Body with "quotes" and $(no shell)', base: 'main', head: 'feature/open' });
    expect(res).toEqual({ ok: true, value: { url: 'https://github.com/o/r/pull/42', number: 42 } });
    expect(calls().map((c) => c.argv)).toEqual([['pr', 'create', '--title', 'feat(x): add x', '--body', 'Body with "quotes" and $(no shell)', '--base', 'main', '--head', 'feature/open']]);
  });
});

describe('clean candidates without gh', () => {
  it('falls back to local merge detection: normal, squash and rebase merges are candidates', async () => {
    const emptyBin = tempDir('fd-nogh-');
    try {
      const gh = new DefaultGhOps({ ...process.env, PATH: emptyBin.path });
      expect(gh.available()).toBe(false);
      expect(await gh.prList(repo, 'feature/open')).toEqual({ ok: false, reason: 'not_installed', message: GH_NOT_INSTALLED_MESSAGE });
      const git = new DefaultGitOps();
      const out = await findCleanCandidates([...FEATURES, { slug: 'gone', branch: 'feature/deleted' }], { repo, base: 'main', gh, isMerged: (a, b, c) => git.isMerged(a, b, c) });
      expect(out.usedGh).toBe(false);
      const bySlug = Object.fromEntries(out.entries.map((e) => [e.feature.slug, e.decision]));
      expect(bySlug.normal).toEqual({ candidate: true, reason: 'merged_locally', method: 'ancestry' });
      expect(bySlug.squash).toEqual({ candidate: true, reason: 'merged_locally', method: 'tree' });
      expect(bySlug.rebase).toEqual({ candidate: true, reason: 'merged_locally', method: 'patch-id' });
      expect(bySlug.open).toEqual({ candidate: false, why: 'branch not merged into the base' });
      // A branch that no longer exists is not removable, and does not hide the others.
      expect(bySlug.gone).toMatchObject({ candidate: false });
    } finally {
      emptyBin.cleanup();
    }
  });
});

describe('DefaultGitOps', () => {
  it('creates a worktree, commits, pushes to the bare origin, removes the worktree and deletes the branch', async () => {
    const git = new DefaultGitOps();
    gitIn(repo, 'config', 'user.name', 'Test');
    gitIn(repo, 'config', 'user.email', 't@example.com');
    const wt = join(repo, '.trees', 'ops');
    mkdirSync(join(repo, '.trees'), { recursive: true });
    expect(await git.branchExists(repo, 'feature/ops')).toBe(false);
    await git.addWorktree(repo, wt, 'feature/ops', 'main');
    expect(await git.branchExists(repo, 'feature/ops')).toBe(true);
    expect(await git.currentBranch(wt)).toBe('feature/ops');
    expect(await git.commit(wt, 'nothing')).toBe(false);
    writeFileSync(join(wt, 'ops.txt'), 'ops\n');
    chmodSync(join(wt, 'ops.txt'), 0o644);
    expect(await git.commit(wt, 'feat(ops): add ops', ['ops.txt'])).toBe(true);
    expect(gitIn(wt, 'log', '-1', '--format=%s').trim()).toBe('feat(ops): add ops');
    await git.push(wt, 'origin', 'feature/ops', { repository: repo });
    const origin = gitIn(repo, 'remote', 'get-url', 'origin').trim();
    expect(gitIn(origin, 'rev-parse', 'feature/ops').trim()).toBe(gitIn(wt, 'rev-parse', 'HEAD').trim());
    await git.removeWorktree(repo, wt);
    await git.pruneWorktrees(repo);
    await expect(git.deleteBranch(repo, 'feature/ops')).rejects.toThrow(/not fully merged/);
    await git.deleteBranch(repo, 'feature/ops', { force: true });
    expect(await git.branchExists(repo, 'feature/ops')).toBe(false);
  });
});
