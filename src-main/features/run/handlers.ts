import { AppError } from '../../../src-preload/contract';
import type { BudgetService } from '../../budgets/budget-service';
import type { Router } from '../../bridge/router';
import type { ProjectService } from '../../projects/project-service';
import { isFeatureError } from '../errors';
import { featureDefaultPlacement } from '../placement';
import type { FeatureRunService } from './run-service';

/** A features error crosses the bridge with its kind, path and line. */
async function features<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (isFeatureError(e)) throw e.toAppError();
    throw e;
  }
}

export function registerFeatureRunHandlers(router: Router, runs: FeatureRunService, projects: ProjectService): void {
  router.handle('featureRuns.start', ({ projectId, slug, executor, placement }) =>
    features(async () => {
      const { done, ...info } = await runs.enqueue({ projectPath: projects.get(projectId).path, slug, ...(executor ? { executor } : {}), ...(placement ? { placement } : {}) });
      // The outcome arrives as run events; nobody waits on it here.
      void done;
      return info;
    }),
  );
  router.handle('featureRuns.defaultPlacement', ({ projectId, slug }) =>
    features(() => {
      const root = projects.get(projectId).path;
      // The dialog never prefills what an untrusted repository's config asks for: it would pass it back as the user's choice.
      // …nor what the feature's state.yml says against its approval: the run would not use it either.
      return featureDefaultPlacement(
        root,
        slug,
        (p) => runs.trustedProjectPlacement(root, p),
        (a) => runs.agentChoice(root, slug, a).placement,
      );
    }),
  );
  router.handle('featureRuns.cancel', async ({ projectId, slug }) => ({ cancelled: runs.cancel(projects.get(projectId).path, slug) }));
  router.handle('featureRuns.list', async () => ({ runs: runs.list(), limit: runs.maxParallel() }));
  router.handle('featureRuns.events', async ({ runId, fromSeq }) => ({ events: runs.events(runId, fromSeq) }));
  router.handle('featureRuns.history', async ({ projectId, slug }) => ({ runs: runs.history(projects.get(projectId).path, slug) }));
  router.handle('featureRuns.merge', ({ projectId, slug, squash, confirm }) => features(() => runs.merge({ projectPath: projects.get(projectId).path, slug, squash, confirm })));
  router.handle('featureRuns.push', ({ projectId, slug }) => features(() => runs.push({ projectPath: projects.get(projectId).path, slug })));
  router.handle('featureRuns.settings.get', async () => ({ maxParallel: runs.maxParallel() }));
  router.handle('featureRuns.settings.update', async ({ maxParallel }) => {
    if (maxParallel < 1) throw new AppError('invalid_input', 'At least one feature must be able to run.');
    return { maxParallel: runs.setMaxParallel(maxParallel) };
  });
}

export function registerBudgetHandlers(router: Router, budgets: BudgetService): void {
  router.handle('budgets.get', async () => budgets.get());
  router.handle('budgets.update', async (patch) => budgets.update(patch));
  router.handle('budgets.status', async () => ({ uses: budgets.status() }));
}
