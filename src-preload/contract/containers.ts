import { z } from 'zod';
import { event, request } from './define';
import { TerminalInfo } from './terminals';
import { MAX_CONTAINER_CPUS, MIN_CONTAINER_CPUS, MIN_CONTAINER_MEMORY_BYTES, MIN_CONTAINER_PIDS } from './container-sizes';
import { formatBytes } from './units';

/** Sessions are named by the agents contract's ids; bounded here only. */
const SessionRef = z.string().min(1).max(200);
const EngineName = z.string().min(1).max(64);

export const ContainerNetworkMode = z.enum(['bridge', 'host', 'none']);
export type ContainerNetworkMode = z.infer<typeof ContainerNetworkMode>;

/** None, all, a count, or device ids / UUIDs: sent as the engine's NVIDIA device request. */
export const ContainerGpuRequest = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }),
  z.object({ kind: z.literal('all') }),
  z.object({ kind: z.literal('count'), count: z.number().int().min(1).max(64) }),
  z.object({ kind: z.literal('ids'), ids: z.array(z.string().regex(/^(?:[0-9]+|GPU-[0-9a-fA-F-]+|MIG-[0-9a-zA-Z/-]+)$/)).min(1).max(64) }),
]);
export type ContainerGpuRequest = z.infer<typeof ContainerGpuRequest>;

// The limits and sizes live in a module without zod, for the UI's first load (container-sizes.ts).
export { MAX_CONTAINER_CPUS, MAX_CONTAINER_PIDS, MIN_CONTAINER_CPUS, MIN_CONTAINER_MEMORY_BYTES, MIN_CONTAINER_PIDS, memorySizeText, parseMemorySize } from './container-sizes';

export const ContainerLimits = z.object({
  memoryBytes: z.number().int().min(MIN_CONTAINER_MEMORY_BYTES).nullable(),
  cpus: z.number().min(MIN_CONTAINER_CPUS).max(MAX_CONTAINER_CPUS).nullable(),
  pids: z.number().int().min(MIN_CONTAINER_PIDS).nullable(),
});
export type ContainerLimits = z.infer<typeof ContainerLimits>;

/** A session's choice to run in a container (absent: on the host). */
export const ContainerPlacement = z.object({
  engine: EngineName.optional(),
  image: z.string().min(1).max(500),
  gpus: ContainerGpuRequest.optional(),
  limits: ContainerLimits.partial().optional(),
  network: ContainerNetworkMode.optional(),
  keep: z.boolean().optional(),
  taskTimeoutMs: z.number().int().min(1_000).max(7 * 24 * 3_600_000).optional(),
});
export type ContainerPlacement = z.infer<typeof ContainerPlacement>;

export const ContainerEngineTls = z.object({ verify: z.boolean(), certDir: z.string().nullable() });

export const ContainerEngineSpec = z.object({
  name: z.string(),
  source: z.enum(['default', 'env', 'context', 'podman', 'user']),
  host: z.string(),
  tls: ContainerEngineTls.nullable(),
});
export type ContainerEngineSpecShape = z.infer<typeof ContainerEngineSpec>;

export const ContainerEngineInfo = z.object({
  name: z.string(),
  host: z.string(),
  source: ContainerEngineSpec.shape.source,
  local: z.boolean(),
  version: z.string(),
  apiVersion: z.string(),
  os: z.string(),
  arch: z.string(),
  cpus: z.number(),
  memoryBytes: z.number(),
  nvidia: z.boolean(),
  product: z.enum(['docker', 'podman']),
});

export const ContainerEngineEntry = z.object({
  spec: ContainerEngineSpec,
  info: ContainerEngineInfo.nullable(),
  /** Why the engine could not be reached (the message says what to do); null when it answered. */
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type ContainerEngineEntry = z.infer<typeof ContainerEngineEntry>;

/** How a remote workspace's branch (in the container's volume) compares with the session's local branch. */
export const WorkspaceSyncState = z.object({
  state: z.enum(['in_sync', 'remote_ahead', 'local_ahead', 'diverged', 'error']),
  /** Why the local branch was not fast-forwarded, or what failed. */
  message: z.string().nullable(),
  branch: z.string().nullable(),
  localHead: z.string().nullable(),
  remoteHead: z.string().nullable(),
  at: z.number(),
});
export type WorkspaceSyncState = z.infer<typeof WorkspaceSyncState>;

export const ManagedContainer = z.object({
  id: z.string(),
  name: z.string(),
  engine: z.string(),
  image: z.string(),
  state: z.string(),
  status: z.string(),
  sessionId: z.string(),
  projectId: z.string().nullable(),
  featureId: z.string().nullable(),
  instance: z.string(),
  ownerPid: z.number().nullable(),
  /**
   * Orphaned: the Flightdeck process that placed it (ownerPid) is gone and no live process of
   * this data folder has taken it over. `containers reap` removes it unless it is kept.
   */
  ownerGone: z.boolean(),
  keep: z.boolean(),
  createdAt: z.number(),
  /** Remote workspaces: the last sync state (null: bind-mounted, or not synced yet). */
  workspaceSync: WorkspaceSyncState.nullable(),
});
export type ManagedContainer = z.infer<typeof ManagedContainer>;

/** A figure is null when nvidia-smi cannot give it (`[N/A]`: MIG instances, some boards). */
export const ContainerGpuStat = z.object({ index: z.number(), name: z.string(), utilizationPercent: z.number().nullable(), memoryUsedMiB: z.number().nullable(), memoryTotalMiB: z.number().nullable() });

/** One GPU's use as the Containers view and the CLI write it; a figure nvidia-smi could not give is "n/a", never 0. */
export function gpuUseText(g: z.infer<typeof ContainerGpuStat>): string {
  const util = g.utilizationPercent === null ? 'n/a' : `${g.utilizationPercent}%`;
  const memory = g.memoryUsedMiB !== null && g.memoryTotalMiB !== null ? ` ${formatBytes(g.memoryUsedMiB * 2 ** 20)} / ${formatBytes(g.memoryTotalMiB * 2 ** 20)}` : '';
  return `GPU${g.index} ${util}${memory}`;
}

export const ContainerStats = z.object({
  cpuPercent: z.number(),
  memoryBytes: z.number(),
  memoryLimitBytes: z.number(),
  pids: z.number(),
  gpus: z.array(ContainerGpuStat),
  at: z.number(),
});
export type ContainerStats = z.infer<typeof ContainerStats>;

export const ContainerImage = z.object({ id: z.string(), tags: z.array(z.string()), sizeBytes: z.number(), createdAt: z.number() });

export const ImageBuildProgress = z.object({
  step: z.number(),
  steps: z.number(),
  fraction: z.number(),
  line: z.string(),
  imageId: z.string().nullable(),
  error: z.string().nullable(),
});

const Ok = z.object({ ok: z.literal(true) });
const BySession = z.object({ sessionId: SessionRef }).strict();

export const containerRequests = {
  'containers.engines.list': request(z.object({}).strict(), z.array(ContainerEngineEntry), 'Docker engines found or added, with version, OS, CPUs, memory and NVIDIA runtime, or why each cannot be reached.'),
  'containers.engines.add': request(
    z.object({ name: EngineName, host: z.string().min(1).max(500), tlsVerify: z.boolean().optional(), certDir: z.string().min(1).max(4096).optional() }).strict(),
    ContainerEngineSpec,
    'Add an engine reached by tcp:// (TLS certificates from a folder) or ssh://user@host.',
  ),
  'containers.engines.remove': request(z.object({ name: EngineName }).strict(), z.object({ removed: z.boolean() }), 'Remove an engine the user added.'),
  'containers.list': request(z.object({ engine: EngineName.optional() }).strict(), z.array(ManagedContainer), "This app's containers on one engine or all reachable ones."),
  'containers.placement.get': request(BySession, ContainerPlacement.nullable(), "A session's container placement (null: on the host)."),
  'containers.placement.set': request(z.object({ sessionId: SessionRef, placement: ContainerPlacement.nullable() }).strict(), ContainerPlacement.nullable(), 'Place a session in a container (or back on the host); takes effect at its next command.'),
  'containers.keep.set': request(
    z.object({ sessionId: SessionRef, keep: z.boolean() }).strict(),
    ContainerPlacement,
    "Keep a session's container running after Flightdeck quits (re-attached at the next start), or not; the container is not replaced.",
  ),
  'containers.stop': request(BySession, Ok, "Stop a session's container (its worktree stays)."),
  'containers.kill': request(BySession, Ok, "Kill a session's container."),
  'containers.remove': request(BySession, Ok, "Remove a session's container (its worktree stays)."),
  'containers.logs': request(BySession, z.object({ text: z.string() }), "The last lines of a session's container log."),
  'containers.inspect': request(BySession, z.object({ inspect: z.record(z.string(), z.unknown()) }), "A session's container as the engine describes it, secret-looking variables redacted."),
  'containers.stats': request(BySession, ContainerStats, "One sample of a session's container: CPU, memory, processes, per-GPU use when GPUs are assigned."),
  'containers.reap': request(z.object({ engine: EngineName.optional() }).strict(), z.array(ManagedContainer), 'Remove containers whose Flightdeck process is gone (kept ones are re-attached).'),
  'containers.terminal.open': request(z.object({ sessionId: SessionRef, cols: z.number().int().min(2).max(1000), rows: z.number().int().min(2).max(1000) }).strict(), TerminalInfo, "A shell in a session's container, in the terminal grid."),
  'containers.console.open': request(
    z.object({ sessionId: SessionRef, cols: z.number().int().min(2).max(1000), rows: z.number().int().min(2).max(1000) }).strict(),
    TerminalInfo,
    "The agent console of a session's container (its main process's TTY: the agent's commands and output as they run), read-only in the terminal grid.",
  ),
  'containers.images.list': request(z.object({ engine: EngineName.optional() }).strict(), z.array(ContainerImage), "An engine's local images."),
  'containers.images.build': request(
    z.object({ engine: EngineName.optional(), tag: z.string().min(1).max(300).optional(), pullBase: z.boolean().optional() }).strict(),
    z.object({ buildId: z.string() }),
    "Build the agent image on an engine; progress arrives as containers.images.progress. Without pullBase a base image the engine lacks is refused (reason base_image_missing); with it, the engine pulls it (the user asked).",
  ),
  'containers.images.cancel': request(z.object({ buildId: z.string().min(1).max(100) }).strict(), z.object({ cancelled: z.boolean() }), 'Cancel an image build.'),
  'containers.workspace.sync': request(BySession, WorkspaceSyncState, "Bring a remote session's commits back: fast-forward its branch when nothing local is lost, else report how they differ."),
  'containers.images.remove': request(z.object({ engine: EngineName.optional(), ref: z.string().min(1).max(500) }).strict(), Ok, 'Remove a local image.'),
} as const;

export const containerEvents = {
  'containers.workspace.syncState': event(z.object({ sessionId: z.string(), state: WorkspaceSyncState }), "A remote session's workspace was synced (or failed to)."),
  'containers.images.progress': event(
    z.object({ buildId: z.string(), engine: z.string(), tag: z.string(), progress: ImageBuildProgress, done: z.boolean(), error: z.object({ code: z.string(), message: z.string(), reason: z.string().optional() }).nullable() }),
    'An image build advanced, finished or failed.',
  ),
} as const;
