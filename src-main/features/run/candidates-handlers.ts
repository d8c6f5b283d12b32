import type { Router } from '../../bridge/router';
import type { ProjectService } from '../../projects/project-service';
import type { FeatureCandidateService } from './candidates-service';

export function registerCandidateHandlers(router: Router, candidates: FeatureCandidateService, projects: ProjectService): void {
  router.handle('featureCandidates.start', ({ projectId, slug, candidates: specs, budget, confirm }) => candidates.start({ projectPath: projects.get(projectId).path, slug, candidates: specs, budget, confirm }));
  router.handle('featureCandidates.compare', async ({ projectId, slug }) => ({ group: await candidates.compare(projects.get(projectId).path, slug) }));
  router.handle('featureCandidates.diff', ({ projectId, slug, candidate, against }) => candidates.diff(projects.get(projectId).path, slug, candidate, against));
  router.handle('featureCandidates.judge', ({ projectId, slug }) => candidates.judge(projects.get(projectId).path, slug));
  router.handle('featureCandidates.pick', ({ projectId, slug, candidate }) => candidates.pick(projects.get(projectId).path, slug, candidate));
  router.handle('featureCandidates.discard', async ({ projectId, slug }) => ({ group: await candidates.discard(projects.get(projectId).path, slug) }));
  router.handle('featureCandidates.cancel', async ({ projectId, slug }) => ({ cancelled: candidates.cancel(projects.get(projectId).path, slug) }));
}
