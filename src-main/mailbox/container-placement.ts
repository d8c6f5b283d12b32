/**
 * The container placement of mailbox tasks: the task's session is placed in a Docker container
 * (containers/), so its commands run there with the workspace mounted, and with the GPUs the
 * command file asks for. The placement stays with the session, so a later `continue` runs in the
 * same kind of container; the container itself is kept or stopped by the containers service.
 */
import type { ContainerGpuRequest, ContainerPlacement } from '../../src-preload/contract';
import type { GpuRequest } from './command-file';
import type { TaskPlacement } from './processor';

/** What the mailbox needs of the containers service. */
export interface SessionPlacer {
  setPlacement(sessionId: string, p: ContainerPlacement | null): Promise<void>;
  placement(sessionId: string): ContainerPlacement | null;
}

/** A command file's `gpus` as the containers service reads it (`0` GPUs = none). */
export function containerGpus(g: GpuRequest): ContainerGpuRequest {
  if (g.kind === 'all') return { kind: 'all' };
  if (g.kind === 'count') return g.count === 0 ? { kind: 'none' } : { kind: 'count', count: g.count };
  return { kind: 'ids', ids: g.ids };
}

export function containerTaskPlacement(containers: SessionPlacer, image: () => string): TaskPlacement {
  return {
    name: 'container',
    async prepare(ctx) {
      const current = containers.placement(ctx.sessionId);
      const wanted: ContainerPlacement = {
        ...(current ?? {}),
        image: current?.image ?? image(),
        ...(ctx.command.gpus ? { gpus: containerGpus(ctx.command.gpus) } : {}),
        ...(ctx.command.timeoutMs ? { taskTimeoutMs: ctx.command.timeoutMs } : {}),
      };
      // Only a change replaces the session's container (setPlacement removes a running one).
      if (JSON.stringify(current) !== JSON.stringify(wanted)) await containers.setPlacement(ctx.sessionId, wanted);
      return { workspace: ctx.workspace, label: `container (${wanted.image})`, async release() {} };
    },
  };
}
