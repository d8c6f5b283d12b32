import type { Router } from '../bridge/router';
import type { ProjectService } from '../projects/project-service';
import { isFeatureError } from './errors';
import type { FeatureService } from './feature-service';

/** A features failure (a config that does not load) crosses the bridge with its kind, path and line. */
async function bridged<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw isFeatureError(e) ? e.toAppError() : e;
  }
}

/** features.list / status / clean over the bridge. A list also makes sure the state files are watched (a window is showing them). */
export function registerFeatureListHandlers(router: Router, features: FeatureService, projects: ProjectService): void {
  router.handle('features.list', async ({ projectId, indexedOnly }) => {
    features.startInBackground();
    return { projects: await features.list({ ...(projectId !== undefined ? { projectId } : {}), ...(indexedOnly ? { indexedOnly } : {}) }) };
  });
  router.handle('features.status', ({ projectId, slug }) => bridged(() => features.status(projects.get(projectId).path, slug)));
  router.handle('features.clean', ({ projectId, dryRun, slugs }) => bridged(() => features.clean(projects.get(projectId).path, { dryRun, ...(slugs ? { only: slugs } : {}) })));
}
