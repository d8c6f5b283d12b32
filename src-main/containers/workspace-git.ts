/**
 * The git data a container sees of its bind-mounted workspace: read-only, all of it. The host's
 * own git reads that data later (the Changes view's commit, a feature run's commit after each
 * phase), so a container able to write it could make the host run a program (a filter or a hook
 * in `.git/config`) or commit somewhere else (a rewritten worktree `.git` file). Mounted
 * read-only over the workspace mount:
 * - the workspace's `.git` (the folder of a checkout, or a linked worktree's `.git` file, which
 *   then cannot be rewritten, removed or renamed: it is a mount point);
 * - a linked worktree's common dir, at its own host path (where the `.git` file points), so git
 *   inside the container can still read: status, log, diff, show, blame work; commits fail
 *   (read-only) and are made by the host's hardened git (the session's Commit, a feature run's
 *   commit after each phase);
 * - the git data of repositories nested in the workspace (as the command sandbox does).
 * A `.git` file that does not lead to a worktree git's records confirm refuses the placement.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { join, relative } from 'node:path';
import { locateRepository } from '../git/repo-location';
import { nestedGitPaths } from '../sandbox/sandbox-runtime';

export interface ReadOnlyMount {
  source: string;
  target: string;
}

/** Read-only binds for the git data of a workspace mounted at `mountPoint`. */
export async function workspaceGitMounts(hostPath: string, mountPoint: string): Promise<ReadOnlyMount[]> {
  const mounts: ReadOnlyMount[] = [];
  // Throws `forbidden` for a .git file that points where git's records do not agree.
  const loc = locateRepository(hostPath);
  const dotGit = join(hostPath, '.git');
  let st;
  try {
    st = lstatSync(dotGit);
  } catch {
    st = null;
  }
  if (st && (st.isDirectory() || st.isFile())) mounts.push({ source: dotGit, target: `${mountPoint}/.git` });
  // A linked worktree: its git data lives outside the workspace, where its .git file says.
  if (loc && st?.isFile() && loc.workTree === realpathSync(hostPath)) mounts.push({ source: loc.commonDir, target: loc.commonDir });
  for (const nested of await nestedGitPaths(hostPath)) mounts.push({ source: nested, target: `${mountPoint}/${relative(hostPath, nested)}` });
  return mounts;
}
