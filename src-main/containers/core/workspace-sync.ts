/**
 * The remote workspace's rules (pure): a session on a remote engine works in a volume seeded
 * from a git bundle of its branch, and its commits come back through a bundle the container
 * writes. Where things live, and how the two heads compare.
 */

/** The volume holding a remote session's workspace: one per app instance and session, so another Flightdeck's is never reused. */
export function workspaceVolumeName(instance: string, sessionId: string): string {
  return `flightdeck-ws-${instance}-${sessionId.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
}

/** Where the container's commits are fetched to in the session's repository: never a branch the user works on. */
export function remoteRef(sessionId: string): string {
  return `refs/flightdeck/remote/${sessionId.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
}

/** The bundle put into the container to seed its workspace (removed after the clone). */
export const SEED_BUNDLE_PATH = '/tmp/.flightdeck-seed.bundle';
/** The bundle the container writes of its branch, fetched by the host with getArchive. */
export const OUT_BUNDLE_PATH = '/tmp/.flightdeck-out.bundle';
/** Identity of the container's commits when the host's repository names none (git refuses to commit without one). */
export const DEFAULT_AGENT_IDENTITY = { name: 'Flightdeck agent', email: 'agent@flightdeck.invalid' };

export type WorkspaceSyncStateKind = 'in_sync' | 'remote_ahead' | 'local_ahead' | 'diverged' | 'error';

export interface WorkspaceSyncState {
  state: WorkspaceSyncStateKind;
  /** What the user reads: why the branch was not fast-forwarded, or the error. */
  message: string | null;
  branch: string | null;
  localHead: string | null;
  remoteHead: string | null;
  at: number;
}

/**
 * How the session's local branch and the container's branch compare. `remote_ahead` is the only
 * state a fast-forward can resolve; `local_ahead` and `diverged` never touch the local branch.
 */
export function compareHeads(h: { local: string; remote: string; localContainsRemote: boolean; remoteContainsLocal: boolean }): Exclude<WorkspaceSyncStateKind, 'error'> {
  if (h.local === h.remote) return 'in_sync';
  if (h.localContainsRemote) return 'local_ahead';
  if (h.remoteContainsLocal) return 'remote_ahead';
  return 'diverged';
}

/** The message of a compared state that was not resolved (null when there is nothing to say). */
export function syncMessage(state: Exclude<WorkspaceSyncStateKind, 'error'>, branch: string, blocker: 'dirty' | 'not_checked_out' | 'ignored_files' | null): string | null {
  switch (state) {
    case 'in_sync':
      return null;
    case 'local_ahead':
      return `${branch} has commits the container does not have; they reach it when the session's container is placed again.`;
    case 'diverged':
      return `${branch} and the container's branch both have new commits. Nothing was overwritten; merge the container's commits from its ref by hand.`;
    case 'remote_ahead':
      if (blocker === 'dirty') return `The container has new commits, but the worktree has uncommitted changes: commit or stash them, then sync again.`;
      if (blocker === 'ignored_files') return `The container has new commits with files that git ignores in the worktree (a .env, say) and that exist there: nothing was changed. Move those files aside, then sync again.`;
      if (blocker === 'not_checked_out') return `The container has new commits, but ${branch} is not checked out in the session's worktree: they wait in the container's ref.`;
      return null;
  }
}
