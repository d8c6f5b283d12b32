import { z } from 'zod';
import { event, request } from './define';

export const ProjectId = z.string().regex(/^[a-z0-9-]{6,64}$/, 'not a project id');

/** A path typed by the user: bounded, no NUL bytes (they truncate paths in syscalls). */
export const UserPath = z
  .string()
  .trim()
  .min(1, 'a path is required')
  .max(4096, 'the path is too long')
  .refine((p) => !p.includes('\0'), 'the path contains a NUL byte');

export const GitState = z.object({
  branch: z.string().nullable(),
  detached: z.boolean(),
  dirty: z.boolean(),
  changedFiles: z.number().int().nonnegative(),
  worktreeCount: z.number().int().nonnegative(),
});
export type GitState = z.infer<typeof GitState>;

export const Project = z.object({
  id: ProjectId,
  name: z.string(),
  path: z.string(),
  addedAt: z.number().int(),
  /** null when the last refresh failed (folder moved, git gone); `problem` says why. */
  git: GitState.nullable(),
  problem: z.string().nullable(),
  refreshedAt: z.number().int().nullable(),
});
export type Project = z.infer<typeof Project>;

export const projectRequests = {
  'projects.list': request(z.object({}).strict(), z.array(Project), 'All projects with their last known git state.'),
  'projects.add': request(z.object({ path: UserPath }).strict(), Project, 'Add a local git repository as a project.'),
  'projects.remove': request(
    z.object({ id: ProjectId }).strict(),
    z.object({ removed: z.boolean() }),
    'Forget a project. The repository itself is never touched.',
  ),
  'projects.refresh': request(
    z.object({ id: ProjectId.optional() }).strict(),
    z.array(Project),
    'Re-read git state (branch, dirty, worktrees) of one project or of all.',
  ),
  'projects.validatePath': request(
    z.object({ path: UserPath }).strict(),
    z.object({ ok: z.boolean(), message: z.string().nullable(), root: z.string().nullable() }),
    'Check a path before adding it, for inline validation as the user types.',
  ),
} as const;

export const projectEvents = {
  'projects.changed': event(z.object({ projects: z.array(Project) }), 'The project list or a project state changed.'),
} as const;
