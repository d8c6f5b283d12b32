import type { Router } from '../bridge/router';
import type { ProjectService } from '../projects/project-service';
import type { Database } from '../store/db';
import { isFeatureError } from './errors';
import { featureDiff, projectTimeline, spendPerDay } from './review';

export function registerFeatureReviewHandlers(router: Router, db: Database, projects: ProjectService): void {
  router.handle('featureReview.diff', async ({ projectId, slug }) => {
    try {
      return await featureDiff(projects.get(projectId).path, slug);
    } catch (e) {
      throw isFeatureError(e) ? e.toAppError() : e;
    }
  });
  router.handle('featureReview.projectTimeline', ({ projectId }) => projectTimeline(projects.get(projectId).path));
  router.handle('featureReview.spend', ({ days, tzOffsetMinutes, projectId }) => {
    if (projectId) projects.get(projectId);
    return { days: spendPerDay(db, { days, tzOffsetMinutes, ...(projectId ? { projectId } : {}) }) };
  });
}
