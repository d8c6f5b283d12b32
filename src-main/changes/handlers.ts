import type { Router } from '../bridge/router';
import type { ChangesService } from './changes-service';

export function registerChangesHandlers(router: Router, changes: ChangesService): void {
  router.handle('changes.list', ({ sessionId, scope }) => changes.list(sessionId, scope));
  router.handle('changes.revertFile', ({ sessionId, path }) => changes.revertFile(sessionId, path));
  router.handle('changes.revertHunk', ({ sessionId, path, hunk }) => changes.revertHunk(sessionId, path, hunk));
  router.handle('changes.commit', ({ sessionId, paths, message }) => changes.commit(sessionId, paths, message));
}
