import { reusableAnswer } from '../bridge/reusable';
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
  // The last answer per question (the whole list, each project alone), given again while every
  // project's entry is the one it held: a reusable answer, which the router checks against the
  // contract once and the host writes out once (bridge/reusable.ts).
  const answers = new Map<string, Readonly<{ projects: ReadonlyArray<Readonly<ProjectFeatures>> }>>();
  router.handle('features.list', async ({ projectId, indexedOnly }) => {
    features.startInBackground();
    const key = `${indexedOnly ? 'indexed' : 'all'}:${projectId ?? ''}`;
    let projects: Array<Readonly<ProjectFeatures>>;
    try {
      projects = await features.list({ ...(projectId !== undefined ? { projectId } : {}), ...(indexedOnly ? { indexedOnly } : {}) });
    } catch (e) {
      answers.delete(key); // A project removed: its question has no answer to keep.
      throw e;
    }
    const last = answers.get(key);
    if (last && last.projects.length === projects.length && last.projects.every((p, i) => p === projects[i])) return last as { projects: ProjectFeatures[] };
    const answer = reusableAnswer(Object.freeze({ projects: Object.freeze(projects) }));
    answers.set(key, answer);
    return answer as { projects: ProjectFeatures[] };
  });
  router.handle('features.status', ({ projectId, slug }) => bridged(() => features.status(projects.get(projectId).path, slug)));
  router.handle('features.clean', ({ projectId, dryRun, slugs }) => bridged(() => features.clean(projects.get(projectId).path, { dryRun, ...(slugs ? { only: slugs } : {}) })));
}
