import type { Router } from '../bridge/router';
import type { ProjectService } from '../projects/project-service';
import { diskUse, type WorktreeManager } from './worktree-manager';
import { worktreePortOf } from './worktree-prepare';

export function registerWorktreeHandlers(router: Router, worktrees: WorktreeManager, projects: ProjectService): void {
  router.handle('worktrees.list', async ({ projectId }) => {
    const { path } = projects.get(projectId);
    const [list, archives] = await Promise.all([worktrees.list(path), worktrees.archives(path)]);
    // Disk use and port are shown per worktree (worktrees grow to gigabytes with dependencies and builds).
    const measured = await Promise.all(list.map(async (w) => ({ ...w, diskBytes: w.missing ? null : await diskUse(w.path), port: w.missing ? null : worktreePortOf(w.path) })));
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
