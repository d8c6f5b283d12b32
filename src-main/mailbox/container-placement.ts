/**
 * The container placement of mailbox tasks: the task's session is placed in a Docker container
 * (containers/), so its commands run there with the workspace mounted, and with the engine,
 * image, GPUs, limits and network the command file asks for. The placement stays with the
 * session, so a later `continue` runs in the same container. A `continue` that names other
 * container settings changes the session's placement from that task on (its container is
 * replaced, the workspace kept), and its report says what changed.
 */
import { ContainerPlacement, formatBytesExact, type ContainerGpuRequest } from '../../src-preload/contract';
import type { CommandFile, GpuRequest } from './command-file';
import type { ProjectContainerDefault, TaskPlacement } from './processor';

/** What the mailbox needs of the containers service. */
export interface SessionPlacer {
  setPlacement(sessionId: string, p: ContainerPlacement | null): Promise<void>;
  placement(sessionId: string): ContainerPlacement | null;
  /** The named Docker engine; throws a clear error (naming the known ones) when there is none. */
  engine(name: string): unknown;
}

/** A project's default container placement as a full one: the mailbox's image when it names none. */
function projectBase(d: ProjectContainerDefault, image: string): ContainerPlacement {
  const { kind: _kind, ...fields } = d;
  return ContainerPlacement.parse({ ...fields, image: fields.image ?? image });
}

/** A command file's `gpus` as the containers service reads it (`0` GPUs = none). */
export function containerGpus(g: GpuRequest): ContainerGpuRequest {
  if (g.kind === 'all') return { kind: 'all' };
  if (g.kind === 'count') return g.count === 0 ? { kind: 'none' } : { kind: 'count', count: g.count };
  return { kind: 'ids', ids: g.ids };
}

/**
 * The placement a command asks for on top of the session's current one (null: a session not
 * placed yet): only the keys the file gives change, so a `continue` that names nothing keeps
 * everything. Pure.
 */
export function wantedPlacement(cmd: CommandFile, current: ContainerPlacement | null, defaultImage: string): ContainerPlacement {
  const limits = {
    ...(current?.limits ?? {}),
    ...(cmd.memoryBytes !== undefined ? { memoryBytes: cmd.memoryBytes } : {}),
    ...(cmd.cpus !== undefined ? { cpus: cmd.cpus } : {}),
    ...(cmd.pids !== undefined ? { pids: cmd.pids } : {}),
  };
  return ContainerPlacement.parse({
    ...(current ?? {}),
    image: cmd.image ?? current?.image ?? defaultImage,
    ...(cmd.containerEngine !== undefined ? { engine: cmd.containerEngine } : {}),
    ...(cmd.gpus ? { gpus: containerGpus(cmd.gpus) } : {}),
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
    ...(cmd.network !== undefined ? { network: cmd.network } : {}),
    ...(cmd.timeoutMs ? { taskTimeoutMs: cmd.timeoutMs } : {}),
  });
}

function show(field: string, v: unknown): string {
  if (v === undefined || v === null) return 'the default';
  if (field === 'memoryBytes' && typeof v === 'number') return formatBytesExact(v);
  if (field === 'gpus' && typeof v === 'object') {
    const g = v as ContainerGpuRequest;
    return g.kind === 'count' ? `${g.count}` : g.kind === 'ids' ? g.ids.join(',') : g.kind;
  }
  if (field === 'taskTimeoutMs' && typeof v === 'number') return `${Math.round(v / 1000)} s`;
  return String(v);
}

const CHANGE_NAMES: Record<string, string> = { engine: 'engine', image: 'image', gpus: 'GPUs', memoryBytes: 'memory', cpus: 'CPUs', pids: 'processes', network: 'network', taskTimeoutMs: 'time limit' };

/** What differs between two placements, as "memory 8 GiB → 512 MiB" (any difference replaces the container, the time limit included: it is one of its labels). */
export function placementChanges(before: ContainerPlacement, after: ContainerPlacement): string[] {
  const out: string[] = [];
  const flat = (p: ContainerPlacement): Record<string, unknown> => ({ engine: p.engine, image: p.image, gpus: p.gpus ?? { kind: 'none' }, ...p.limits, network: p.network, taskTimeoutMs: p.taskTimeoutMs });
  const a = flat(before);
  const b = flat(after);
  for (const k of Object.keys(CHANGE_NAMES)) if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) out.push(`${CHANGE_NAMES[k]} ${show(k, a[k])} → ${show(k, b[k])}`);
  return out;
}

/**
 * Whether two placements say the same thing, whatever the order of their keys: a stored one
 * may have its keys in another order than `wantedPlacement`'s parse gives (the Containers
 * view's Keep after quit adds `keep` last), and an order alone must not replace a container.
 */
export function samePlacement(a: ContainerPlacement, b: ContainerPlacement): boolean {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(canonical) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([k, x]) => [k, canonical(x)])) : v;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

export function containerTaskPlacement(containers: SessionPlacer, image: () => string): TaskPlacement {
  return {
    name: 'container',
    holds: (sessionId) => containers.placement(sessionId) !== null,
    async prepare(ctx) {
      const current = containers.placement(ctx.sessionId);
      // A session placed for the first time starts from its project's container settings, if it has any.
      const base = current ?? (ctx.projectDefault ? projectBase(ctx.projectDefault, image()) : null);
      const wanted = wantedPlacement(ctx.command, base, image());
      // An engine name that does not exist (the command file's, or the project config's) fails
      // the task here, with the known names, before anything about the session changes.
      if (wanted.engine !== undefined) containers.engine(wanted.engine);
      const notes: string[] = [];
      if (!current && ctx.projectDefault) notes.push(`The container started from this project's default placement (.flightdeck/config.yml), with what this command sets on top.`);
      // Only a change replaces the session's container (setPlacement removes a running one).
      if (!current || !samePlacement(current, wanted)) {
        await containers.setPlacement(ctx.sessionId, wanted);
        const changed = current ? placementChanges(current, wanted) : [];
        if (changed.length > 0) notes.push(`This command changed the session's container settings (${changed.join(', ')}): its container was replaced for this task, with the workspace kept; later tasks of the session keep the new settings.`);
      }
      return { workspace: ctx.workspace, label: `container (${wanted.image})`, notes, async release() {} };
    },
  };
}
