import type { Router } from '../bridge/router';
import type { ProjectService } from '../projects/project-service';
import type { FeatureService } from './feature-service';

/** features.list / status / clean over the bridge. A list also makes sure the state files are watched (a window is showing them). */
export function registerFeatureListHandlers(router: Router, features: FeatureService, projects: ProjectService): void {
  router.handle('features.list', async ({ projectId }) => {
    features.startInBackground();
    return { projects: await features.list(projectId !== undefined ? { projectId } : {}) };
  });
  router.handle('features.status', async ({ projectId, slug }) => features.status(projects.get(projectId).path, slug));
  router.handle('features.clean', async ({ projectId, dryRun, slugs }) => features.clean(projects.get(projectId).path, { dryRun, ...(slugs ? { only: slugs } : {}) }));
}
