import { homedir } from 'node:os';
import type { Router } from '../bridge/router';
import { suggestFolders } from './folder-suggest';

/** `home` is the user's home folder (tests pass a temporary one). */
export function registerFolderHandlers(router: Router, home: () => string = homedir): void {
  router.handle('folders.suggest', ({ typed }) => suggestFolders(typed, home()));
}
