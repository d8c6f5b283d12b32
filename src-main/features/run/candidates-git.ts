/**
 * The git of best-of-N candidates, all through the hardened git helper (argument arrays, the
 * project's repository as Flightdeck recorded it): the size of a candidate's change, its added
 * files, a bounded diff between two commits, the fast-forward of the feature's branch to the
 * picked candidate, and the archive ref that keeps a closed candidate's branch.
 */
import { boundedDiff } from '../../git/bounded-diff';
import { git, GitError } from '../../git/git';
import { FeatureError } from '../errors';
import { parseNumstat } from './candidates-model';
import { MAX_DIFF_CHARS } from './run-git';

/** The feature's own bookkeeping (state, specs) is not part of a candidate's change. */
const CHANGE_PATHS = ['.', ':(exclude).flightdeck'];

/** The commit a branch or ref points at; null when it does not exist. */
export async function refCommit(repo: string, ref: string): Promise<string | null> {
  return git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: repo }).then(
    (s) => s.trim() || null,
    () => null, // No such ref: the candidate's branch was never made or is gone.
  );
}

export async function changeStats(repo: string, from: string, to: string): Promise<{ files: Array<{ path: string; added: number; deleted: number }>; addedFiles: string[] }> {
  const files = parseNumstat(await git(['diff', '--numstat', '-z', '--no-renames', from, to, '--', ...CHANGE_PATHS], { cwd: repo }));
  const addedFiles = (await git(['diff', '--name-only', '-z', '--no-renames', '--diff-filter=A', from, to, '--', ...CHANGE_PATHS], { cwd: repo })).split('\0').filter(Boolean);
  return { files, addedFiles };
}

export async function diffBetween(repo: string, from: string, to: string): Promise<{ text: string; truncated: boolean }> {
  const d = await boundedDiff(repo, [from, to], CHANGE_PATHS, { maxChars: MAX_DIFF_CHARS });
  return { text: d.text, truncated: d.truncated };
}

/** Moves the feature's branch, checked out in its worktree, forward to the candidate's commit; refused (with git's reason) when that is no fast-forward. */
export async function fastForward(worktree: string, repo: string, commit: string, what: string): Promise<void> {
  try {
    await git(['merge', '--ff-only', '--no-verify', commit], { cwd: worktree, repository: repo });
  } catch (e) {
    const why = e instanceof GitError ? e.stderr.trim().split('\n').pop() || e.message : e instanceof Error ? e.message : String(e);
    throw new FeatureError('git', `the feature's branch cannot be moved to ${what}: ${why}. The feature's worktree has changed since the candidates started; nothing was changed`, {}, { cause: e });
  }
}

/** Keeps `commit` under `ref` (created or moved; never removed by Flightdeck). */
export async function keepRef(repo: string, ref: string, commit: string, reason: string): Promise<void> {
  await git(['update-ref', '-m', reason, ref, commit], { cwd: repo });
}

/** Whether the worktree has changes git would lose when it is removed (untracked files included). */
export async function hasChanges(worktree: string, repo: string): Promise<boolean> {
  return (await git(['status', '--porcelain', '--untracked-files=all'], { cwd: worktree, repository: repo })).trim() !== '';
}
