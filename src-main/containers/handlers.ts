import type { EventHub } from '../bridge/event-hub';
import type { Router } from '../bridge/router';
import type { ContainerService } from './container-service';
import { listImages, removeImage } from './images';

export function registerContainerHandlers(router: Router, containers: ContainerService, hub: EventHub): void {
  router.handle('containers.engines.list', () => containers.engineInfos());
  router.handle('containers.engines.add', ({ name, host, tlsVerify, certDir }) =>
    containers.addEngine({ name, host, tls: tlsVerify !== undefined || certDir !== undefined ? { verify: tlsVerify === true, certDir: certDir ?? null } : null }),
  );
  router.handle('containers.engines.remove', ({ name }) => ({ removed: containers.removeEngine(name) }));
  router.handle('containers.list', ({ engine }) => containers.list(engine));
  router.handle('containers.placement.get', ({ sessionId }) => containers.placement(sessionId));
  router.handle('containers.placement.set', async ({ sessionId, placement }) => {
    await containers.setPlacement(sessionId, placement);
    return containers.placement(sessionId);
  });
  router.handle('containers.stop', async ({ sessionId }) => (await containers.stop(sessionId), { ok: true as const }));
  router.handle('containers.kill', async ({ sessionId }) => (await containers.kill(sessionId), { ok: true as const }));
  router.handle('containers.remove', async ({ sessionId }) => (await containers.remove(sessionId), { ok: true as const }));
  router.handle('containers.logs', async ({ sessionId }) => ({ text: await containers.logs(sessionId) }));
  router.handle('containers.inspect', async ({ sessionId }) => ({ inspect: (await containers.inspect(sessionId)) as unknown as Record<string, unknown> }));
  router.handle('containers.stats', ({ sessionId }) => containers.stats(sessionId));
  router.handle('containers.reap', ({ engine }) => containers.reap(engine));
  router.handle('containers.terminal.open', ({ sessionId, cols, rows }) => containers.openTerminal(sessionId, { cols, rows }));
  router.handle('containers.keep.set', ({ sessionId, keep }) => containers.setKeep(sessionId, keep));
  router.handle('containers.console.open', ({ sessionId, cols, rows }) => containers.openConsole(sessionId, { cols, rows }));
  router.handle('containers.images.list', ({ engine }) => listImages(containers.engine(engine)));
  router.handle('containers.images.build', ({ engine, tag, pullBase }) => ({
    buildId: containers.startImageBuild({ ...(engine ? { engine } : {}), ...(tag ? { tag } : {}), ...(pullBase ? { pullBase } : {}) }, (u) => hub.publish('containers.images.progress', u)),
  }));
  router.handle('containers.images.cancel', ({ buildId }) => ({ cancelled: containers.cancelImageBuild(buildId) }));
  router.handle('containers.workspace.sync', ({ sessionId }) => containers.syncWorkspace(sessionId));
  router.handle('containers.images.remove', async ({ engine, ref }) => (await removeImage(containers.engine(engine), ref), { ok: true as const }));
}
