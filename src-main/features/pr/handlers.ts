import type { Router } from '../../bridge/router';
import type { ProjectService } from '../../projects/project-service';
import { isFeatureError } from '../errors';
import { validateSlug } from '../../worktrees/worktree-model';
import type { PrFollowService } from './pr-service';

/** A features error (an unreadable state.yml) crosses the bridge with its kind, path and line. */
async function features<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (isFeatureError(e)) throw e.toAppError();
    throw e;
  }
}

/** The feature page's pull request panel: its status, Merge, and Follow / Stop following. */
export function registerPrHandlers(router: Router, prs: PrFollowService, projects: Pick<ProjectService, 'get'>): void {
  const root = (projectId: string, slug: string) => {
    validateSlug(slug);
    return projects.get(projectId).path;
  };
  router.handle('features.pr.list', () => ({ prs: prs.repo.all().map((f) => ({ projectPath: f.repoRoot, slug: f.slug, number: f.number, status: f.status, reason: f.reason })) }));
  router.handle('features.pr.status', ({ projectId, slug }) => features(() => prs.status(root(projectId, slug), slug)));
  router.handle('features.pr.merge', ({ projectId, slug, method }) => features(() => prs.merge(root(projectId, slug), slug, method)));
  router.handle('features.pr.follow', ({ projectId, slug, follow }) =>
    features(async () => {
      const r = root(projectId, slug);
      if (follow) await prs.follow(r, slug);
      else prs.stop(r, slug);
      return prs.status(r, slug);
    }),
  );
}
