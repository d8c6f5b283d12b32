import { z } from 'zod';
import { request } from './define';
import { ProjectId } from './projects';

/** The rule itself lives in src-main/worktrees/worktree-model.ts (with its message); this only bounds the input. */
const Slug = z.string().min(1).max(200);

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
} as const;
