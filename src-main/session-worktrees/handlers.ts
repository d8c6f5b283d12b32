import type { Router } from '../bridge/router';
import type { ProjectService } from '../projects/project-service';
import type { SessionWorktreeService } from './session-worktree-service';

export function registerSessionWorktreeHandlers(router: Router, service: SessionWorktreeService, projects: ProjectService): void {
  router.handle('sessionWorktrees.probe', ({ projectId }) => service.probe(projects.get(projectId).path));
  router.handle('sessionWorktrees.start', async ({ projectId, placement, slug, title, mode, profile, sandbox }) => {
    const r = await service.startSession({ projectId, placement, ...(slug ? { slug } : {}), ...(title ? { title } : {}), ...(mode ? { mode } : {}), ...(profile ? { profile } : {}), ...(sandbox ? { sandbox } : {}) });
    return r.session;
  });
  router.handle('sessionWorktrees.status', ({ sessionId }) => service.status(sessionId));
  router.handle('sessionWorktrees.commit', ({ sessionId, message }) => service.commit(sessionId, message));
  router.handle('sessionWorktrees.merge', ({ sessionId, strategy }) => service.merge(sessionId, strategy));
  router.handle('sessionWorktrees.push', ({ sessionId }) => service.push(sessionId));
  router.handle('sessionWorktrees.discardPreview', ({ sessionId }) => service.discardPreview(sessionId));
  router.handle('sessionWorktrees.discard', async ({ sessionId, force }) => {
    const r = await service.discard(sessionId, force);
    return { archive: r.archive, branchDeleted: r.branchDeleted, saved: r.saved };
  });
  router.handle('sessionWorktrees.restore', ({ sessionId }) => service.restore(sessionId));
  router.handle('sessionWorktrees.fork', ({ sessionId, turn }) => service.fork(sessionId, turn));
}
