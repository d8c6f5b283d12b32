import type { Router } from '../bridge/router';
import type { InboxService } from './inbox-service';

export function registerInboxHandlers(router: Router, inbox: InboxService): void {
  router.handle('inbox.list', () => inbox.list());
  router.handle('inbox.markRead', ({ ids }) => inbox.markRead(ids));
}
