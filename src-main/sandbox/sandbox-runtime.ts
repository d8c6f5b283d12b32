/**
 * Turning a command into its confined form on this machine: bubblewrap on Linux, Seatbelt
 * (`sandbox-exec`) on macOS. Before the first command of a kind, the sandbox is started once
 * with `true` inside, so a machine where it cannot start (bwrap missing, user namespaces
 * disabled) is told apart from a command that failed: the command is then refused with the
 * reason, never run unconfined. Only `danger-full-access` runs a command as is.
 */
import { execFile } from 'node:child_process';
import { lstatSync, realpathSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { AppError } from '../../src-preload/contract';
import { childEnv, cleanExec, resolveOnPath } from '../platform/child-process';
import { bwrapArgs, commandsGetNetwork, seatbeltProfile, type HiddenPath, type SandboxPolicy } from './policy';
import { worktreeGitBinds } from './worktree-git';

/** Where bubblewrap and sandbox-exec live (bwrap from PATH, where distributions install it). */
const BWRAP = 'bwrap';
const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

export interface SandboxTools {
  platform?: NodeJS.Platform;
  /** The bubblewrap executable (tests point it at a missing one). */
  bwrap?: string;
}
/** Starting a sandbox takes milliseconds; a probe this slow means something is wrong. */
const PROBE_TIMEOUT_MS = 15_000;
/**
 * A failed probe is remembered this long: commands in a burst are refused at once, and a user
 * who installs bubblewrap meanwhile does not have to restart Flightdeck.
 */
const PROBE_FAILURE_TTL_MS = 30_000;

export class SandboxUnavailableError extends AppError {
  constructor(message: string) {
    super('unavailable', message);
  }
}

interface Probe {
  ok: boolean;
  reason: string;
  at: number;
}

const probes = new Map<string, Promise<Probe>>();

function run(file: string, args: readonly string[]): Promise<{ ok: boolean; detail: string }> {
  return new Promise((resolve) => {
    // Like every child: the allow-listed environment and no inherited descriptor (the probe is
    // the one bubblewrap start that did not go through a runner).
    // Resolved first: the prelude would turn "not installed" into a bare exit 127.
    const program = resolveOnPath(file, process.env.PATH);
    if (!program) return resolve({ ok: false, detail: `${file} is not installed` });
    const exec = cleanExec(program, args);
    execFile(exec.file, exec.args, { timeout: PROBE_TIMEOUT_MS, windowsHide: true, env: childEnv('minimal') }, (err, _stdout, stderr) => {
      if (!err) return resolve({ ok: true, detail: '' });
      const code = (err as NodeJS.ErrnoException).code;
      resolve({ ok: false, detail: code === 'ENOENT' ? `${file} is not installed` : (String(stderr).trim() || err.message).split('\n')[0]! });
    });
  });
}

async function probeOnce(key: string, start: () => Promise<{ ok: boolean; detail: string }>): Promise<Probe> {
  const cached = probes.get(key);
  if (cached) {
    const p = await cached;
    if (p.ok || Date.now() - p.at < PROBE_FAILURE_TTL_MS) return p;
  }
  const next = start().then((r) => ({ ok: r.ok, reason: r.detail, at: Date.now() }));
  probes.set(key, next);
  return next;
}

function unavailable(what: string, reason: string, hint: string): SandboxUnavailableError {
  return new SandboxUnavailableError(
    `Not run: the ${what} sandbox could not start (${reason}). Commands are refused rather than run unconfined. ${hint} ` +
      'Or give this session full access (danger-full-access) if you accept commands running with your own permissions.',
  );
}

function macTempDirs(): string[] {
  const dirs = new Set<string>(['/private/tmp', '/private/var/tmp']);
  try {
    dirs.add(realpathSync(tmpdir()));
  } catch {
    // TMPDIR points nowhere: /private/tmp is still there.
  }
  return [...dirs];
}

/**
 * The argv that runs `argv` under the policy, from `cwd`. Throws SandboxUnavailableError when
 * the sandbox cannot start here (or the platform has none).
 */
export async function sandboxArgv(argv: readonly string[], policy: SandboxPolicy, cwd: string, tools: SandboxTools = {}): Promise<string[]> {
  if (policy.mode === 'danger-full-access') return [...argv];
  policy = withExistingHidden(policy);
  if (policy.mode === 'workspace-write') policy = { ...policy, readOnly: [...(policy.readOnly ?? []), ...(await nestedGitPaths(policy.root))] };
  // A linked worktree (a New session's): git works inside, on its own branch only.
  policy = { ...policy, git: worktreeGitBinds(policy.root, policy.mode === 'read-only' ? 'read-only' : 'workspace-write') };
  const platform = tools.platform ?? process.platform;
  if (platform === 'linux') {
    const bwrap = tools.bwrap ?? BWRAP;
    // The same namespaces and mounts a command gets, around `true`; without the hidden and
    // protected paths, which come and go (a Claude Code run's folder removed meanwhile would fail
    // the probe, and a failed probe refuses every command for a while).
    const probeArgs = bwrapArgs({ ...policy, root: '/', mode: 'read-only', hidden: [], readOnly: [], git: { readOnly: [], writable: [], protect: [], otherRefs: [] } }, '/');
    const key = `${bwrap}:${commandsGetNetwork(policy.network) ? 'net' : 'nonet'}`;
    const p = await probeOnce(key, () => run(bwrap, [...probeArgs, 'true']));
    if (!p.ok) throw unavailable('bubblewrap', p.reason, 'Install bubblewrap (`apt-get install bubblewrap`) and make sure unprivileged user namespaces are allowed.');
    return [bwrap, ...bwrapArgs(policy, cwd), ...argv];
  }
  if (platform === 'darwin') {
    const profile = seatbeltProfile(policy, { tempDirs: macTempDirs() });
    const p = await probeOnce('seatbelt', () => run(SANDBOX_EXEC, ['-p', '(version 1)(allow default)', '/usr/bin/true']));
    if (!p.ok) throw unavailable('Seatbelt', p.reason, 'sandbox-exec is part of macOS; check that /usr/bin/sandbox-exec runs.');
    return [SANDBOX_EXEC, '-p', profile, ...argv];
  }
  throw unavailable('command', `there is no command sandbox for ${platform}`, 'Confined commands need Linux (bubblewrap) or macOS.');
}

/** Hidden paths that exist, as what they are (bubblewrap cannot mount over a missing path). */
export function withExistingHidden(policy: SandboxPolicy): SandboxPolicy {
  if (!policy.hidden || policy.hidden.length === 0) return policy;
  const hidden: HiddenPath[] = [];
  for (const h of policy.hidden) {
    try {
      const st = lstatSync(h.path);
      if (st.isDirectory()) hidden.push({ path: realpathSync(h.path), kind: 'dir' });
      else if (st.isFile()) hidden.push({ path: realpathSync(h.path), kind: 'file' });
    } catch {
      // Not there (yet): nothing to hide.
    }
  }
  return { ...policy, hidden };
}

/** How deep under the root nested repositories are looked for (a folder of clones, vendored repos). */
const NESTED_GIT_DEPTH = 4;
/** Folder entries read at most per command: the search stays quick in a huge tree. */
const NESTED_GIT_MAX_ENTRIES = 20_000;
/** Folders never searched: dependencies, and git folders themselves. */
const NESTED_GIT_SKIP = new Set(['.git', 'node_modules']);

/**
 * The `.git` folders (and `.git` files of submodules and worktrees, whose `gitdir:` line says
 * where hooks are read from) of repositories nested in the root, so they stay read-only like the
 * root's own: a hook or `core.fsmonitor` planted there runs, outside any sandbox, the next time
 * the user runs git in that folder. Breadth-first, bounded in depth and entries, asynchronous (a
 * big tree never holds up the host); symlinks are not followed.
 */
export async function nestedGitPaths(root: string): Promise<string[]> {
  const found: string[] = [];
  let level = [root];
  let budget = NESTED_GIT_MAX_ENTRIES;
  for (let depth = 0; depth <= NESTED_GIT_DEPTH && level.length > 0 && budget > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        // Unreadable or gone meanwhile: nothing the command could use there either way.
        continue;
      }
      budget -= entries.length;
      for (const e of entries) {
        const path = join(dir, e.name);
        if (e.name === '.git') {
          if (dir !== root && (e.isDirectory() || e.isFile())) found.push(path);
        } else if (e.isDirectory() && !NESTED_GIT_SKIP.has(e.name)) next.push(path);
      }
      if (budget <= 0) break;
    }
    level = next;
  }
  return found;
}

/** Tests: forget what the probes found. */
export function resetSandboxProbes(): void {
  probes.clear();
}
