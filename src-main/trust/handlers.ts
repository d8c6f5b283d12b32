import type { Router } from '../bridge/router';
import type { ProjectService } from '../projects/project-service';
import type { TrustService } from './trust-service';

export function registerTrustHandlers(router: Router, trust: TrustService, projects: ProjectService): void {
  // A path names a repository the user typed (the CLI's `projects trust PATH`); it is resolved to its top level like an added project.
  const rootOf = async (t: { projectId: string } | { path: string }) => ('projectId' in t ? projects.get(t.projectId).path : projects.resolveRepository(t.path));
  router.handle('trust.status', async (t) => trust.status(await rootOf(t)));
  router.handle('trust.trust', async (t) => trust.trust(await rootOf(t), t.fingerprint));
  router.handle('trust.untrust', async (t) => trust.untrust(await rootOf(t)));
}
