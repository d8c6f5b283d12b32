import type { Router } from '../bridge/router';
import type { TerminalService } from './terminal-service';

const ok = { ok: true as const };

export function registerTerminalHandlers(router: Router, terminals: TerminalService): void {
  router.handle('terminals.create', ({ target, cols, rows }) => terminals.open(target, { cols, rows }));
  router.handle('terminals.list', () => terminals.list());
  router.handle('terminals.write', async ({ id, data }) => (await terminals.write(id, data), ok));
  router.handle('terminals.resize', ({ id, cols, rows }) => (terminals.resize(id, cols, rows), ok));
  router.handle('terminals.kill', ({ id, signal }) => (terminals.kill(id, signal), ok));
  router.handle('terminals.close', ({ id }) => ({ closed: terminals.close(id) }));
  // Views belong to the connection that attached them: another window cannot detach or ack for it.
  router.handle('terminals.attach', ({ id, since }, ctx) => terminals.attachView(id, ctx.connectionId, since));
  router.handle('terminals.history', ({ id, since, maxChars }) => terminals.history(id, since, maxChars));
  router.handle('terminals.detach', ({ id, attachmentId }, ctx) => (terminals.detach(id, attachmentId, ctx.connectionId), ok));
  router.handle('terminals.ack', ({ id, attachmentId, chars }, ctx) => (terminals.ack(id, attachmentId, chars, ctx.connectionId), ok));
}
