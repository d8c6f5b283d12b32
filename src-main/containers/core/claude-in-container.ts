/**
 * How a Claude Code run's command line, settings and environment change when the CLI runs in
 * a session's container (see ../claude-bridge/main.ts). Pure.
 */
import type { EngineSpec } from './engine-spec';
import type { NetworkMode } from './container-spec';

export interface ClaudeBridgeInput {
  engine: EngineSpec;
  container: string;
  /** The container's `uid:gid`. */
  user: string;
  /** The CLI's working folder inside the container. */
  workdir: string;
  network: NetworkMode;
  home: string;
  /** The worktree on the host, mounted at `workdir`'s workspace root (`mount`). */
  worktree: string | null;
  mount: string;
}

/**
 * A hook request's paths as the host sees them: the CLI names files by their container paths
 * (under the workspace mount), the approval path judges host paths in the worktree.
 */
export function hostPaths(value: unknown, mount: string, worktree: string): unknown {
  if (typeof value === 'string') return value === mount || value.startsWith(`${mount}/`) ? worktree + value.slice(mount.length) : value;
  if (Array.isArray(value)) return value.map((v) => hostPaths(v, mount, worktree));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hostPaths(v, mount, worktree)]));
  return value;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

/** The host and port of a loopback http(s) URL (what a container cannot reach directly), else null. */
export function loopbackTarget(url: string): { host: string; port: number } | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (!LOOPBACK.test(u.hostname)) return null;
  const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  return { host: u.hostname === 'localhost' ? '127.0.0.1' : u.hostname.replace(/^\[|\]$/g, ''), port };
}

/** `cat '<file>'` (coder/core/launch keyHelperCommand) → the file. */
export function keyFileOf(helper: unknown): string | null {
  if (typeof helper !== 'string') return null;
  const m = /^cat '((?:[^']|'\\'')*)'$/.exec(helper);
  return m ? m[1]!.replace(/'\\''/g, "'") : null;
}

export interface ContainerRun {
  /** The CLI's arguments inside: the permission mode is bypassPermissions (the container is the sandbox); the hook still decides. */
  args: string[];
  /** The --settings file, parsed, without its `sandbox` block (the container is the sandbox). */
  settings: { path: string; content: Record<string, unknown> } | null;
  /** The files to copy in at their paths: settings (as given, rewritten), instructions, key file (the bridge puts the relay's token in it, never the key). */
  files(settingsJson: string | null): Array<{ path: string; content: string }>;
}

export function containerArgs(args: readonly string[], read: (path: string) => string): ContainerRun {
  const out: string[] = [];
  let settingsPath: string | null = null;
  let instructions: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--permission-mode') {
      i++;
      continue;
    }
    if (a === '--dangerously-skip-permissions') continue;
    if (a === '--settings') settingsPath = args[i + 1] ?? null;
    if (a === '--append-system-prompt-file') instructions = args[i + 1] ?? null;
    out.push(a);
  }
  out.push('--permission-mode', 'bypassPermissions');
  let settings: ContainerRun['settings'] = null;
  let keyFile: string | null = null;
  if (settingsPath) {
    const content = JSON.parse(read(settingsPath)) as Record<string, unknown>;
    delete content.sandbox;
    keyFile = keyFileOf(content.apiKeyHelper);
    settings = { path: settingsPath, content };
  }
  return {
    args: out,
    settings,
    files(settingsJson) {
      const files: Array<{ path: string; content: string }> = [];
      if (settingsPath && settingsJson !== null) files.push({ path: settingsPath, content: settingsJson });
      if (instructions) files.push({ path: instructions, content: read(instructions) });
      if (keyFile) files.push({ path: keyFile, content: read(keyFile) });
      return files;
    },
  };
}

/**
 * The variables that configure the CLI (endpoint, model, retries, telemetry); the host's PATH,
 * HOME and tool settings describe the host and stay out. IS_SANDBOX: the container is one, so the
 * CLI accepts bypassPermissions even when the container user is root.
 */
const CLAUDE_ENV = /^(ANTHROPIC_BASE_URL|ANTHROPIC_MODEL|ANTHROPIC_SMALL_FAST_MODEL|ANTHROPIC_DEFAULT_\w+_MODEL|CLAUDE_CODE_\w+|DISABLE_\w+|MAX_THINKING_TOKENS|API_TIMEOUT_MS|BASH_DEFAULT_TIMEOUT_MS|BASH_MAX_TIMEOUT_MS|LANG|LC_ALL|TZ|NO_COLOR)$/;
/** Credentials never enter the container: the key file (apiKeyHelper) holds the model relay's per-run token (claude-bridge/model-relay). */
const NEVER = new Set(['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN']);

export function containerEnvFor(env: Readonly<Record<string, string | undefined>>, home: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && CLAUDE_ENV.test(k) && !NEVER.has(k)) out[k] = v;
  out.HOME = home;
  out.IS_SANDBOX = '1';
  return out;
}
