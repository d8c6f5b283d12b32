import { AppError } from '../../src-preload/contract';
import { existsSync, realpathSync, statSync } from 'node:fs';
import type { Router } from '../bridge/router';
import type { CoderService } from './coder-service';

export function registerCoderHandlers(router: Router, coder: CoderService): void {
  router.handle('coder.detect', () => coder.detect());
  router.handle('coder.settings.get', () => coder.settings());
  router.handle('coder.settings.update', (patch) => {
    const { claudePath, ...rest } = patch;
    if (typeof claudePath === 'string' && !existsSync(claudePath)) throw new AppError('path_not_found', `${claudePath} does not exist.`);
    return coder.updateSettings({ ...rest, ...(claudePath !== undefined ? { claudePath } : {}) });
  });
  router.handle('coder.sessions.get', ({ sessionId }) => coder.sessionConfig(sessionId));
  router.handle('coder.sessions.update', (input) => coder.updateSession(input));
  router.handle('coder.constraints.inspect', ({ root }) => {
    if (!existsSync(root)) throw new AppError('path_not_found', `${root} does not exist.`);
    if (!statSync(root).isDirectory()) throw new AppError('not_a_directory', `${root} is not a folder.`);
    return coder.constraints(realpathSync(root));
  });
}
