import type { Router } from '../bridge/router';
import type { ProjectService } from '../projects/project-service';
import { isFeatureError } from './errors';
import type { FeatureService, ProjectFeatures } from './feature-service';

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
  // The last answer per question, given again (the same frozen object) while every project's
  // entry is the one it held: the router then skips the contract's check, the host the writing.
  const answers = new Map<string, Readonly<{ projects: ReadonlyArray<Readonly<ProjectFeatures>> }>>();
  router.handle('features.list', async ({ projectId, indexedOnly }) => {
    features.startInBackground();
    const projects = await features.list({ ...(projectId !== undefined ? { projectId } : {}), ...(indexedOnly ? { indexedOnly } : {}) });
    const key = `${indexedOnly ? 'indexed' : 'all'}:${projectId ?? ''}`;
    const last = answers.get(key);
    if (last && last.projects.length === projects.length && last.projects.every((p, i) => p === projects[i])) return last as { projects: ProjectFeatures[] };
    const answer = Object.freeze({ projects: Object.freeze(projects) });
    // One per question: the whole list and each project alone (a project removed leaves one stale entry at most until asked again).
    answers.set(key, answer);
    return answer as { projects: ProjectFeatures[] };
  });
  router.handle('features.status', ({ projectId, slug }) => bridged(() => features.status(projects.get(projectId).path, slug)));
  router.handle('features.clean', ({ projectId, dryRun, slugs }) => bridged(() => features.clean(projects.get(projectId).path, { dryRun, ...(slugs ? { only: slugs } : {}) })));
}
