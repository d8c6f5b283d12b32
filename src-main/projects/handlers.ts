import type { Router } from '../bridge/router';
import type { ProjectService } from './project-service';

export function registerProjectHandlers(router: Router, projects: ProjectService): void {
  router.handle('projects.list', () => projects.list());
  router.handle('projects.add', ({ path }) => projects.add(path));
  router.handle('projects.remove', ({ id }) => ({ removed: projects.remove(id) }));
  router.handle('projects.refresh', ({ id }) => projects.refresh(id));
  router.handle('projects.validatePath', ({ path }) => projects.validate(path));
}
