/**
 * The git the run needs beyond GitOps: the branch's diff against its base for review, what a
 * phase did since it began (for the resume prompt), the remote to push to, and the local merge of
 * a feature that has no remote. Everything through the hardened git helper (argument arrays).
 */
import { boundedDiff } from '../../git/bounded-diff';
import { git, gitBufferWithExit, GitError, gitThen } from '../../git/git';
import { readHead, readRef } from '../../git/ref-read';
import { locateRepository, type RepoLocation } from '../../git/repo-location';
import { setupExcludes } from '../../worktrees/setup-artifacts';
import { FeatureError } from '../errors';

/** A review prompt carries the diff; past this it is cut (the agent can read the files itself). */
export const MAX_DIFF_CHARS = 120_000;
/** The feature's own bookkeeping (state, specs, logs) is not part of the change under review. */
const NOT_FEATURE_FILES = [':(exclude).flightdeck'];

/**
 * HEAD's commit in `cwd`, null on an unborn branch. Read from git's files where the layout is
 * plain (./ref-read: a run asks several times a phase, each git a process); else git is asked.
 */
export async function headCommit(cwd: string): Promise<string | null> {
  const read = fromFiles(cwd, (loc) => readHead(loc));
  if (read !== undefined) return read;
  return git(['rev-parse', '--verify', '--quiet', 'HEAD'], { cwd }).then(
    (s) => s.trim() || null,
    () => null, // An unborn branch has no commit yet.
  );
}

/**
 * The feature's change in `cwd` against `rev`: what setup created (`excludes`) and the bookkeeping
 * left out, bounded. `untrackedAdded`: untracked files are already in the index as intent-to-add
 * (the caller did it), or the caller has just run the auto-commit's `git add --all` with the same
 * pathspecs and nothing ran since, so no untracked file is left for the intent-to-add to show.
 */
async function featureDiff(cwd: string, rev: string, excludes: readonly string[], untrackedAdded = false): Promise<{ text: string; truncated: boolean }> {
  // Untracked files show in the diff; a failure only hides them. Never what setup created (node_modules).
  if (!untrackedAdded) await git(intentToAdd(excludes), { cwd }).catch(() => undefined);
  const d = await boundedDiff(cwd, [rev], ['.', ...NOT_FEATURE_FILES, ...excludes], { maxChars: MAX_DIFF_CHARS });
  return { text: d.text, truncated: d.truncated };
}

/** Untracked files of the work tree into the index as intent-to-add (the diff then shows them), but what setup created. */
function intentToAdd(excludes: readonly string[]): string[] {
  return ['add', '--intent-to-add', '--', '.', ...excludes];
}

/** What `read` finds in the repository at `cwd`, undefined when git must be asked (no plain layout, or a .git git's records do not confirm: git then refuses with the reason). */
function fromFiles<T>(cwd: string, read: (loc: RepoLocation) => T | undefined): T | undefined {
  try {
    const loc = locateRepository(cwd);
    return loc ? read(loc) : undefined;
  } catch {
    // A .git that git's records do not confirm: the git call below refuses it with the reason.
    return undefined;
  }
}

async function resolveBase(cwd: string, base: string): Promise<string> {
  for (const ref of [`refs/heads/${base}`, `refs/remotes/origin/${base}`]) {
    const known = fromFiles(cwd, (loc) => readRef(loc, ref));
    if (known) return ref;
    if (known === null) continue;
    const ok = await git(['rev-parse', '--verify', '--quiet', ref], { cwd }).then(
      () => true,
      () => false, // That form of the base does not exist here: try the next.
    );
    if (ok) return ref;
  }
  throw new FeatureError('git', `the base branch "${base}" does not exist (neither locally nor on origin)`);
}

/** The working tree against the merge base with the base branch: committed and uncommitted changes of the feature. */
export async function branchDiff(cwd: string, base: string, o: { untrackedAdded?: boolean } = {}): Promise<{ text: string; truncated: boolean }> {
  const baseRef = await resolveBase(cwd, base);
  const mergeBaseArgs = ['merge-base', baseRef, 'HEAD'];
  const excludes = await setupExcludes(cwd);
  // Unless the caller's add left none, the intent-to-add goes with the merge base in one call
  // (gitThen: a process start fewer). It is best effort as in featureDiff: when the call fails, the
  // merge base is asked alone (and fails again with its own reason if it was the one that failed).
  const mergeBase = o.untrackedAdded ? git(mergeBaseArgs, { cwd }) : gitThen(intentToAdd(excludes), mergeBaseArgs, { cwd }).catch(() => git(mergeBaseArgs, { cwd }));
  return featureDiff(cwd, (await mergeBase).trim(), excludes, true);
}

/** Commits and changes since `startCommit` (what an interrupted phase already did). */
export async function progressSince(cwd: string, startCommit: string): Promise<{ commits: string; diff: string; truncated: boolean }> {
  const commits = await git(['log', '--format=%h %s', `${startCommit}..HEAD`], { cwd }).catch((e: unknown) => {
    // The start commit vanished (history rewritten by hand): no commit list, the diff below says the rest.
    if (e instanceof GitError) return '';
    throw e;
  });
  const c = await featureDiff(cwd, startCommit, await setupExcludes(cwd)).catch((e: unknown) => {
    // The start commit vanished: the commit list (empty too) is all there is to say.
    if (e instanceof GitError) return { text: '', truncated: false };
    throw e;
  });
  return { commits: commits.trim(), diff: c.text, truncated: c.truncated };
}

/** The remote a feature is pushed to: origin when there is one, else the only remote, else none. */
export async function pushRemote(cwd: string): Promise<{ name: string; url: string } | null> {
  const names = (await git(['remote'], { cwd })).split('\n').map((s) => s.trim()).filter(Boolean);
  const name = names.includes('origin') ? 'origin' : names.length === 1 ? names[0]! : null;
  if (!name) return null;
  const url = (await git(['remote', 'get-url', name], { cwd })).trim();
  return { name, url };
}

export interface LocalMergePlan {
  base: string;
  branch: string;
  /** Commits of the branch not on the base. */
  commits: string[];
  /** Whether the base moved since the branch left it. */
  baseMoved: boolean;
  /** Files the merge would conflict on (empty: it merges cleanly). */
  conflicts: string[];
}

/** What merging `branch` into `base` in `repo` would do, without changing anything (git merge-tree). */
export async function planLocalMerge(repo: string, base: string, branch: string): Promise<LocalMergePlan> {
  const commits = (await git(['log', '--format=%h %s', `refs/heads/${base}..refs/heads/${branch}`], { cwd: repo })).split('\n').filter(Boolean);
  const mergeBase = (await git(['merge-base', `refs/heads/${base}`, `refs/heads/${branch}`], { cwd: repo })).trim();
  const baseTip = (await git(['rev-parse', `refs/heads/${base}`], { cwd: repo })).trim();
  const m = await mergeTree(repo, base, branch);
  return { base, branch, commits, baseMoved: mergeBase !== baseTip, conflicts: m.conflicts };
}

/** git merge-tree: the merged tree, or the conflicted files (exit 1 lists the tree id, then them). */
async function mergeTree(repo: string, base: string, branch: string): Promise<{ tree: string; conflicts: string[] }> {
  const r = await gitBufferWithExit(['merge-tree', '--write-tree', '--name-only', '--no-messages', `refs/heads/${base}`, `refs/heads/${branch}`], { cwd: repo });
  const lines = r.stdout.toString('utf8').split('\n').map((s) => s.trim()).filter(Boolean);
  if (r.exitCode === 0) return { tree: lines[0] ?? '', conflicts: [] };
  if (r.exitCode === 1) return { tree: lines[0] ?? '', conflicts: [...new Set(lines.slice(1))] };
  throw new FeatureError('git', `git merge-tree failed (exit ${r.exitCode})`);
}

/**
 * Merges `branch` into `base` locally. The base checked out in the main checkout is merged
 * there (git refuses when that would overwrite the user's uncommitted changes); otherwise the
 * merge commit is made from the merged tree and the base ref moved only if it still points where
 * it pointed when the merge was computed.
 */
export async function localMerge(repo: string, base: string, branch: string, o: { squash: boolean; message: string }): Promise<string> {
  const m = await mergeTree(repo, base, branch);
  if (m.conflicts.length > 0) throw new FeatureError('git', `${base} has moved in a way that conflicts with ${branch} (${m.conflicts.join(', ')}); merge by hand or rebase the feature first`);
  const current = await git(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: repo }).then(
    (s) => s.trim(),
    () => null, // Detached HEAD: the base is not checked out here.
  );
  try {
    if (current === base) {
      if (o.squash) {
        await git(['merge', '--squash', '--', `refs/heads/${branch}`], { cwd: repo });
        await git(['commit', '--no-verify', '-m', o.message], { cwd: repo });
      } else {
        await git(['merge', '--no-ff', '--no-verify', '-m', o.message, `refs/heads/${branch}`], { cwd: repo });
      }
    } else {
      const baseTip = (await git(['rev-parse', `refs/heads/${base}`], { cwd: repo })).trim();
      const parents = o.squash ? ['-p', baseTip] : ['-p', baseTip, '-p', (await git(['rev-parse', `refs/heads/${branch}`], { cwd: repo })).trim()];
      const commit = (await git(['commit-tree', m.tree, ...parents, '-m', o.message], { cwd: repo })).trim();
      // The old value makes this fail if the base moved meanwhile, instead of dropping that commit.
      await git(['update-ref', '-m', `flightdeck: merge ${branch}`, `refs/heads/${base}`, commit, baseTip], { cwd: repo });
    }
  } catch (e) {
    if (e instanceof GitError) throw new FeatureError('git', `the local merge of ${branch} into ${base} failed: ${e.stderr.trim().split('\n').pop() || e.message}`, {}, { cause: e });
    throw e;
  }
  return (await git(['rev-parse', `refs/heads/${base}`], { cwd: repo })).trim();
}
