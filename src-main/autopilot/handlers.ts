import type { Router } from '../bridge/router';
import type { AutopilotService } from './autopilot-service';

export function registerAutopilotHandlers(router: Router, autopilot: AutopilotService): void {
  router.handle('autopilot.list', ({ projectId }) => ({ runs: autopilot.list(projectId) }));
  router.handle('autopilot.get', ({ runId }) => autopilot.get(runId));
  router.handle('autopilot.start', async (input) => ({ run: await autopilot.startRun(input) }));
  router.handle('autopilot.pause', ({ runId }) => ({ run: autopilot.pause(runId) }));
  router.handle('autopilot.resume', ({ runId }) => ({ run: autopilot.resume(runId) }));
  router.handle('autopilot.cancel', ({ runId }) => ({ run: autopilot.cancel(runId) }));
  router.handle('autopilot.answer', async ({ runId, stepId, answer }) => ({ run: await autopilot.answer(runId, stepId, answer) }));
}
