import type { GitState } from '../../src-preload/contract';
import { git } from '../git/git';

/** Branch, dirty flag and worktree count of a repository, read with porcelain commands. */
export async function readGitState(root: string): Promise<GitState> {
  const [head, status, worktrees] = await Promise.all([
    git(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: root }).then(
      (s) => ({ branch: s.trim(), detached: false }),
      async () => {
        // Detached HEAD (or an unborn branch): show the short commit when there is one.
        const sha = await git(['rev-parse', '--short', 'HEAD'], { cwd: root }).then((s) => s.trim(), () => null);
        return { branch: sha, detached: sha !== null };
      },
    ),
    git(['status', '--porcelain=v1', '-z', '--untracked-files=normal'], { cwd: root }),
    git(['worktree', 'list', '--porcelain'], { cwd: root }),
  ]);
  const changedFiles = parseStatusCount(status);
  return {
    branch: head.branch,
    detached: head.detached,
    dirty: changedFiles > 0,
    changedFiles,
    worktreeCount: parseWorktreeCount(worktrees),
  };
}

/** `status -z` entries; a rename carries its source path as an extra NUL-separated field. */
export function parseStatusCount(z: string): number {
  const fields = z.split('\0').filter((f) => f.length > 0);
  let count = 0;
  for (let i = 0; i < fields.length; i++) {
    const x = fields[i]![0];
    count++;
    if (x === 'R' || x === 'C') i++;
  }
  return count;
}

/** Linked worktrees only: the main working tree is the project itself. */
export function parseWorktreeCount(porcelain: string): number {
  const n = porcelain.split('\n').filter((l) => l.startsWith('worktree ')).length;
  return Math.max(0, n - 1);
}
