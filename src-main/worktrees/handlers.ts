import type { Router } from '../bridge/router';
import type { ProjectService } from '../projects/project-service';
import { AppError } from '../../src-preload/contract';
import { diskUse, type WorktreeManager } from './worktree-manager';
import { worktreePortOf } from './worktree-prepare';
import type { WorktreeSetupService } from './setup-service';

/** A worktree named by the window: a project's listed worktree, or a session's own. */
type WorktreeRef = { projectId: string; slug: string } | { sessionId: string };

export function registerWorktreeHandlers(router: Router, worktrees: WorktreeManager, projects: ProjectService, setups: WorktreeSetupService, sessionWorktree: (sessionId: string) => { repo: string; path: string }): void {
  // Only worktrees git lists for a known project (or a session's recorded one): never a folder the window names.
  const resolveRef = async (ref: WorktreeRef): Promise<{ root: string; path: string }> => {
    if ('sessionId' in ref) {
      const w = sessionWorktree(ref.sessionId);
      return { root: w.repo, path: w.path };
    }
    const root = await worktrees.repoRoot(projects.get(ref.projectId).path);
    const entry = (await worktrees.list(root)).find((e) => e.slug === ref.slug && !e.missing);
    if (!entry) throw new AppError('not_found', `There is no worktree "${ref.slug}" in ${root}.`, { slug: ref.slug });
    return { root, path: entry.path };
  };
  router.handle('worktrees.setup.rerun', async (ref) => {
    const { root, path } = await resolveRef(ref);
    return { setup: await setups.rerun(root, path) };
  });
  router.handle('worktrees.setup.cancel', async (ref) => {
    const { path } = await resolveRef(ref);
    return { cancelled: setups.cancel(path) };
  });
  router.handle('worktrees.list', async ({ projectId }) => {
    const { path } = projects.get(projectId);
    const [list, archives] = await Promise.all([worktrees.list(path), worktrees.archives(path)]);
    // Disk use and port are shown per worktree (worktrees grow to gigabytes with dependencies and builds).
    const measured = await Promise.all(list.map(async (w) => ({ ...w, diskBytes: w.missing ? null : await diskUse(w.path), port: w.missing ? null : worktreePortOf(w.path), setup: w.missing ? null : setups.status(w.path) })));
    return { worktrees: measured, archives };
  });
  router.handle('worktrees.remove', async ({ projectId, slug, force }) => {
    const r = await worktrees.remove(projects.get(projectId).path, slug, { force });
    return { archive: r.archive, branchDeleted: r.branchDeleted, saved: r.saved };
  });
  router.handle('worktrees.restore', async ({ projectId, slug }) => {
    const r = await worktrees.restore(projects.get(projectId).path, slug);
    return { worktree: r.entry, archive: r.archive, reappliedDirty: r.reappliedDirty };
  });
}
