import type { Router } from '../../bridge/router';
import { testConnection } from './connection-test';
import type { ProfileService } from './profiles';

export function registerConnectionTestHandlers(router: Router, profiles: ProfileService): void {
  router.handle('providers.testConnection', ({ name }) => testConnection(profiles.resolve(name)));
}
