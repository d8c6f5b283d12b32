/**
 * The create options of an agent session's container, decided from the request alone (pure):
 * labels, user, security options, limits, network, mounts (the agent mailbox's directory map), GPUs.
 * Secrets never go here: whatever is in these options shows in `docker inspect`. Credentials
 * reach the agent process in the environment of an exec (see ../container-service).
 */
import { CONSOLE_COMMAND, CONSOLE_LOG_CONFIG } from './console';
import { AppError, type ContainerGpuRequest, type ContainerLimits as ContractLimits, type ContainerNetworkMode } from '../../../src-preload/contract';

/** The label prefix of everything Flightdeck creates; `managed` marks a container as ours. */
export const LABEL = {
  managed: 'dev.flightdeck.managed',
  instance: 'dev.flightdeck.instance',
  project: 'dev.flightdeck.project',
  feature: 'dev.flightdeck.feature',
  session: 'dev.flightdeck.session',
  ownerPid: 'dev.flightdeck.owner-pid',
  ownerId: 'dev.flightdeck.owner-id',
  keep: 'dev.flightdeck.keep',
  workspace: 'dev.flightdeck.workspace',
  taskTimeoutMs: 'dev.flightdeck.task-timeout-ms',
  /** A remote workspace's local side (worktree path and branch), so a re-attached container can still sync. */
  remoteWorktree: 'dev.flightdeck.remote-worktree',
  remoteBranch: 'dev.flightdeck.remote-branch',
} as const;

/** The agent mailbox's directory map: where the agent finds its folders inside the container. */
export const CONTAINER_PATHS = {
  workspace: '/app/volumes/workspace',
  commands: '/app/volumes/commands/pending',
  reports: '/app/volumes/reports/pending',
  sessions: '/app/volumes/sessions',
  logs: '/app/volumes/logs',
} as const;

/** The agent's HOME: under /tmp (always writable) because the run uid may have no home in the image. */
export const CONTAINER_HOME = '/tmp/flightdeck-home';

/** The agent mailbox's default: a task runs at most 10 minutes unless the settings say otherwise. */
export const DEFAULT_TASK_TIMEOUT_MS = 10 * 60 * 1000;

/** bridge (default), host, none: as the contract declares them. */
export type NetworkMode = ContainerNetworkMode;
export type GpuRequest = ContainerGpuRequest;
/** Memory in bytes, CPUs (fractions allowed), processes (a fork bomb stops here); null = no limit. */
export type ContainerLimits = ContractLimits;

/**
 * Defaults for an agent container: generous enough for a build or a test suite, bounded so a
 * runaway command cannot take the machine (8 GiB, 4 CPUs, 4096 processes).
 */
export const DEFAULT_LIMITS: ContainerLimits = { memoryBytes: 8 * 1024 ** 3, cpus: 4, pids: 4096 };

export interface MailboxMounts {
  commands: string;
  reports: string;
  sessions: string;
  logs: string;
}

export interface ContainerRequest {
  image: string;
  /** Identifies this Flightdeck (its data folder): reaping never touches another instance's containers. */
  instance: string;
  sessionId: string;
  projectId: string | null;
  featureId: string | null;
  owner: { pid: number; id: string };
  /** The host uid/gid files in the workspace should keep. */
  user: { uid: number; gid: number };
  /** Local engine: the worktree's host path, bind-mounted. Remote engine: a volume name. */
  workspace: { kind: 'bind'; hostPath: string } | { kind: 'volume'; name: string; worktree?: string; branch?: string };
  /** Bound read-only over the workspace (its git data, see ../workspace-git): the container never writes what the host's git reads. */
  readOnlyMounts?: ReadonlyArray<{ source: string; target: string }>;
  mailbox: MailboxMounts | null;
  limits: ContainerLimits;
  network: NetworkMode;
  gpus: GpuRequest;
  /** The engine runs on this machine (bind mounts, host gateway). */
  localEngine: boolean;
  /** Where HOST_GATEWAY_NAME points on a local bridge network: Docker's `host-gateway` (the default), an address (Podman), or null for none. */
  hostGateway?: string | null;
  keep: boolean;
  taskTimeoutMs: number;
}

export interface DeviceRequest {
  Driver: string;
  Count?: number;
  DeviceIDs?: string[];
  Capabilities: string[][];
  Options: Record<string, string>;
}

/** Docker's `--gpus` as the API's device request (the NVIDIA driver, the `gpu` capability). */
export function deviceRequests(g: GpuRequest): DeviceRequest[] {
  const base = { Driver: 'nvidia', Capabilities: [['gpu']], Options: {} };
  switch (g.kind) {
    case 'none':
      return [];
    case 'all':
      return [{ ...base, Count: -1 }];
    case 'count':
      return [{ ...base, Count: g.count }];
    case 'ids':
      return [{ ...base, DeviceIDs: [...g.ids] }];
  }
}

/** The CLI's and the dialog's spelling: `none`, `all`, a count (`2`), or device ids / UUIDs (`0,1`, `GPU-3f…`). */
export function parseGpus(text: string): GpuRequest {
  const t = text.trim();
  if (t === '' || t === 'none' || t === '0') return { kind: 'none' };
  if (t === 'all') return { kind: 'all' };
  if (/^device=/.test(t)) return parseIds(t.slice('device='.length), text);
  if (/^[1-9][0-9]{0,2}$/.test(t)) return { kind: 'count', count: Number(t) };
  return parseIds(t, text);
}

function parseIds(list: string, original: string): GpuRequest {
  const ids = list.split(',').map((s) => s.trim());
  if (ids.length === 0 || ids.some((id) => !/^(?:[0-9]+|GPU-[0-9a-fA-F-]+|MIG-[0-9a-zA-Z/-]+)$/.test(id))) {
    throw new AppError('invalid_input', `"${original}" is not a GPU request. Use none, all, a count (2), or device ids (0,1 or GPU-… UUIDs).`);
  }
  return { kind: 'ids', ids };
}

export function describeGpus(g: GpuRequest): string {
  return g.kind === 'none' ? 'none' : g.kind === 'all' ? 'all' : g.kind === 'count' ? String(g.count) : g.ids.join(',');
}

/** The engine's name for the host, from inside a container on a local engine (Docker 20.10+ `host-gateway`). */
export const HOST_GATEWAY_NAME = 'host.docker.internal';

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

/**
 * A model base URL as a process inside the container must use it: on a local engine with a
 * bridge network, a loopback host becomes the host gateway (the container's own loopback is
 * not the host's). Host networking shares the host's loopback; other URLs are unchanged.
 */
export function containerBaseUrl(url: string, network: NetworkMode, localEngine: boolean): string {
  if (!localEngine || network !== 'bridge') return url;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (!LOOPBACK.test(u.hostname)) return url;
  u.hostname = HOST_GATEWAY_NAME;
  return u.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
}

/** A container name Docker accepts and a person can read: `flightdeck-<session>`. */
export function containerName(sessionId: string): string {
  return `flightdeck-${sessionId.replace(/[^A-Za-z0-9_.-]/g, '-')}`.slice(0, 128);
}


export function createOptions(r: ContainerRequest): Record<string, unknown> {
  if (r.workspace.kind === 'bind' && !r.localEngine) throw new AppError('invalid_input', 'A remote engine cannot bind-mount a folder of this machine; its workspace is a volume.');
  const labels: Record<string, string> = {
    [LABEL.managed]: '1',
    [LABEL.instance]: r.instance,
    [LABEL.session]: r.sessionId,
    [LABEL.project]: r.projectId ?? '',
    [LABEL.feature]: r.featureId ?? '',
    [LABEL.ownerPid]: String(r.owner.pid),
    [LABEL.ownerId]: r.owner.id,
    [LABEL.keep]: r.keep ? '1' : '0',
    [LABEL.workspace]: r.workspace.kind === 'bind' ? r.workspace.hostPath : `volume:${r.workspace.name}`,
    [LABEL.taskTimeoutMs]: String(r.taskTimeoutMs),
    ...(r.workspace.kind === 'volume' && r.workspace.worktree && r.workspace.branch ? { [LABEL.remoteWorktree]: r.workspace.worktree, [LABEL.remoteBranch]: r.workspace.branch } : {}),
  };
  const mounts: Array<Record<string, unknown>> = [
    r.workspace.kind === 'bind'
      ? { Type: 'bind', Source: r.workspace.hostPath, Target: CONTAINER_PATHS.workspace }
      : { Type: 'volume', Source: r.workspace.name, Target: CONTAINER_PATHS.workspace },
  ];
  if (r.workspace.kind === 'bind') for (const m of r.readOnlyMounts ?? []) mounts.push({ Type: 'bind', Source: m.source, Target: m.target, ReadOnly: true });
  if (r.mailbox && r.localEngine) {
    for (const key of ['commands', 'reports', 'sessions', 'logs'] as const) mounts.push({ Type: 'bind', Source: r.mailbox[key], Target: CONTAINER_PATHS[key] });
  }
  const host: Record<string, unknown> = {
    Mounts: mounts,
    NetworkMode: r.network,
    // No capabilities, no setuid gains: the container is the agent's sandbox and its user needs none.
    CapDrop: ['ALL'],
    CapAdd: [],
    SecurityOpt: ['no-new-privileges'],
    Init: true,
    // The agent's files are the worktree; nothing in the container's own layer is worth keeping past removal.
    AutoRemove: false,
    RestartPolicy: { Name: 'no' },
    DeviceRequests: deviceRequests(r.gpus),
    LogConfig: CONSOLE_LOG_CONFIG,
  };
  if (r.limits.memoryBytes !== null) {
    host.Memory = r.limits.memoryBytes;
    // Equal to Memory: no swap on top, so the limit is what the agent really gets.
    host.MemorySwap = r.limits.memoryBytes;
  }
  if (r.limits.cpus !== null) host.NanoCpus = Math.round(r.limits.cpus * 1e9);
  if (r.limits.pids !== null) host.PidsLimit = r.limits.pids;
  const gateway = r.hostGateway === undefined ? 'host-gateway' : r.hostGateway;
  if (r.localEngine && r.network === 'bridge' && gateway !== null) host.ExtraHosts = [`${HOST_GATEWAY_NAME}:${gateway}`];
  return {
    name: containerName(r.sessionId),
    Image: r.image,
    // The agent console (./console): the agent's commands arrive as execs, and what they do is written to this process's TTY.
    Cmd: CONSOLE_COMMAND,
    User: `${r.user.uid}:${r.user.gid}`,
    WorkingDir: CONTAINER_PATHS.workspace,
    // Only non-secret settings; credentials go to each exec.
    Env: [`HOME=${CONTAINER_HOME}`, 'PAGER=cat', 'GIT_PAGER=cat', 'GIT_TERMINAL_PROMPT=0'],
    Labels: labels,
    Tty: true,
    OpenStdin: true,
    StdinOnce: false,
    HostConfig: host,
  };
}

const SECRET_ENV = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;

/**
 * `docker inspect` output safe to show: environment values whose names look secret are
 * replaced (an image or a user may have put one there; Flightdeck never does).
 */
export function redactInspect<T>(inspect: T): T {
  const copy = JSON.parse(JSON.stringify(inspect)) as { Config?: { Env?: string[] } };
  if (copy.Config?.Env) {
    copy.Config.Env = copy.Config.Env.map((kv) => {
      const i = kv.indexOf('=');
      const name = i < 0 ? kv : kv.slice(0, i);
      return SECRET_ENV.test(name) ? `${name}=[redacted]` : kv;
    });
  }
  return copy as T;
}
