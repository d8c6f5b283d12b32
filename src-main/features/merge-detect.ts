/**
 * Is a feature branch already merged into its base, judged from the local repository alone
 * (used when `gh` is not available)? Plain ancestry misses the two ways hosting services merge
 * most often, so three checks run in order and the first that says yes decides:
 * - `ancestry`: the branch tip is an ancestor of the base (a normal merge or a fast-forward).
 * - `patch-id`: every commit of the branch since the merge base has a commit with the same patch
 *   id on the base (a rebase merge: same changes, new commit ids). `git cherry` computes the
 *   patch ids of both sides itself, so no pipe into `git patch-id` is needed.
 * - `tree`: merging the branch into the base changes nothing — the merged tree equals the base's
 *   tree (a squash merge: the whole diff is on the base as one commit).
 * - `squash-patch-id`: the branch's whole diff since the merge base, as one commit, has the same
 *   patch id as a commit on the base (a squash merge whose lines the base has edited since, where
 *   the merge above conflicts). Also the squash check on gits older than 2.38 (no
 *   `merge-tree --write-tree`).
 */
import { git, gitBufferWithExit } from '../git/git';

export type MergeMethod = 'ancestry' | 'patch-id' | 'tree' | 'squash-patch-id';

export type MergeVerdict = { merged: true; method: MergeMethod } | { merged: false };

/** `git merge-base --is-ancestor` answers with its exit code: 0 yes, 1 no, anything else an error. */
const EXIT_NO = 1;

async function exitCodeOf(args: readonly string[], cwd: string): Promise<{ code: number; stdout: string }> {
  const { stdout, exitCode } = await gitBufferWithExit(args, { cwd });
  return { code: exitCode, stdout: stdout.toString('utf8').trim() };
}

async function isAncestor(repo: string, branch: string, base: string): Promise<boolean> {
  const { code } = await exitCodeOf(['merge-base', '--is-ancestor', branch, base], repo);
  if (code === 0) return true;
  if (code === EXIT_NO) return false;
  throw new Error(`git merge-base --is-ancestor ${branch} ${base} failed (exit ${code})`);
}

/** `git cherry base branch` marks each branch commit `-` when an equivalent patch is on the base. */
export function parseCherry(output: string): { total: number; onBase: number } {
  const lines = output.split('\n').filter((l) => l.trim() !== '');
  return { total: lines.length, onBase: lines.filter((l) => l.startsWith('- ')).length };
}

async function allPatchesOnBase(repo: string, branch: string, base: string): Promise<boolean> {
  const { total, onBase } = parseCherry(await git(['cherry', base, branch], { cwd: repo }));
  return total > 0 && onBase === total;
}

async function mergeChangesNothing(repo: string, branch: string, base: string): Promise<boolean> {
  // Exit 1 means the merge conflicts: then the branch's diff is certainly not all on the base.
  const merged = await exitCodeOf(['merge-tree', '--write-tree', '--no-messages', base, branch], repo);
  if (merged.code !== 0) return false;
  const mergedTree = merged.stdout.split('\n')[0]?.trim();
  const baseTree = (await git(['rev-parse', `${base}^{tree}`], { cwd: repo })).trim();
  return mergedTree !== undefined && mergedTree === baseTree;
}

/**
 * The identity of the probe commit: fixed, so the check works in a repository without
 * user.name/user.email, and recognisable should anyone find the (unreferenced) object before gc.
 */
const PROBE_IDENTITY = { GIT_AUTHOR_NAME: 'Flightdeck', GIT_AUTHOR_EMAIL: 'flightdeck@localhost', GIT_COMMITTER_NAME: 'Flightdeck', GIT_COMMITTER_EMAIL: 'flightdeck@localhost' };

async function squashPatchOnBase(repo: string, branch: string, base: string): Promise<boolean> {
  const mergeBase = (await git(['merge-base', base, branch], { cwd: repo })).trim();
  const tree = (await git(['rev-parse', `${branch}^{tree}`], { cwd: repo })).trim();
  // One commit holding the whole branch diff. It is written to the object store unreferenced
  // (git gc removes it); nothing points at it, so the user's branches and reflogs are untouched.
  const probe = (await git(['commit-tree', tree, '-p', mergeBase, '-m', 'flightdeck squash probe'], { cwd: repo, env: PROBE_IDENTITY })).trim();
  const { total, onBase } = parseCherry(await git(['cherry', base, probe], { cwd: repo }));
  return total === 1 && onBase === 1;
}

/** Whether `branch` is merged into `base` in `repo`, and which check decided. */
export async function detectMerged(repo: string, branch: string, base: string): Promise<MergeVerdict> {
  if (await isAncestor(repo, branch, base)) return { merged: true, method: 'ancestry' };
  if (await allPatchesOnBase(repo, branch, base)) return { merged: true, method: 'patch-id' };
  if (await mergeChangesNothing(repo, branch, base)) return { merged: true, method: 'tree' };
  if (await squashPatchOnBase(repo, branch, base)) return { merged: true, method: 'squash-patch-id' };
  return { merged: false };
}
