/**
 * The containers service as a feature run uses it: the placement is recorded for the session the
 * same way the mailbox and the new-session dialog record theirs (`setPlacement`, so the agent
 * engine's container runner and the Claude Code launcher pick it up), then the container is
 * started at once with the feature's label, so a refusal fails the run before any turn.
 */
import type { ContainerService } from '../../containers/container-service';
import type { RunContainers } from './feature-runner';

export function runContainers(containers: Pick<ContainerService, 'setPlacement' | 'place'>): RunContainers {
  return {
    async place({ sessionId, worktree, projectId, featureId, placement }) {
      await containers.setPlacement(sessionId, placement);
      await containers.place({ ...placement, sessionId, worktree, projectId, featureId });
    },
    async release(sessionId) {
      // Back "on the host" removes a running container; the finished session's placement would only linger in the settings.
      await containers.setPlacement(sessionId, null);
    },
  };
}
