/**
 * Where a Docker-compatible engine is and how to reach it, as the Docker CLI spells it:
 * `unix:///var/run/docker.sock`, `tcp://host:2376` (TLS from a certificate folder),
 * `ssh://user@host[:port]`, `npipe:////./pipe/docker_engine`. Podman's Docker-compatible socket
 * is a `unix://` engine like any other. Pure: parsing and naming only, no sockets.
 */
import { AppError } from '../../../src-preload/contract';

/** Where the engine entry came from: the default socket, DOCKER_HOST, a Docker CLI context, or the user's list. */
export type EngineSource = 'default' | 'env' | 'context' | 'podman' | 'user';

export interface EngineTls {
  /** Verify the engine's certificate against `ca.pem` (DOCKER_TLS_VERIFY / a context's SkipTLSVerify=false). */
  verify: boolean;
  /** Folder holding ca.pem, cert.pem, key.pem (DOCKER_CERT_PATH, a context's tls folder). */
  certDir: string | null;
}

export interface EngineSpec {
  name: string;
  source: EngineSource;
  /** The endpoint as the Docker CLI writes it. */
  host: string;
  tls: EngineTls | null;
}

export type EngineAddress =
  | { kind: 'unix'; socketPath: string }
  | { kind: 'npipe'; socketPath: string }
  | { kind: 'tcp'; host: string; port: number }
  | { kind: 'ssh'; user: string | null; host: string; port: number };

/** The Docker CLI's defaults: 2375 plain, 2376 with TLS; ssh on 22. */
const DOCKER_PLAIN_PORT = 2375;
const DOCKER_TLS_PORT = 2376;
const SSH_PORT = 22;

export const DEFAULT_SOCKET = '/var/run/docker.sock';

export function parseEngineHost(host: string, tls = false): EngineAddress {
  const h = host.trim();
  const bad = (why: string) => new AppError('invalid_input', `"${host}" is not a Docker engine address (${why}). Use unix:///path/to/docker.sock, tcp://host:port or ssh://user@host.`);
  if (h.startsWith('unix://')) {
    const p = h.slice('unix://'.length);
    if (!p.startsWith('/')) throw bad('a unix socket needs an absolute path');
    return { kind: 'unix', socketPath: p };
  }
  if (h.startsWith('npipe://')) return { kind: 'npipe', socketPath: h.slice('npipe://'.length).replace(/\//g, '\\') };
  // The Docker CLI takes a bare path as a unix socket too.
  if (h.startsWith('/')) return { kind: 'unix', socketPath: h };
  let url: URL;
  try {
    url = new URL(h);
  } catch {
    throw bad('not a URL');
  }
  if (!url.hostname) throw bad('no host name');
  if (url.protocol === 'tcp:' || url.protocol === 'http:' || url.protocol === 'https:') {
    const port = url.port ? Number(url.port) : tls || url.protocol === 'https:' ? DOCKER_TLS_PORT : DOCKER_PLAIN_PORT;
    return { kind: 'tcp', host: url.hostname.replace(/^\[|\]$/g, ''), port };
  }
  if (url.protocol === 'ssh:') {
    if (url.pathname && url.pathname !== '/' && url.pathname !== '') throw bad('an ssh engine takes no path');
    return { kind: 'ssh', user: url.username ? decodeURIComponent(url.username) : null, host: url.hostname, port: url.port ? Number(url.port) : SSH_PORT };
  }
  throw bad(`unknown scheme ${url.protocol}`);
}

/**
 * Whether the engine runs on this machine and sees its files: only then can a worktree be
 * bind-mounted and the host's loopback be reached through the engine's host gateway. A tcp://
 * engine may well be local, but nothing proves it shares this file system.
 */
export function isLocalEngine(spec: Pick<EngineSpec, 'host'>): boolean {
  const a = parseEngineHost(spec.host);
  return a.kind === 'unix' || a.kind === 'npipe';
}

/** One line for lists and messages: the endpoint without credentials. */
export function describeEngine(spec: Pick<EngineSpec, 'name' | 'host'>): string {
  return `${spec.name} (${spec.host})`;
}

/**
 * A Docker CLI context's meta.json (`~/.docker/contexts/meta/<sha256(name)>/meta.json`):
 * `{ Name, Endpoints: { docker: { Host, SkipTLSVerify } } }`. Null for contexts without a
 * docker endpoint (Kubernetes-only ones) or unreadable shapes.
 */
export function contextEngine(meta: unknown, tlsDir: string | null): EngineSpec | null {
  if (!meta || typeof meta !== 'object') return null;
  const m = meta as { Name?: unknown; Endpoints?: { docker?: { Host?: unknown; SkipTLSVerify?: unknown } } };
  const host = m.Endpoints?.docker?.Host;
  if (typeof m.Name !== 'string' || typeof host !== 'string' || host.length === 0) return null;
  const tcp = /^(tcp|https):/.test(host);
  return { name: m.Name, source: 'context', host, tls: tcp && tlsDir ? { verify: m.Endpoints?.docker?.SkipTLSVerify !== true, certDir: tlsDir } : null };
}

/** The engine DOCKER_HOST names, with the TLS settings of DOCKER_TLS_VERIFY / DOCKER_CERT_PATH. */
export function envEngine(env: Readonly<Record<string, string | undefined>>, homeDir: string): EngineSpec | null {
  const host = env.DOCKER_HOST?.trim();
  if (!host) return null;
  const verify = env.DOCKER_TLS_VERIFY !== undefined && env.DOCKER_TLS_VERIFY !== '' && env.DOCKER_TLS_VERIFY !== '0';
  const certDir = env.DOCKER_CERT_PATH?.trim() || (verify ? `${homeDir}/.docker` : null);
  return { name: 'DOCKER_HOST', source: 'env', host, tls: verify || env.DOCKER_CERT_PATH ? { verify, certDir } : null };
}

/** Engine names are the handle users type (`--engine NAME`): short, no spaces. */
export const ENGINE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
