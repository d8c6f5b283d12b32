/**
 * Agent sessions' containers: one per session, created from ./core/container-spec on one of
 * the engines (./engines), commands run in it as execs (each its own process group inside, so
 * a timeout or a cancel ends the whole command), lifecycle, logs, redacted inspect, stats, and
 * reaping of containers whose Flightdeck process is gone. Changes to one session's container
 * are serialized by a per-session lock.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PassThrough } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type Docker from 'dockerode';
import { AppError, type ContainerPlacement, type TerminalInfo } from '../../src-preload/contract';
import { childEnv } from '../platform/child-process';
import { appRoot } from '../platform/paths';
import type { Logger } from '../platform/logger';
import { writeFileAtomic } from '../platform/atomic-file';
import { readFileNoWait } from '../platform/read-no-wait';
import { KeyedLock } from '../platform/keyed-lock';
import { ownerAlive, selfIdentity } from '../platform/process-identity';
import { engineError } from './core/engine-errors';
import { ENGINE_NAME_RE, isLocalEngine, parseEngineHost, type EngineSpec } from './core/engine-spec';
import type { ClaudeBridgeInput } from './core/claude-in-container';
import {
  CONTAINER_HOME,
  CONTAINER_PATHS,
  createOptions,
  DEFAULT_LIMITS,
  DEFAULT_TASK_TIMEOUT_MS,
  LABEL,
  redactInspect,
  type ContainerLimits,
  type GpuRequest,
  type MailboxMounts,
  type NetworkMode,
} from './core/container-spec';
import { NVIDIA_SMI_ARGS, parseNvidiaSmi, parseStats, type ContainerStats, type GpuStat } from './core/stats';
import { discoverEngines, Engine, withDeadline, type EngineInfo } from './engines';
import { emptyProgress, type BuildProgress } from './core/build-progress';
import { AGENT_IMAGE, buildImage } from './images';
import { commandFooter, commandHeader, hasConsole } from './core/console';
import { ConsoleOff, consoleLive, containerConsole, type ConsoleWriter } from './console-writer';
import { plainText } from '../terminals/agent-command-runner';
import { workspaceVolumeName, type WorkspaceSyncState } from './core/workspace-sync';
import { workspaceGitMounts } from './workspace-git';
import { currentBranch, seedRemoteWorkspace, syncRemoteWorkspace, unsyncedWork, type ContainerExec, type RemoteWorkspace } from './remote-workspace';

/** `docker stop`'s grace before SIGKILL: an agent's process has time to flush, a hung one does not hold quitting. */
const STOP_GRACE_S = 5;
/** Between a command's SIGTERM and SIGKILL (the host runner's grace, for the same reasons). */
const EXEC_KILL_GRACE_S = 2;
/** Owner leases of re-attached containers, in the data folder (see leasedElsewhere). */
const LEASES_DIR = 'container-owners';
/** Logs returned by `logs()`: the tail a person reads, not the whole history. */
const LOG_TAIL_LINES = 2000;
/** `details.reason` of an exec refused because the session's container was removed outside Flightdeck. */
const CONTAINER_GONE = 'container_gone';
/** An exec refused because the container is stopped (the user's Stop, the engine restarted). */
const CONTAINER_STOPPED = 'container_stopped';

export interface PlaceRequest {
  sessionId: string;
  projectId?: string | null;
  featureId?: string | null;
  /** The session's worktree on this machine (bind-mounted on a local engine). */
  worktree: string;
  engine?: string;
  image: string;
  mailbox?: MailboxMounts | null;
  limits?: Partial<ContainerLimits>;
  network?: NetworkMode;
  gpus?: GpuRequest;
  keep?: boolean;
  taskTimeoutMs?: number;
}

/** A session's container as the agent engine and the UI see it. */
export interface SessionContainer {
  sessionId: string;
  engine: string;
  id: string;
  name: string;
  image: string;
  local: boolean;
  /** The host folder mounted at the workspace path (local engines), or null. */
  worktree: string | null;
  /** Remote engines: the worktree and branch the workspace volume was seeded from, where its commits come back (null: bind-mounted, or re-attached). */
  remote: { worktree: string; branch: string; user: { uid: number; gid: number } } | null;
  taskTimeoutMs: number;
  gpus: GpuRequest;
  network: NetworkMode;
  /** The container has the agent console (./core/console); one made by an older Flightdeck has not. */
  console: boolean;
}

export interface ExecOptions {
  cmd: string[];
  /** Given to this exec only: never part of the container's configuration (`docker inspect`). */
  env?: Record<string, string>;
  workdir?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  onStdout?: (text: string) => void;
  onStderr?: (text: string) => void;
  /** The agent's own command: shown in the agent console with its output and how it ended. */
  console?: { command: string };
}

export interface ExecResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
}

export interface ManagedContainer {
  id: string;
  name: string;
  engine: string;
  image: string;
  state: string;
  status: string;
  sessionId: string;
  projectId: string | null;
  featureId: string | null;
  instance: string;
  ownerPid: number | null;
  /** No live Flightdeck process has it (its owner died, nobody took it over): an orphan. */
  ownerGone: boolean;
  keep: boolean;
  createdAt: number;
  /** Remote workspaces: how the container's branch compares with the session's (null: bind-mounted, or not synced yet). */
  workspaceSync: WorkspaceSyncState | null;
}

/** A session's choice to run in a container: what `place` needs besides the session's own worktree. */
export type Placement = ContainerPlacement;

/** Where placements persist (the app: an internal setting), so a restart never moves a session back to the host. */
export interface PlacementStore {
  load(): Record<string, Placement>;
  save(all: Record<string, Placement>): void;
}

/** The stored placements (Keep after quit included) in the app's settings: the app and the CLI read the same row. */
export function settingsPlacementStore(settings: { getInternal<T>(key: string): T | undefined; setInternal(key: string, value: unknown): void }): PlacementStore {
  return { load: () => settings.getInternal<Record<string, Placement>>('containers.placements') ?? {}, save: (all) => settings.setInternal('containers.placements', all) };
}

/** File name of the user's engines in the data folder: the app and the CLI (which needs no database) share it. */
const ENGINES_FILE = 'container-engines.json';

/** The user's engines as a JSON file in the data folder (written atomically, 0600: an ssh user name or a cert path is private). */
export function fileEngineStore(dataDir: string): EngineStore {
  const file = join(dataDir, ENGINES_FILE);
  return {
    load() {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        // No file yet: the user added no engine.
        return [];
      }
      try {
        const v: unknown = JSON.parse(text);
        return Array.isArray(v) ? (v as EngineSpec[]).filter((e) => typeof e?.name === 'string' && typeof e?.host === 'string').map((e) => ({ ...e, source: 'user' as const, tls: e.tls ?? null })) : [];
      } catch {
        throw new AppError('invalid_input', `${file} is not valid JSON; fix or remove it to see the engines you added.`);
      }
    },
    save(all) {
      mkdirSync(dataDir, { recursive: true });
      writeFileAtomic(file, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
    },
  };
}

export function memoryPlacements(): PlacementStore {
  let all: Record<string, Placement> = {};
  return { load: () => all, save: (next) => (all = next) };
}

/** Where the engines the user added persist (the app: an internal setting). */
export interface EngineStore {
  load(): EngineSpec[];
  save(all: EngineSpec[]): void;
}

/** What opening a container shell needs of the terminal service (a pty running the exec bridge). */
export interface TerminalSpawner {
  spawn(o: { file: string; args: string[]; cwd: string; kind: 'shell'; title: string; env: Record<string, string>; baseEnv: Record<string, string>; owner: { sessionId: string; projectId?: string }; cols?: number; rows?: number }): Promise<TerminalInfo>;
}

/**
 * A bridge program's entry (exec-bridge: container shells; claude-bridge: Claude Code in a
 * container): the TypeScript source through tsx when running from source, else the bundled file.
 */
function bridgeEntry(folder: 'exec-bridge' | 'claude-bridge', bundled: string): { script: string; execArgv: string[]; env: Record<string, string> } {
  const here = dirname(fileURLToPath(import.meta.url));
  const source = join(here, folder, 'main.ts');
  if (existsSync(source)) return { script: source, execArgv: ['--import', pathToFileURL(join(appRoot(), 'node_modules', 'tsx', 'dist', 'loader.mjs')).href], env: {} };
  return { script: join(here, bundled), execArgv: [], env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {} };
}

/** `s` quoted for sh. */
function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export interface ContainerServiceOptions {
  /** Container shells open in the terminal grid through this (the app's terminal service). */
  terminals?: TerminalSpawner;
  /** Engines the user added (Settings → Engines, `containers engine-add`); default: a file in the data folder. */
  engineStore?: EngineStore;
  /** Session placements (default: in memory). */
  placements?: PlacementStore;
  /** A session's worktree and project, for placing it. */
  sessionInfo?: (sessionId: string) => { root: string; projectId: string | null } | null;
  dataDir: string;
  logger: Logger;
  /** Engines the user added; the machine's own are discovered. */
  userEngines?: () => readonly EngineSpec[];
  env?: NodeJS.ProcessEnv;
  /** Override the engine list entirely (tests: one engine). */
  engines?: () => readonly EngineSpec[];
  ownerPid?: number;
  ownerId?: string;
  /** Hears every new sync state of a remote workspace (the app: an event to the UI). */
  onSyncState?: (sessionId: string, state: WorkspaceSyncState) => void;
}

/** The app instance a data folder is: containers of another Flightdeck on the same engine are never touched. */
export function instanceId(dataDir: string): string {
  return createHash('sha256').update(dataDir).digest('hex').slice(0, 12);
}

export class ContainerService {
  readonly instance: string;
  private readonly placed = new Map<string, SessionContainer>();
  private readonly engineCache = new Map<string, Engine>();
  private readonly lock = new KeyedLock();
  private readonly ownerPid: number;
  private readonly ownerId: string;
  private placementStore: PlacementStore | undefined;
  private readonly engineStore: EngineStore;
  private readonly builds = new Map<string, AbortController>();
  private readonly syncStates = new Map<string, WorkspaceSyncState>();
  /** Whether a listed container (another process's) has GPUs, by container id: see statsOf. */
  private readonly listedHasGpus = new Map<string, boolean>();
  /** Writers into the agent consoles, by container id. */
  private readonly consoles = new Map<string, ConsoleWriter>();

  constructor(private readonly o: ContainerServiceOptions) {
    this.instance = instanceId(o.dataDir);
    this.ownerPid = o.ownerPid ?? process.pid;
    this.ownerId = o.ownerId ?? selfIdentity();
    this.engineStore = o.engineStore ?? fileEngineStore(o.dataDir);
  }

  // ---- engines --------------------------------------------------------------------------

  engineSpecs(): EngineSpec[] {
    if (this.o.engines) return [...this.o.engines()];
    return discoverEngines({ ...(this.o.env ? { env: this.o.env } : {}), user: [...(this.o.userEngines?.() ?? []), ...(this.engineStore.load())] });
  }

  /** Adds an engine the user reaches by tcp (with TLS certificates) or ssh; the name must be new. */
  addEngine(input: { name: string; host: string; tls?: EngineSpec['tls'] }): EngineSpec {
    if (!ENGINE_NAME_RE.test(input.name)) throw new AppError('invalid_input', `"${input.name}" is not an engine name: letters, digits, ".", "_" and "-", up to 64 characters.`);
    parseEngineHost(input.host, input.tls != null);
    if (this.engineSpecs().some((s) => s.name === input.name)) throw new AppError('conflict', `There is already an engine named "${input.name}".`);
    const spec: EngineSpec = { name: input.name, source: 'user', host: input.host.trim(), tls: input.tls ?? null };
    this.engineStore.save([...this.engineStore.load(), spec]);
    return spec;
  }

  /** Removes an engine the user added (found ones come back by themselves). */
  removeEngine(name: string): boolean {
    const all = this.engineStore.load();
    const next = all.filter((s) => s.name !== name);
    this.engineStore.save(next);
    return next.length !== all.length;
  }

  /** The named engine, or the first one (the Docker CLI's current). */
  engine(name?: string): Engine {
    const specs = this.engineSpecs();
    const spec = name ? specs.find((s) => s.name === name) : specs[0];
    if (!spec) {
      throw name
        ? new AppError('not_found', `There is no Docker engine named "${name}". Known: ${specs.map((s) => s.name).join(', ') || 'none'}.`)
        : new AppError('unavailable', 'No Docker engine found: install Docker (or Podman) and start it, set DOCKER_HOST, or add an engine in Settings → Engines.', { reason: 'engine_down' });
    }
    const key = JSON.stringify(spec);
    let e = this.engineCache.get(key);
    if (!e) {
      e = new Engine(spec);
      this.engineCache.set(key, e);
    }
    return e;
  }

  /** Every engine with its information or the reason it cannot be reached (never throws for one engine). */
  async engineInfos(): Promise<Array<{ spec: EngineSpec; info: EngineInfo | null; error: { code: string; message: string } | null }>> {
    return Promise.all(
      this.engineSpecs().map(async (spec) => {
        try {
          return { spec, info: await this.engine(spec.name).info(), error: null };
        } catch (e) {
          const err = engineError(e, spec.name);
          return { spec, info: null, error: { code: err.code, message: err.message } };
        }
      }),
    );
  }

  // ---- placements -------------------------------------------------------------------------

  private get store(): PlacementStore {
    this.placementStore ??= this.o.placements ?? memoryPlacements();
    return this.placementStore;
  }

  /** The session's container placement, or null when it runs on the host. */
  placement(sessionId: string): Placement | null {
    return this.store.load()[sessionId] ?? null;
  }

  /**
   * Places a session in a container (null: back on the host). Takes effect at its next command;
   * an existing container with other settings is replaced then.
   */
  async setPlacement(sessionId: string, p: Placement | null): Promise<void> {
    const all = { ...this.store.load() };
    if (p) all[sessionId] = p;
    else delete all[sessionId];
    this.store.save(all);
    if (this.placed.has(sessionId)) await this.remove(sessionId);
  }

  /**
   * Whether the session's container outlives quitting (re-attached at the next start): the
   * placement's choice when it makes one (the user may change it while the container runs),
   * else what the container was created with.
   */
  private keeps(stored: Placement | undefined, labels: Record<string, string>): boolean {
    return stored?.keep ?? labels[LABEL.keep] === '1';
  }

  /** Keep the session's container running after quitting (or not); takes effect at the next quit, the container is not replaced. */
  setKeep(sessionId: string, keep: boolean): Placement {
    const p = this.placement(sessionId);
    if (!p) throw new AppError('not_found', `Session ${sessionId} is not placed in a container.`);
    const next = { ...p, keep };
    this.store.save({ ...this.store.load(), [sessionId]: next });
    return next;
  }

  /** The session's running container, started from its placement when there is none. */
  async ensure(sessionId: string): Promise<SessionContainer> {
    const live = this.placed.get(sessionId);
    if (live) return live;
    const p = this.placement(sessionId);
    if (!p) throw new AppError('not_found', `Session ${sessionId} is not placed in a container.`);
    const s = this.o.sessionInfo?.(sessionId);
    if (!s) throw new AppError('not_found', `There is no session ${sessionId}.`);
    return this.place({ ...p, sessionId, worktree: s.root, projectId: s.projectId });
  }

  // ---- session containers ---------------------------------------------------------------

  forSession(sessionId: string): SessionContainer | null {
    return this.placed.get(sessionId) ?? null;
  }

  /** Creates and starts the session's container (or returns the running one). */
  place(req: PlaceRequest): Promise<SessionContainer> {
    return this.lock.run(req.sessionId, async () => {
      const existing = this.placed.get(req.sessionId);
      if (existing) return existing;
      const engine = this.engine(req.engine);
      const info = await engine.info();
      await this.requireImage(engine, req.image);
      let st;
      try {
        st = statSync(req.worktree);
      } catch {
        throw new AppError('path_not_found', `The session's worktree ${req.worktree} does not exist.`);
      }
      // The worktree's owner: files the agent writes keep it (and a root-owned worktree stays root's).
      const user = process.getuid && process.getuid() !== 0 ? { uid: process.getuid(), gid: process.getgid!() } : { uid: st.uid, gid: st.gid };
      const limits = { ...DEFAULT_LIMITS, ...req.limits };
      // The engine refuses a CPU limit above its CPU count: the default means "up to 4", not "exactly 4".
      if (limits.cpus !== null && info.cpus > 0 && limits.cpus > info.cpus) limits.cpus = info.cpus;
      const network = req.network ?? 'bridge';
      const gpus = req.gpus ?? { kind: 'none' };
      const taskTimeoutMs = req.taskTimeoutMs ?? DEFAULT_TASK_TIMEOUT_MS;
      // Nothing of this machine can be mounted on a remote engine: the workspace is a volume seeded from the branch.
      const branch = engine.local ? null : await currentBranch(req.worktree);
      const volume = workspaceVolumeName(this.instance, req.sessionId);
      if (branch !== null) {
        await engine.call('the workspace volume', (d) => d.createVolume({ Name: volume, Labels: { [LABEL.managed]: '1', [LABEL.instance]: this.instance, [LABEL.session]: req.sessionId } }));
      }
      const opts = createOptions({
        image: req.image,
        instance: this.instance,
        sessionId: req.sessionId,
        projectId: req.projectId ?? null,
        featureId: req.featureId ?? null,
        owner: { pid: this.ownerPid, id: this.ownerId },
        user,
        workspace: branch === null ? { kind: 'bind', hostPath: req.worktree } : { kind: 'volume', name: volume, worktree: req.worktree, branch },
        // The workspace's git data read-only: the container never changes what the host's git runs or where it looks.
        readOnlyMounts: branch === null ? await workspaceGitMounts(req.worktree, CONTAINER_PATHS.workspace) : [],
        mailbox: req.mailbox ?? null,
        limits,
        network,
        gpus,
        localEngine: engine.local,
        hostGateway: engine.local && network === 'bridge' ? await engine.hostGateway(info) : null,
        keep: req.keep ?? false,
        taskTimeoutMs,
      });
      // A container left by an earlier run of this session (same name) is replaced.
      await this.removeByName(engine, String(opts.name));
      const c = await engine.call('the container creation', (d) => d.createContainer(opts as Docker.ContainerCreateOptions));
      try {
        await engine.call('the container start', () => c.start());
      } catch (e) {
        // The container never ran (no NVIDIA runtime, a bad mount): nothing in it to keep.
        await engine.call('the container removal', () => c.remove({ force: true })).catch(() => undefined);
        throw e;
      }
      const remote = branch === null ? null : { worktree: req.worktree, branch, user };
      if (remote) {
        try {
          await seedRemoteWorkspace(this.remoteWorkspace(req.sessionId, engine, c, remote));
        } catch (e) {
          // A container without its workspace is of no use to the session; the volume stays (it may hold an earlier placement's commits).
          await engine.call('the container removal', () => c.remove({ force: true })).catch(() => undefined);
          throw e;
        }
      }
      const placed: SessionContainer = { sessionId: req.sessionId, engine: engine.spec.name, id: c.id, name: String(opts.name), image: req.image, local: engine.local, worktree: remote ? null : req.worktree, remote, taskTimeoutMs, gpus, network, console: true };
      this.placed.set(req.sessionId, placed);
      this.o.logger.info('container started', { sessionId: req.sessionId, engine: engine.spec.name, container: c.id.slice(0, 12) });
      return placed;
    });
  }

  private unsyncedWork(sessionId: string, remote: NonNullable<SessionContainer['remote']>): Promise<string | null> {
    const { engine, c } = this.container(sessionId);
    return unsyncedWork(this.remoteWorkspace(sessionId, engine, c, remote));
  }

  private remoteWorkspace(sessionId: string, engine: Engine, c: Docker.Container, r: NonNullable<SessionContainer['remote']>): RemoteWorkspace {
    const exec: ContainerExec = async (cmd, timeoutMs) => {
      let stdout = '';
      let stderr = '';
      const res = await this.execIn(engine, c, { cmd, workdir: CONTAINER_PATHS.workspace, timeoutMs, onStdout: (t) => (stdout += t), onStderr: (t) => (stderr += t) });
      return { exitCode: res.exitCode, stdout, stderr };
    };
    return { sessionId, worktree: r.worktree, branch: r.branch, engine, container: c, user: r.user, exec };
  }

  /** The last sync state of a session's remote workspace (null: bind-mounted, or never synced). */
  workspaceSyncState(sessionId: string): WorkspaceSyncState | null {
    return this.syncStates.get(sessionId) ?? null;
  }

  /**
   * Brings a remote session's commits back to its branch (fast-forward only when nothing local
   * is lost) and records the state. A bind-mounted session is always in sync (its worktree is
   * the container's). Syncs of one session run one at a time.
   */
  async syncWorkspace(sessionId: string): Promise<WorkspaceSyncState> {
    const { engine, c, placed } = this.container(sessionId);
    if (!placed.remote) {
      if (placed.worktree) return { state: 'in_sync', message: null, branch: null, localHead: null, remoteHead: null, at: Date.now() };
      throw new AppError('unavailable', `Session ${sessionId}'s container was re-attached after a restart: place the session again to sync its workspace.`, { reason: 'remote_workspace' });
    }
    const remote = placed.remote;
    return this.lock.run(`sync:${sessionId}`, async () => {
      const state = await syncRemoteWorkspace(this.remoteWorkspace(sessionId, engine, c, remote));
      this.syncStates.set(sessionId, state);
      this.o.onSyncState?.(sessionId, state);
      if (state.state === 'error') this.o.logger.warn('remote workspace sync failed', { sessionId, error: state.message });
      return state;
    });
  }

  /**
   * Makes room for a session's container name: one this instance left (a crash, an earlier
   * placement, a container this process is replacing) is removed. One that is not this data
   * folder's, or whose Flightdeck process is still running (the app and a CLI run share a data
   * folder), is refused instead: removing it would pull the container from under that process.
   */
  private async removeByName(engine: Engine, name: string): Promise<void> {
    const found = await engine.call('the container list', (d) => d.listContainers({ all: true, filters: { name: [`^/${name}$`] } }));
    for (const f of found) {
      const labels = f.Labels ?? {};
      if (labels[LABEL.managed] !== '1' || labels[LABEL.instance] !== this.instance) {
        throw new AppError('conflict', `A container named ${name} on ${engine.label} is not this Flightdeck data folder's; it was left alone. Remove or rename it (docker rm -f ${name}) to place the session.`, { reason: 'name_taken', container: f.Id.slice(0, 12) });
      }
      const pid = Number(labels[LABEL.ownerPid]);
      const ours = pid === this.ownerPid && (labels[LABEL.ownerId] ?? null) === this.ownerId;
      if ((!ours && Number.isInteger(pid) && ownerAlive(pid, labels[LABEL.ownerId] ?? null)) || this.leasedElsewhere(f.Id)) {
        throw new AppError('conflict', `${name} is in use by another Flightdeck process of this data folder (pid ${pid}, a CLI run or another window); it was left alone. Let that run end or stop it, then try again.`, { reason: 'in_use', container: f.Id.slice(0, 12), ownerPid: pid });
      }
      await engine.call('the container removal', (d) => d.getContainer(f.Id).remove({ force: true }));
      this.closeConsole(f.Id);
      this.clearLease(f.Id);
    }
  }

  private async requireImage(engine: Engine, image: string): Promise<void> {
    try {
      await engine.call('the image lookup', (d) => d.getImage(image).inspect());
    } catch (e) {
      if (e instanceof AppError && e.code === 'not_found') {
        throw new AppError('not_found', `The image ${image} is not on ${engine.label}. Build the agent image (Settings → Images, or \`containers image-build\`) or choose another local image; Flightdeck never pulls images silently.`, { reason: 'image_missing', image, engine: engine.spec.name });
      }
      throw e;
    }
  }

  private container(sessionId: string): { engine: Engine; c: Docker.Container; placed: SessionContainer } {
    const placed = this.placed.get(sessionId);
    if (!placed) throw new AppError('not_found', `Session ${sessionId} has no container.`);
    const engine = this.engine(placed.engine);
    return { engine, c: engine.docker.getContainer(placed.id), placed };
  }

  /**
   * Runs `cmd` in the session's container. The command is started through a tiny `sh` prelude
   * that records its pid (an exec is its own session and process group in the container), so a
   * timeout or a cancel can signal the whole group from a second exec, on any engine.
   */
  async exec(sessionId: string, o: ExecOptions): Promise<ExecResult> {
    const gone = this.container(sessionId).placed;
    try {
      return await this.execMirrored(sessionId, o);
    } catch (e) {
      if (e instanceof AppError && e.details?.reason === CONTAINER_STOPPED) {
        // Stopped (the Stop button, the engine restarted): the session's next command starts it
        // again, as it started it the first time. The command never began, so it runs now.
        this.o.logger.info('the session\'s container was stopped; starting it again for its next command', { sessionId, container: gone.id.slice(0, 12) });
        const { engine, c } = this.container(sessionId);
        await this.start(engine, c);
        return this.execMirrored(sessionId, o);
      }
      if (!(e instanceof AppError && e.details?.reason === CONTAINER_GONE)) throw e;
      // Removed outside Flightdeck (`docker rm -f`): the command never started, so it runs in a
      // new container from the session's placement (the worktree is mounted again; a remote
      // workspace's volume outlives its container). Without this every later command failed.
      this.o.logger.warn('the session\'s container was removed outside Flightdeck; placing a new one', { sessionId, container: gone.id.slice(0, 12) });
      this.forget(sessionId, gone.id);
      try {
        await this.ensure(sessionId);
      } catch (again) {
        throw new AppError('unavailable', `${gone.name} was removed outside Flightdeck and a new container could not start: ${again instanceof Error ? again.message : String(again)}`, { reason: CONTAINER_GONE });
      }
      return this.execMirrored(sessionId, o);
    }
  }

  /** Drops what this process holds of a container that no longer exists (if it is still the session's). */
  private forget(sessionId: string, containerId: string): void {
    this.closeConsole(containerId);
    this.clearLease(containerId);
    if (this.placed.get(sessionId)?.id === containerId) this.placed.delete(sessionId);
  }

  private async execMirrored(sessionId: string, o: ExecOptions): Promise<ExecResult> {
    const { engine, c, placed } = this.container(sessionId);
    const con = o.console && placed.console ? this.consoleOf(placed, engine) : null;
    if (!con || !o.console) return this.execIn(engine, c, o);
    const rel = o.workdir?.startsWith(`${CONTAINER_PATHS.workspace}/`) ? o.workdir.slice(CONTAINER_PATHS.workspace.length + 1) : undefined;
    con.write(commandHeader(o.console.command, rel));
    try {
      const r = await this.execIn(engine, c, { ...o, onStdout: (t) => (con.write(t), o.onStdout?.(t)), onStderr: (t) => (con.write(t), o.onStderr?.(t)) });
      con.write(commandFooter(r, o.timeoutMs));
      return r;
    } catch (e) {
      con.write(`\x1b[31m[not run: ${e instanceof Error ? e.message : String(e)}]\x1b[0m\n`);
      throw e;
    }
  }

  /** The writer into a container's agent console, opened on first use. */
  private consoleOf(placed: SessionContainer, engine: Engine): ConsoleWriter {
    let w = this.consoles.get(placed.id);
    if (!w) {
      w = containerConsole(engine.docker.getContainer(placed.id), (e) =>
        e instanceof ConsoleOff ? this.o.logger.info('no agent console in this container', { sessionId: placed.sessionId, reason: e.message }) : this.o.logger.warn('the agent console could not be written', { sessionId: placed.sessionId, error: e }),
      );
      this.consoles.set(placed.id, w);
    }
    return w;
  }

  private closeConsole(containerId: string): void {
    this.consoles.get(containerId)?.close();
    this.consoles.delete(containerId);
  }

  private async execIn(engine: Engine, c: Docker.Container, o: ExecOptions): Promise<ExecResult> {
    const pidFile = `/tmp/.flightdeck-exec-${randomBytes(8).toString('hex')}`;
    const prelude = 'echo $$ > "$1"; shift; mkdir -p "$HOME" 2>/dev/null; exec "$@"';
    const env = Object.entries(o.env ?? {}).map(([k, v]) => `${k}=${v}`);
    const ex = await engine
      .call('the exec creation', () =>
        c.exec({ Cmd: ['sh', '-c', prelude, 'flightdeck-exec', pidFile, ...o.cmd], AttachStdout: true, AttachStderr: true, AttachStdin: false, Tty: false, Env: env, ...(o.workdir ? { WorkingDir: o.workdir } : {}) }),
      )
      .catch((e: unknown) => {
        // 404 on creating an exec: the container itself is gone (nothing was started).
        if (e instanceof AppError && e.code === 'not_found') throw new AppError('not_found', `The container ${c.id.slice(0, 12)} no longer exists: ${e.message}`, { ...e.details, reason: CONTAINER_GONE });
        // 409 "is not running": stopped (nothing was started either).
        if (e instanceof AppError && e.code === 'conflict' && /is not running/i.test(e.message)) throw new AppError('conflict', e.message, { ...e.details, reason: CONTAINER_STOPPED });
        throw e;
      });
    const stream = await engine.call('the exec start', () => ex.start({ hijack: true, stdin: false }));
    const out = new PassThrough();
    const err = new PassThrough();
    const decoders = [new StringDecoder('utf8'), new StringDecoder('utf8')];
    out.on('data', (b: Buffer) => o.onStdout?.(decoders[0]!.write(b)));
    err.on('data', (b: Buffer) => o.onStderr?.(decoders[1]!.write(b)));
    engine.docker.modem.demuxStream(stream, out, err);
    let timedOut = false;
    let stopping: Promise<void> | null = null;
    // Once the command is being stopped, its stream gets the kill's grace and one engine deadline
    // to end: an engine whose connection dropped silently (ssh, tcp) must not hold the caller forever.
    let giveUp: NodeJS.Timeout | undefined;
    let armGiveUp: (() => void) | null = null;
    const stop = () => {
      stopping ??= this.killExec(engine, c, pidFile).catch((e: unknown) => this.o.logger.warn('could not signal a command in its container', { error: e }));
      armGiveUp?.();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, o.timeoutMs);
    const onAbort = () => stop();
    o.signal?.addEventListener('abort', onAbort, { once: true });
    if (o.signal?.aborted) stop();
    try {
      await new Promise<void>((resolve, reject) => {
        stream.on('end', resolve);
        stream.on('close', resolve);
        stream.on('error', reject);
        armGiveUp = () => {
          giveUp ??= setTimeout(() => {
            this.o.logger.warn('a stopped command\'s stream did not end; leaving it', { container: c.id.slice(0, 12) });
            (stream as { destroy?: () => void }).destroy?.();
            resolve();
          }, EXEC_KILL_GRACE_S * 1000 + engine.deadlineMs);
        };
        if (stopping) armGiveUp();
      });
    } finally {
      clearTimeout(timer);
      clearTimeout(giveUp);
      o.signal?.removeEventListener('abort', onAbort);
    }
    const rest = [decoders[0]!.end(), decoders[1]!.end()];
    if (rest[0]) o.onStdout?.(rest[0]);
    if (rest[1]) o.onStderr?.(rest[1]);
    await stopping;
    const inspected = await engine.call('the exec result', () => ex.inspect());
    // The pid file is the prelude's; a failure to remove it leaves a few bytes in the container's /tmp.
    void engine.call('the exec cleanup', () => c.exec({ Cmd: ['rm', '-f', pidFile] }).then((x) => x.start({ hijack: true, stdin: false })).then((s) => s.resume())).catch(() => undefined);
    const killed = timedOut || o.signal?.aborted === true;
    const code = inspected.ExitCode;
    return { exitCode: killed ? null : code, signal: killed ? (code === 137 ? 'SIGKILL' : 'SIGTERM') : null, timedOut };
  }

  private async killExec(engine: Engine, c: Docker.Container, pidFile: string): Promise<void> {
    const script = `p=$(cat "$1" 2>/dev/null) || exit 0; kill -TERM -"$p" 2>/dev/null; i=0; while kill -0 "$p" 2>/dev/null && [ $i -lt ${EXEC_KILL_GRACE_S * 10} ]; do sleep 0.1; i=$((i+1)); done; kill -KILL -"$p" 2>/dev/null; exit 0`;
    const ex = await engine.call('the command stop', () => c.exec({ Cmd: ['sh', '-c', script, 'flightdeck-kill', pidFile], AttachStdout: true, AttachStderr: true }));
    const s = await engine.call('the command stop', () => ex.start({ hijack: true, stdin: false }));
    const ended = new Promise<void>((resolve) => {
      s.on('end', resolve);
      s.on('close', resolve);
      s.on('error', () => resolve());
      s.resume();
    });
    // The script ends within its grace; a connection that dropped silently would never say so.
    await withDeadline(ended, EXEC_KILL_GRACE_S * 1000 + engine.deadlineMs, () => new Error('the command stop got no answer')).catch((e: unknown) => {
      (s as { destroy?: () => void }).destroy?.();
      throw e;
    });
  }

  // ---- lifecycle --------------------------------------------------------------------------

  /**
   * This data folder's containers on every engine (or the one named). An engine that does not
   * answer is skipped so the others still list; pass `unreachable` to learn which were, so a
   * caller never reports "no containers" for an engine it could not ask.
   */
  async list(engineName?: string, o: { localOnly?: boolean; unreachable?: Array<{ engine: string; message: string }> } = {}): Promise<ManagedContainer[]> {
    const specs = engineName ? [this.engine(engineName).spec] : this.engineSpecs().filter((s) => !o.localOnly || isLocalEngine(s));
    const out: ManagedContainer[] = [];
    // Read once for every row (the app's store is a settings row).
    const placements = this.store.load();
    for (const spec of specs) {
      let rows: Docker.ContainerInfo[];
      try {
        rows = await this.engine(spec.name).call('the container list', (d) => d.listContainers({ all: true, filters: { label: [`${LABEL.managed}=1`, `${LABEL.instance}=${this.instance}`] } }));
      } catch (e) {
        if (engineName) throw e;
        // Listing across engines: one engine being down must not hide the others' containers.
        o.unreachable?.push({ engine: spec.name, message: e instanceof Error ? e.message : String(e) });
        continue;
      }
      for (const r of rows) {
        const l = r.Labels ?? {};
        const pid = Number(l[LABEL.ownerPid]);
        out.push({
          id: r.Id,
          name: (r.Names[0] ?? '').replace(/^\//, ''),
          engine: spec.name,
          image: r.Image,
          state: r.State,
          status: r.Status,
          sessionId: l[LABEL.session] ?? '',
          projectId: l[LABEL.project] || null,
          featureId: l[LABEL.feature] || null,
          instance: l[LABEL.instance] ?? '',
          ownerPid: Number.isFinite(pid) ? pid : null,
          ownerGone: this.ownerGone(r.Id, l),
          keep: this.keeps(placements[l[LABEL.session] ?? ''], l),
          createdAt: r.Created * 1000,
          workspaceSync: this.syncStates.get(l[LABEL.session] ?? '') ?? null,
        });
      }
    }
    return out;
  }

  /** Whether no live Flightdeck process (this one, its labelled owner, or a lease holder) has the container. */
  private ownerGone(id: string, labels: Record<string, string>): boolean {
    const pid = Number(labels[LABEL.ownerPid]);
    if (this.placed.get(labels[LABEL.session] ?? '')?.id === id) return false;
    if (pid === this.ownerPid && (labels[LABEL.ownerId] ?? null) === this.ownerId) return false;
    if (Number.isInteger(pid) && pid > 0 && ownerAlive(pid, labels[LABEL.ownerId] ?? null)) return false;
    return !this.leasedElsewhere(id);
  }

  private ownerOf(c: ManagedContainer, labels: Record<string, string>): boolean {
    return (c.ownerPid !== null && ownerAlive(c.ownerPid, labels[LABEL.ownerId] ?? null)) || this.leasedElsewhere(c.id);
  }

  // ---- owner leases ----------------------------------------------------------------------
  // A container's labels name the process that placed it, and labels cannot change. A kept
  // container re-attached after a restart is used by another process than its label says: that
  // process records itself in a lease (a file per container in the data folder), so another
  // Flightdeck process of the data folder (a CLI run) does not take it for an orphan and reap or
  // replace it while it is in use.

  private leasePath(containerId: string): string | null {
    return /^[0-9a-f]{12,64}$/.test(containerId) ? join(this.o.dataDir, LEASES_DIR, containerId) : null;
  }

  private writeLease(containerId: string): void {
    const path = this.leasePath(containerId);
    if (!path) return;
    try {
      mkdirSync(join(this.o.dataDir, LEASES_DIR), { recursive: true, mode: 0o700 });
      writeFileAtomic(path, `${this.ownerPid} ${this.ownerId}\n`, { mode: 0o600 });
    } catch (e) {
      this.o.logger.warn('could not record the container\'s owner', { container: containerId.slice(0, 12), error: e });
    }
  }

  /** Whether a live process other than this one holds the container's lease. */
  private leasedElsewhere(containerId: string): boolean {
    const path = this.leasePath(containerId);
    if (!path) return false;
    let text: string;
    try {
      text = readFileNoWait(path, 'utf8');
    } catch {
      return false; // No lease (the usual case), or not a regular file: the labels decide.
    }
    const [pidText, id] = text.trim().split(' ');
    const pid = Number(pidText);
    if (!Number.isInteger(pid) || pid <= 0) return false;
    if (pid === this.ownerPid && id === this.ownerId) return false;
    return ownerAlive(pid, id ?? null);
  }

  private clearLease(containerId: string): void {
    const path = this.leasePath(containerId);
    if (path) rmSync(path, { force: true });
  }

  /**
   * Removes this instance's containers whose Flightdeck process is gone (a crash, a SIGKILL),
   * except kept ones, which are re-attached to their sessions instead. Returns what was removed.
   * `localOnly` (start-up): only engines on this machine, so starting never waits on an ssh handshake.
   */
  async reap(engineName?: string, o: { localOnly?: boolean } = {}): Promise<ManagedContainer[]> {
    const removed: ManagedContainer[] = [];
    for (const c of await this.list(engineName, o)) {
      if (this.placed.get(c.sessionId)?.id === c.id) continue;
      const engine = this.engine(c.engine);
      try {
        const ins = (await engine.call('the container inspection', (d) => d.getContainer(c.id).inspect())) as Docker.ContainerInspectInfo;
        const labels = ins.Config.Labels ?? {};
        if (this.ownerOf(c, labels)) continue;
        if (c.keep) {
          if (c.state === 'running') this.reattach(c, ins);
          continue;
        }
        await engine.call('the container removal', (d) => d.getContainer(c.id).remove({ force: true }));
        this.clearLease(c.id);
      } catch (e) {
        // Removed meanwhile (by its own process on quit, or by hand): nothing left to reap.
        if (e instanceof AppError && e.code === 'not_found') continue;
        throw e;
      }
      this.o.logger.info('orphaned container removed', { container: c.id.slice(0, 12), sessionId: c.sessionId });
      removed.push(c);
    }
    return removed;
  }

  private reattach(c: ManagedContainer, ins: Docker.ContainerInspectInfo): void {
    this.placed.set(c.sessionId, this.described(c, ins));
    this.writeLease(c.id);
  }

  /** A listed container as this process uses a session's container, from its labels and configuration. */
  private described(c: ManagedContainer, ins: Docker.ContainerInspectInfo): SessionContainer {
    const labels = ins.Config.Labels ?? {};
    const ws = labels[LABEL.workspace] ?? '';
    const timeout = Number(labels[LABEL.taskTimeoutMs]);
    // A remote workspace keeps syncing after a restart: its local side is in the labels, its user in the config.
    const [uid, gid] = (ins.Config.User ?? '').split(':').map(Number);
    const remoteWorktree = labels[LABEL.remoteWorktree];
    const remoteBranch = labels[LABEL.remoteBranch];
    const remote = ws.startsWith('volume:') && remoteWorktree && remoteBranch && Number.isInteger(uid) && Number.isInteger(gid) ? { worktree: remoteWorktree, branch: remoteBranch, user: { uid: uid!, gid: gid! } } : null;
    return {
      sessionId: c.sessionId,
      engine: c.engine,
      id: c.id,
      name: c.name,
      image: c.image,
      local: this.engine(c.engine).local,
      worktree: ws.startsWith('volume:') ? null : ws,
      remote,
      taskTimeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_TASK_TIMEOUT_MS,
      gpus: gpusOfContainer(ins),
      network: (ins.HostConfig.NetworkMode as NetworkMode | undefined) ?? 'bridge',
      console: hasConsole(ins),
    };
  }

  /**
   * The container's description, started again first when it is stopped (the Stop button, an
   * engine restart): what opens a shell, the console or a Claude Code run needs it running, as
   * a command does (exec starts it on the engine's "is not running").
   */
  private async running(placed: SessionContainer): Promise<Docker.ContainerInspectInfo> {
    const engine = this.engine(placed.engine);
    const c = engine.docker.getContainer(placed.id);
    const ins = await engine.call('the container inspection', () => c.inspect());
    if (ins.State.Running) return ins;
    await this.start(engine, c);
    return engine.call('the container inspection', () => c.inspect());
  }

  /** Starts a stopped container; one started meanwhile (304) is what was wanted. */
  private start(engine: Engine, c: Docker.Container): Promise<void> {
    return engine.call('the container start', () =>
      c.start().then(
        () => undefined,
        (err: { statusCode?: number }) => {
          if (err.statusCode !== 304) throw err;
        },
      ),
    );
  }

  /**
   * The container a terminal (shell or console) of the session opens in: this process's; else a
   * running one of this data folder that another Flightdeck process (a CLI feature run) placed —
   * placing anew would remove that one by its name under the other process's commands; else
   * one started from the placement.
   */
  private async terminalTarget(sessionId: string): Promise<SessionContainer> {
    const live = this.placed.get(sessionId);
    if (live) return live;
    const p = this.placement(sessionId);
    if (p) {
      const engine = this.engine(p.engine);
      const other = (await this.list(engine.spec.name)).find((c) => c.sessionId === sessionId && c.state === 'running');
      if (other) return this.described(other, await engine.call('the container inspection', (d) => d.getContainer(other.id).inspect()));
    }
    return this.ensure(sessionId);
  }

  async stop(sessionId: string): Promise<void> {
    const { engine, c } = this.container(sessionId);
    await engine.call('the container stop', () => c.stop({ t: STOP_GRACE_S }).catch((e: { statusCode?: number }) => {
      // 304: already stopped, which is what was asked.
      if (e.statusCode !== 304) throw e;
    }), (STOP_GRACE_S + 10) * 1000);
  }

  async kill(sessionId: string): Promise<void> {
    const { engine, c } = this.container(sessionId);
    await engine.call('the container kill', () => c.kill());
  }

  /**
   * Removes the session's container (running or not); its worktree stays. A remote workspace's
   * volume goes with it only once its commits are all on the local branch (synced first);
   * otherwise the volume is kept, so placing the session again brings them back.
   */
  async remove(sessionId: string): Promise<void> {
    const remote = this.placed.get(sessionId)?.remote ?? null;
    const synced = remote ? await this.syncWorkspace(sessionId).catch((e: unknown) => ({ state: 'error' as const, message: String(e) })) : null;
    // The sync compares the branch's commits only: uncommitted files, stashes or other branches in the clone are the agent's work too.
    const leftover = remote && (synced?.state === 'in_sync' || synced?.state === 'local_ahead') ? await this.unsyncedWork(sessionId, remote) : null;
    await this.lock.run(sessionId, async () => {
      const { engine, c } = this.container(sessionId);
      await engine.call('the container removal', () => c.remove({ force: true })).catch((e: unknown) => {
        // Already removed outside Flightdeck (`docker rm`): what was asked is done.
        if (!(e instanceof AppError && e.code === 'not_found')) throw e;
      });
      this.forget(sessionId, c.id);
      if (!remote) return;
      const volume = workspaceVolumeName(this.instance, sessionId);
      if (leftover !== null) {
        this.o.logger.warn('workspace volume kept: the clone in it holds work not on its branch', { sessionId, volume, leftover });
      } else if (synced?.state === 'in_sync' || synced?.state === 'local_ahead') {
        await engine.call('the workspace volume removal', (d) => d.getVolume(volume).remove()).catch((e: unknown) => this.o.logger.warn('workspace volume not removed', { sessionId, volume, error: e }));
      } else {
        this.o.logger.warn('workspace volume kept: it holds commits not on the local branch', { sessionId, volume, state: synced?.state, message: synced?.message });
      }
    });
  }

  /** The session's container log: this process's container, else the one another Flightdeck process of this data folder placed (as the Containers view lists it). */
  async logs(sessionId: string): Promise<string> {
    return this.logsOf(await this.listedOrOwn(sessionId));
  }

  private async listedOrOwn(sessionId: string): Promise<Pick<ManagedContainer, 'engine' | 'id'>> {
    const own = this.placed.get(sessionId);
    if (own) return own;
    const p = this.placement(sessionId);
    const listed = (await this.list(p ? this.engine(p.engine).spec.name : undefined)).find((c) => c.sessionId === sessionId);
    if (!listed) throw new AppError('not_found', `Session ${sessionId} has no container.`);
    return listed;
  }

  /** The end of a listed container's log (any process's) as plain text: its agent console, colours and line ends as a reader wants them. */
  async logsOf(c: Pick<ManagedContainer, 'engine' | 'id'>): Promise<string> {
    const engine = this.engine(c.engine);
    const ct = engine.docker.getContainer(c.id);
    const ins = await engine.call('the container inspection', () => ct.inspect());
    const buf = (await engine.call('the container logs', () => ct.logs({ stdout: true, stderr: true, tail: LOG_TAIL_LINES, follow: false }))) as unknown as Buffer;
    // A TTY's log (the agent console) is one raw stream; without a TTY the engine multiplexes stdout and stderr.
    return plainText(hasConsole(ins) ? buf.toString('utf8') : demuxBuffer(buf));
  }

  async inspect(sessionId: string): Promise<Docker.ContainerInspectInfo> {
    const c = await this.listedOrOwn(sessionId);
    return redactInspect(await this.engine(c.engine).call('the container inspection', (d) => d.getContainer(c.id).inspect()));
  }

  /**
   * One sample of a listed container (any process's: a CLI run's, a kept one): CPU, memory,
   * processes, and per-GPU figures when GPUs were assigned to it (its device request says so).
   */
  async statsOf(c: Pick<ManagedContainer, 'engine' | 'id'>): Promise<ContainerStats> {
    const engine = this.engine(c.engine);
    const ct = engine.docker.getContainer(c.id);
    const raw = await engine.call('the container stats', () => ct.stats({ stream: false }));
    // Whether it has GPUs is asked once per container (its device request never changes), not at each sample.
    let hasGpus = this.listedHasGpus.get(c.id);
    if (hasGpus === undefined) {
      hasGpus = gpusOfContainer(await engine.call('the container inspection', () => ct.inspect())).kind !== 'none';
      this.listedHasGpus.set(c.id, hasGpus);
    }
    return parseStats(raw, hasGpus ? await this.gpuStatsIn(engine, ct, c.id) : []);
  }

  /**
   * One sample of CPU and memory (and per-GPU figures when the session has GPUs): of this
   * process's container of the session, else of the one another Flightdeck process placed.
   */
  async stats(sessionId: string): Promise<ContainerStats> {
    if (!this.placed.has(sessionId)) return this.statsOf(await this.listedOrOwn(sessionId));
    const { engine, c, placed } = this.container(sessionId);
    const raw = await engine.call('the container stats', () => c.stats({ stream: false }));
    return parseStats(raw, placed.gpus.kind === 'none' ? [] : await this.gpuStatsIn(engine, c, placed.id));
  }

  /** Per-GPU utilisation and memory from `nvidia-smi` inside the session's container; empty when it cannot run. */
  async gpuStats(sessionId: string): Promise<GpuStat[]> {
    const { engine, c, placed } = this.container(sessionId);
    return this.gpuStatsIn(engine, c, placed.id);
  }

  private async gpuStatsIn(engine: Engine, c: Docker.Container, id: string): Promise<GpuStat[]> {
    let csv = '';
    try {
      await this.execIn(engine, c, { cmd: ['nvidia-smi', ...NVIDIA_SMI_ARGS], timeoutMs: 10_000, onStdout: (t) => (csv += t) });
    } catch (e) {
      this.o.logger.warn('nvidia-smi failed in a container', { container: id.slice(0, 12), error: e });
    }
    return parseNvidiaSmi(csv);
  }

  /** Live stats every `intervalMs` until the signal aborts; errors end the stream with onError. */
  watchStats(sessionId: string, intervalMs: number, onStats: (s: ContainerStats) => void, signal: AbortSignal, onError?: (e: unknown) => void): void {
    const tick = async () => {
      if (signal.aborted) return;
      try {
        onStats(await this.stats(sessionId));
      } catch (e) {
        onError?.(e);
        return;
      }
      if (!signal.aborted) setTimeout(() => void tick(), intervalMs).unref?.();
    };
    void tick();
  }

  /**
   * On quit: stops this process's containers except kept ones (the next start re-attaches
   * those). Engine failures are logged, not thrown: quitting must go on.
   */
  async shutdown(): Promise<void> {
    for (const ac of this.builds.values()) ac.abort();
    // Read once for every container (the app's store is a settings row), and only when there are
    // any: quitting must go on, so a store that cannot be read (closed first) leaves the labels to decide.
    let placements: Record<string, Placement> = {};
    if (this.placed.size > 0) {
      try {
        placements = this.store.load();
      } catch (e) {
        this.o.logger.warn('container placements unreadable on quit; the containers\' own labels decide what is kept', { error: e });
      }
    }
    await Promise.all(
      [...this.placed.values()].map(async (p) => {
        try {
          const { engine, c } = this.container(p.sessionId);
          const ins = await engine.call('the container inspection', () => c.inspect());
          if (this.keeps(placements[p.sessionId], ins.Config.Labels ?? {})) return;
          await engine.call('the container removal', () => c.remove({ force: true }));
        } catch (e) {
          this.o.logger.warn('could not stop a container on quit', { sessionId: p.sessionId, error: e });
        }
      }),
    );
    for (const id of [...this.consoles.keys()]) this.closeConsole(id);
    this.placed.clear();
  }

  /**
   * A shell in the session's container, in the terminal grid: a pty runs the exec bridge, so the
   * container's TTY gets the same flow control, scrollback and replay as a local shell.
   */
  async openTerminal(sessionId: string, size: { cols: number; rows: number } = { cols: 80, rows: 24 }): Promise<TerminalInfo> {
    if (!this.o.terminals) throw new AppError('unavailable', 'Container shells need the terminal grid (the app), not the CLI.');
    const placed = await this.terminalTarget(sessionId);
    const engine = this.engine(placed.engine);
    const ins = await this.running(placed);
    const bridge = { engine: engine.spec, container: placed.id, user: ins.Config.User, workdir: CONTAINER_PATHS.workspace, cmd: ['sh', '-c', 'if command -v bash >/dev/null; then exec bash -l; else exec sh -l; fi'] };
    return this.spawnBridge(placed, bridge, `${placed.name} (container)`, size);
  }

  /**
   * The agent console of the session's container in the terminal grid: the exec bridge in
   * attach mode (`docker attach`, read-only, replaying what the console already showed), with
   * the same flow control, scrollback and replay as any terminal.
   */
  async openConsole(sessionId: string, size: { cols: number; rows: number } = { cols: 80, rows: 24 }): Promise<TerminalInfo> {
    if (!this.o.terminals) throw new AppError('unavailable', 'The agent console needs the terminal grid (the app); from a shell, `docker attach` the container.');
    const placed = await this.terminalTarget(sessionId);
    if (!placed.console) throw new AppError('unavailable', `${placed.name} was made by an earlier Flightdeck and has no agent console; remove it (the session places a new one at its next command) to get one.`, { reason: 'no_console' });
    await this.running(placed);
    const engine = this.engine(placed.engine);
    // Only "off" refuses: the viewer reads, so a main process not raw yet (just started) is no reason, and an engine error shows in the terminal.
    if ((await consoleLive(engine.docker.getContainer(placed.id)).catch(() => null)) === false) {
      throw new AppError('unavailable', `${placed.name} has no agent console: its image (${placed.image}) has no stty that sets up a raw TTY. The transcript has every command and its output, and Shell works as usual.`, { reason: 'no_stty' });
    }
    return this.spawnBridge(placed, { engine: engine.spec, container: placed.id, attach: true }, `${placed.name} (agent console)`, size);
  }

  private spawnBridge(placed: SessionContainer, bridge: object, title: string, size: { cols: number; rows: number }): Promise<TerminalInfo> {
    const entry = bridgeEntry('exec-bridge', 'container-exec.js');
    // ssh engines authenticate through the user's agent, as the docker CLI does.
    const agent = (this.o.env ?? process.env).SSH_AUTH_SOCK;
    return this.o.terminals!.spawn({
      file: process.execPath,
      args: [...entry.execArgv, entry.script],
      cwd: placed.worktree ?? tmpdir(),
      kind: 'shell',
      title,
      env: { FLIGHTDECK_BRIDGE: JSON.stringify(bridge), ...(agent ? { SSH_AUTH_SOCK: agent } : {}) },
      baseEnv: childEnv('minimal', this.o.env ?? process.env, entry.env),
      owner: { sessionId: placed.sessionId },
      ...size,
    });
  }

  // ---- images -----------------------------------------------------------------------------

  /**
   * Starts an image build (the agent image unless `context` says otherwise) and returns its id
   * at once; `onUpdate` hears each step, then the end (done, or the error the user reads).
   */
  startImageBuild(o: { engine?: string; tag?: string; context?: string; pullBase?: boolean }, onUpdate: (u: { buildId: string; engine: string; tag: string; progress: BuildProgress; done: boolean; error: { code: string; message: string; reason?: string } | null }) => void): string {
    const engine = this.engine(o.engine);
    const buildId = `build_${randomBytes(6).toString('hex')}`;
    const tag = o.tag ?? AGENT_IMAGE;
    const ac = new AbortController();
    this.builds.set(buildId, ac);
    let last = emptyProgress();
    void buildImage(engine, { tag, signal: ac.signal, ...(o.context ? { context: o.context } : {}), ...(o.pullBase ? { pullBase: true } : {}), onProgress: (p) => {
      last = p;
      onUpdate({ buildId, engine: engine.spec.name, tag, progress: p, done: false, error: null });
    } })
      .then(() => onUpdate({ buildId, engine: engine.spec.name, tag, progress: { ...last, fraction: 1 }, done: true, error: null }))
      .catch((e: unknown) => {
        const err = engineError(e, engine.label);
        const reason = typeof err.details?.reason === 'string' ? err.details.reason : undefined;
        onUpdate({ buildId, engine: engine.spec.name, tag, progress: last, done: true, error: { code: err.code, message: err.message, ...(reason ? { reason } : {}) } });
      })
      .finally(() => this.builds.delete(buildId));
    return buildId;
  }

  cancelImageBuild(buildId: string): boolean {
    const ac = this.builds.get(buildId);
    if (!ac) return false;
    ac.abort();
    return true;
  }

  /**
   * How the Claude Code executor runs `claude` for a session placed in a container: `path` is a
   * host program taking the CLI's arguments and stdin (the claude bridge), `env` tells it which
   * container. Starts the container first, so a problem is reported before the run.
   */
  async claudeLaunch(sessionId: string): Promise<{ path: string; env: Record<string, string> }> {
    const placed = await this.ensure(sessionId);
    const engine = this.engine(placed.engine);
    const ins = await this.running(placed);
    const entry = bridgeEntry('claude-bridge', 'claude-in-container.js');
    const dir = join(this.o.dataDir, 'run');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, 'claude-in-container');
    const envPrefix = Object.entries(entry.env).map(([k, v]) => `${k}=${shQuote(v)} `).join('');
    // A launcher the executor can start like the real CLI (it resolves and execs a file).
    writeFileAtomic(path, `#!/bin/sh\n${envPrefix}exec ${[process.execPath, ...entry.execArgv, entry.script].map(shQuote).join(' ')} "$@"\n`, { mode: 0o700 });
    const input: ClaudeBridgeInput = { engine: engine.spec, container: placed.id, user: ins.Config.User, workdir: this.containerPath(sessionId, placed.worktree ?? '') ?? CONTAINER_PATHS.workspace, network: placed.network, home: CONTAINER_HOME, worktree: placed.worktree, mount: CONTAINER_PATHS.workspace };
    return { path, env: { FLIGHTDECK_BRIDGE: JSON.stringify(input) } };
  }

  /** The container path of a host path inside the session's worktree, or null when it is outside. */
  containerPath(sessionId: string, hostPath: string): string | null {
    const p = this.placed.get(sessionId);
    // A remote workspace is a clone of the worktree: the same relative paths.
    const root = p?.worktree ?? p?.remote?.worktree;
    if (!root) return null;
    if (hostPath === root) return CONTAINER_PATHS.workspace;
    if (hostPath.startsWith(root + '/')) return CONTAINER_PATHS.workspace + hostPath.slice(root.length);
    return null;
  }
}

/** The GPU request a container was created with, read back from its device requests (re-attach). */
/** The GPUs a container was created with, from its device request (which never changes). */
function gpusOfContainer(ins: Docker.ContainerInspectInfo): GpuRequest {
  return gpusOf((ins.HostConfig as { DeviceRequests?: Array<{ Count?: number; DeviceIDs?: string[] }> | null }).DeviceRequests ?? []);
}

export function gpusOf(requests: ReadonlyArray<{ Count?: number; DeviceIDs?: string[] }>): GpuRequest {
  const r = requests[0];
  if (!r) return { kind: 'none' };
  if (r.DeviceIDs && r.DeviceIDs.length > 0) return { kind: 'ids', ids: [...r.DeviceIDs] };
  return r.Count === -1 ? { kind: 'all' } : r.Count && r.Count > 0 ? { kind: 'count', count: r.Count } : { kind: 'none' };
}

/** A non-TTY container's log buffer (8-byte frame headers) as text. */
export function demuxBuffer(buf: Buffer): string {
  const parts: Buffer[] = [];
  let i = 0;
  while (i + 8 <= buf.length) {
    const size = buf.readUInt32BE(i + 4);
    parts.push(buf.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}
