import { z } from 'zod';
import { event, request } from './define';
import { ProjectId } from './projects';

/** The rule itself lives in src-main/worktrees/worktree-model.ts (with its message); this only bounds the input. */
const Slug = z.string().min(1).max(200);

/**
 * Where a worktree's setup (`worktree.setup` of a trusted repository) is: it runs after the
 * worktree is made and usable. `pending`: decided, its first command not started yet;
 * `interrupted`: the process running it ended (a restart) before it finished. A failed,
 * cancelled or interrupted setup can be run again.
 */
export const WorktreeSetupState = z.enum(['pending', 'running', 'done', 'failed', 'cancelled', 'interrupted']);
export type WorktreeSetupState = z.infer<typeof WorktreeSetupState>;

export const WorktreeSetup = z.object({
  state: WorktreeSetupState,
  // Bounds far above any real setup (a config's list is not bounded by count): what a state file may hold.
  commands: z.array(z.string().max(65_536)).max(10_000),
  /** The command running now (or that failed / was stopped): an index into `commands`. */
  step: z.number().int().nonnegative(),
  /** The terminal of the current (or last) command, while the app holds it. */
  terminalId: z.string().max(200).nullable(),
  /** What ended it when it did not succeed: the command, its exit code (null when stopped by a signal or never ran), why in words. */
  failed: z.object({ command: z.string().max(65_536), exitCode: z.number().int().nullable(), reason: z.string().max(1_000) }).nullable(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
});
export type WorktreeSetup = z.infer<typeof WorktreeSetup>;

export const WorktreeEntry = z.object({
  slug: z.string(),
  path: z.string(),
  branch: z.string().nullable(),
  head: z.string().nullable(),
  /** Under `.trees/` (Flightdeck's layout); false for one made elsewhere with plain git. */
  managed: z.boolean(),
  /** Its folder vanished; removing it prunes git's record (the branch tip is archived). */
  missing: z.boolean(),
  locked: z.boolean(),
  lockReason: z.string().nullable(),
  detached: z.boolean(),
  /** Bytes its files take (the listing measures them; null when the folder is missing). */
  diskBytes: z.number().nullable().optional(),
  /** Its own PORT from the project's worktree.ports (null: none assigned). */
  port: z.number().int().nullable().optional(),
  /** Its setup's state (null: no setup ran in it). */
  setup: WorktreeSetup.nullable().optional(),
});
export type WorktreeEntry = z.infer<typeof WorktreeEntry>;

export const WorktreeArchive = z.object({
  ref: z.string(),
  timestamp: z.string(),
  commit: z.string(),
  slug: z.string(),
  branch: z.string().nullable(),
  base: z.string().nullable(),
  head: z.string(),
  dirty: z.boolean(),
});
export type WorktreeArchive = z.infer<typeof WorktreeArchive>;

/**
 * The worktree a session works in (sessions started "in a new worktree"): recorded when the
 * session is created; `archiveRef` is set once the worktree was discarded (archived first).
 */
export const SessionWorktreeRef = z.object({
  slug: z.string(),
  branch: z.string(),
  base: z.string(),
  path: z.string(),
  /** The main checkout the worktree belongs to. */
  repo: z.string(),
  archiveRef: z.string().nullable(),
});
export type SessionWorktreeRef = z.infer<typeof SessionWorktreeRef>;

export const worktreeRequests = {
  'worktrees.list': request(
    z.object({ projectId: ProjectId }).strict(),
    z.object({ worktrees: z.array(WorktreeEntry), archives: z.array(WorktreeArchive) }),
    "A project's worktrees (including ones made outside Flightdeck and ones whose folder vanished) and its archives, newest first.",
  ),
  'worktrees.remove': request(
    z.object({ projectId: ProjectId, slug: Slug, force: z.boolean().default(false) }).strict(),
    z.object({ archive: WorktreeArchive, branchDeleted: z.boolean(), saved: z.array(z.string()) }),
    'Remove a worktree, archived first. Refused (conflict, naming files and commits) when work would be lost and force is not set.',
  ),
  'worktrees.restore': request(
    z.object({ projectId: ProjectId, slug: Slug }).strict(),
    z.object({ worktree: WorktreeEntry, archive: WorktreeArchive, reappliedDirty: z.boolean() }),
    'Recreate a worktree and its branch from its newest archive, uncommitted work included.',
  ),
  'worktrees.setup.rerun': request(
    z.union([z.object({ projectId: ProjectId, slug: Slug }).strict(), z.object({ sessionId: z.string().min(1).max(200) }).strict()]),
    z.object({ setup: WorktreeSetup }),
    "Run a worktree's setup again (after it failed, was cancelled or interrupted), with the repository's setup as trusted now. Refused while it runs.",
  ),
  'worktrees.setup.cancel': request(
    z.union([z.object({ projectId: ProjectId, slug: Slug }).strict(), z.object({ sessionId: z.string().min(1).max(200) }).strict()]),
    z.object({ cancelled: z.boolean() }),
    "Stop a worktree's running setup (its command's terminal is ended); false when none was running.",
  ),
} as const;

export const worktreeEvents = {
  'worktrees.setup.changed': event(
    z.object({ projectId: z.string().nullable(), root: z.string(), path: z.string(), setup: WorktreeSetup }),
    "A worktree's setup started, moved to its next command, or ended (done, failed, cancelled, interrupted).",
  ),
} as const;
