/**
 * Docker-compatible engines: found on this machine (the default socket, rootless Docker,
 * Podman, DOCKER_HOST, the Docker CLI's contexts) or added by the user (tcp with TLS, ssh), each
 * reached through dockerode with a deadline on every call, so an engine that is down, refuses,
 * or never answers becomes a clear message instead of a hang.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { Agent as HttpsAgent } from 'node:https';
import { homedir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { AppError } from '../../src-preload/contract';
import { apiTooOld, apiVersionAtLeast, engineError, engineTimeout, MIN_API_VERSION } from './core/engine-errors';
import { contextEngine, DEFAULT_SOCKET, envEngine, isLocalEngine, parseEngineHost, type EngineSpec } from './core/engine-spec';

/**
 * How long an ordinary engine call may take: a local engine answers in milliseconds, a remote
 * one over ssh needs a handshake first; past this the engine is reported unreachable.
 */
export const ENGINE_CALL_DEADLINE_MS = 15_000;

export interface EngineInfo {
  name: string;
  host: string;
  source: EngineSpec['source'];
  local: boolean;
  version: string;
  apiVersion: string;
  os: string;
  arch: string;
  cpus: number;
  memoryBytes: number;
  /** The engine has the NVIDIA runtime (GPUs can be requested). */
  nvidia: boolean;
  /** Docker or Podman, from the version's components. */
  product: 'docker' | 'podman';
}

function readCert(dir: string | null, file: string): Buffer | undefined {
  if (!dir) return undefined;
  const p = join(dir, file);
  return existsSync(p) ? readFileSync(p) : undefined;
}

/** dockerode's connection options for an engine (certificates read from its folder). */
/** The variables docker-modem reads on its own, behind the options it is given. */
const DOCKER_CLIENT_ENV = ['DOCKER_HOST', 'DOCKER_TLS_VERIFY', 'DOCKER_CERT_PATH', 'DOCKER_PATH_PREFIX', 'DOCKER_CLIENT_TIMEOUT'] as const;

/**
 * A client for exactly the engine `spec` names. docker-modem starts from DOCKER_HOST (and its
 * TLS variables) and lays the given options over it, so with DOCKER_HOST naming a remote engine
 * the local socket's client went to the remote host — and "local" was reported unreachable
 * while it answered. DOCKER_HOST is already an engine of its own (envEngine); no other spec
 * may inherit it, so the client is built with those variables out of sight. The constructor
 * is synchronous, so nothing else can observe the environment meanwhile.
 */
export function dockerClient(spec: EngineSpec): Docker {
  const options = dockerOptions(spec);
  const saved = DOCKER_CLIENT_ENV.map((k) => [k, process.env[k]] as const);
  for (const [k] of saved) delete process.env[k];
  try {
    return new Docker(options);
  } finally {
    for (const [k, v] of saved) if (v !== undefined) process.env[k] = v;
  }
}

export function dockerOptions(spec: EngineSpec, env: NodeJS.ProcessEnv = process.env): Docker.DockerOptions {
  const a = parseEngineHost(spec.host, spec.tls !== null);
  // Pinned: newer engines accept older clients; an engine older than this refuses with a message we translate.
  const version = `v${MIN_API_VERSION}`;
  switch (a.kind) {
    case 'unix':
    case 'npipe':
      return { socketPath: a.socketPath, version };
    case 'tcp': {
      if (!spec.tls) return { host: a.host, port: a.port, protocol: 'http', version };
      const dir = spec.tls.certDir;
      const ca = readCert(dir, 'ca.pem');
      const cert = readCert(dir, 'cert.pem');
      const key = readCert(dir, 'key.pem');
      if (spec.tls.verify && !ca) throw new AppError('unavailable', `TLS is on for ${spec.name} but ${dir ? join(dir, 'ca.pem') : 'its certificate folder'} is missing. Put ca.pem, cert.pem and key.pem there, then retry.`, { reason: 'tls', engine: spec.name });
      return {
        host: a.host,
        port: a.port,
        protocol: 'https',
        version,
        ...(ca ? { ca } : {}),
        ...(cert ? { cert } : {}),
        ...(key ? { key } : {}),
        // Without verify (the Docker CLI's `--tls`, a context's SkipTLSVerify): encrypted, but the
        // engine's certificate is taken as it is. docker-modem passes no rejectUnauthorized of its
        // own, so it goes on the connection's agent (whose options win over the request's).
        ...(spec.tls.verify ? {} : { checkServerIdentity: () => undefined, agent: new HttpsAgent({ rejectUnauthorized: false }) }),
      } as Docker.DockerOptions;
    }
    case 'ssh':
      return {
        host: a.host,
        port: a.port,
        protocol: 'ssh',
        username: a.user ?? env.USER ?? undefined,
        version,
        // Keys come from the user's ssh agent, as with `docker -H ssh://`.
        sshOptions: { agent: env.SSH_AUTH_SOCK, readyTimeout: ENGINE_CALL_DEADLINE_MS },
      } as Docker.DockerOptions;
  }
}

/** `p`, or the engine's deadline error if it takes longer than `ms`. */
export function withDeadline<T>(p: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(onTimeout()), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

export class Engine {
  readonly docker: Docker;
  readonly local: boolean;

  constructor(
    readonly spec: EngineSpec,
    readonly deadlineMs = ENGINE_CALL_DEADLINE_MS,
  ) {
    this.docker = dockerClient(spec);
    this.local = isLocalEngine(spec);
  }

  get label(): string {
    return `"${this.spec.name}" (${this.spec.host})`;
  }

  /**
   * One engine call with the deadline; failures translated for the user. `what` names the call
   * in the timeout message ("the container list").
   */
  async call<T>(what: string, fn: (docker: Docker) => Promise<T>, ms = this.deadlineMs): Promise<T> {
    try {
      return await withDeadline(fn(this.docker), ms, () => engineTimeout(this.label, what, ms));
    } catch (e) {
      throw engineError(e, this.label);
    }
  }

  async info(): Promise<EngineInfo> {
    const version = (await this.call('its version', (d) => d.version())) as Docker.DockerVersion & { Components?: Array<{ Name?: string }> };
    if (!apiVersionAtLeast(version.ApiVersion)) throw apiTooOld(this.label, version.ApiVersion);
    const info = (await this.call('its system information', (d) => d.info())) as { NCPU?: number; MemTotal?: number; OperatingSystem?: string; OSType?: string; Architecture?: string; Runtimes?: Record<string, unknown> };
    const podman = (version.Components ?? []).some((c) => /podman/i.test(c.Name ?? ''));
    return {
      name: this.spec.name,
      host: this.spec.host,
      source: this.spec.source,
      local: this.local,
      version: version.Version,
      apiVersion: version.ApiVersion,
      os: info.OperatingSystem ?? info.OSType ?? version.Os,
      arch: info.Architecture ?? version.Arch,
      cpus: info.NCPU ?? 0,
      memoryBytes: info.MemTotal ?? 0,
      nvidia: Object.keys(info.Runtimes ?? {}).includes('nvidia'),
      product: podman ? 'podman' : 'docker',
    };
  }

  /**
   * Where `host.docker.internal` points in a bridge container of this (local) engine: Docker's
   * `host-gateway` (20.10+). Podman 4 writes that word into /etc/hosts as it is (the name then
   * resolves to nothing), so there it is the bridge network's gateway — the address Podman's own
   * host.containers.internal names. Null when the engine shows no gateway (the name is left out).
   */
  async hostGateway(info: EngineInfo): Promise<string | null> {
    if (info.product !== 'podman') return 'host-gateway';
    const net = (await this.call('the bridge network', (d) => d.getNetwork('bridge').inspect())) as BridgeNetwork;
    return net.IPAM?.Config?.find((c) => c.Gateway)?.Gateway ?? null;
  }
}

/** The bridge network as the engine's API describes it (the parts read here). */
interface BridgeNetwork {
  IPAM?: { Config?: Array<{ Gateway?: string }> };
}

export interface DiscoverOptions {
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** Engines the user added (Settings → Engines). */
  user?: readonly EngineSpec[];
  exists?: (p: string) => boolean;
}

function dockerConfigDir(env: NodeJS.ProcessEnv, home: string): string {
  return env.DOCKER_CONFIG?.trim() || join(home, '.docker');
}

/** The Docker CLI's contexts: meta/<id>/meta.json, with TLS material under tls/<id>/docker. */
export function readContexts(configDir: string): EngineSpec[] {
  const metaRoot = join(configDir, 'contexts', 'meta');
  let ids: string[];
  try {
    ids = readdirSync(metaRoot);
  } catch {
    // No contexts folder: the user never created a context.
    return [];
  }
  const out: EngineSpec[] = [];
  for (const id of ids.sort()) {
    try {
      const meta: unknown = JSON.parse(readFileSync(join(metaRoot, id, 'meta.json'), 'utf8'));
      const tlsDir = join(configDir, 'contexts', 'tls', id, 'docker');
      const spec = contextEngine(meta, existsSync(tlsDir) ? tlsDir : null);
      if (spec) out.push(spec);
    } catch {
      // An unreadable or hand-broken context is left out of the list; the others still show.
    }
  }
  return out;
}

/** The context the Docker CLI uses (`docker context use`), or null for its default. */
export function currentContext(env: NodeJS.ProcessEnv, home: string): string | null {
  if (env.DOCKER_CONTEXT?.trim()) return env.DOCKER_CONTEXT.trim();
  try {
    const cfg = JSON.parse(readFileSync(join(dockerConfigDir(env, home), 'config.json'), 'utf8')) as { currentContext?: unknown };
    return typeof cfg.currentContext === 'string' && cfg.currentContext !== 'default' ? cfg.currentContext : null;
  } catch {
    // No or unreadable CLI config: the default context.
    return null;
  }
}

/**
 * Every engine this machine knows, first the one the Docker CLI would use. Names are unique;
 * a later entry with a taken name is left out (the user's own list comes last).
 */
export function discoverEngines(o: DiscoverOptions = {}): EngineSpec[] {
  const env = o.env ?? process.env;
  const home = o.home ?? homedir();
  const exists = o.exists ?? existsSync;
  const found: EngineSpec[] = [];
  if (exists(DEFAULT_SOCKET)) found.push({ name: 'local', source: 'default', host: `unix://${DEFAULT_SOCKET}`, tls: null });
  const runtime = env.XDG_RUNTIME_DIR?.trim();
  if (runtime && exists(join(runtime, 'docker.sock'))) found.push({ name: 'rootless', source: 'default', host: `unix://${join(runtime, 'docker.sock')}`, tls: null });
  const podman = [runtime ? join(runtime, 'podman', 'podman.sock') : null, '/run/podman/podman.sock'].find((p): p is string => p !== null && exists(p));
  if (podman) found.push({ name: 'podman', source: 'podman', host: `unix://${podman}`, tls: null });
  const fromEnv = envEngine(env, home);
  const contexts = readContexts(dockerConfigDir(env, home));
  const all = [...(fromEnv ? [fromEnv] : []), ...found, ...contexts, ...(o.user ?? [])];
  const seen = new Set<string>();
  const unique = all.filter((s) => (seen.has(s.name) ? false : (seen.add(s.name), true)));
  const current = fromEnv ? fromEnv.name : currentContext(env, home);
  const i = current ? unique.findIndex((s) => s.name === current) : -1;
  if (i > 0) unique.unshift(...unique.splice(i, 1));
  return unique;
}
