/**
 * What an agent's command may touch, and how the operating system is told so. Pure: the
 * argv for bubblewrap (Linux), the Seatbelt profile (macOS) and Claude Code's own sandbox
 * settings are all derived here from one policy, so each mapping is unit-tested; spawning,
 * probing and refusing live in sandbox-runtime.ts.
 *
 * Modes (a session's choice; seed 000's `sandbox` parameter):
 * - `read-only`: nothing on disk can change, except a private temporary folder.
 * - `workspace-write` (default): the session root is writable, its `.git` is not (a hook
 *   written there would run later outside any sandbox), plus a private temporary folder.
 * - `danger-full-access`: no confinement at all; the user opted in explicitly.
 *
 * Network (an app setting): `on`, `off`, or `allow-list` (named domains only). Bubblewrap can
 * only cut the network as a whole, so for the built-in loop's commands `allow-list` means no
 * network; Claude Code filters domains through its own proxy and honours the list.
 */

export const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

export const NETWORK_MODES = ['on', 'off', 'allow-list'] as const;
export type NetworkMode = (typeof NETWORK_MODES)[number];

export interface NetworkPolicy {
  mode: NetworkMode;
  /** Domains reachable in `allow-list` mode (`example.com`, `*.npmjs.org`). */
  allowedDomains: readonly string[];
}

export interface SandboxPolicy {
  mode: SandboxMode;
  /** Absolute real path of the folder the session works in. */
  root: string;
  network: NetworkPolicy;
  /**
   * What commands must not read even though the rest of the disk is readable: Flightdeck's own
   * data folder (stored keys, the database). Only existing paths (sandbox-runtime filters).
   */
  hidden?: readonly HiddenPath[];
  /**
   * Further paths inside the root that stay read-only in workspace-write: the git folders of
   * repositories nested in the root (sandbox-runtime finds them), whose hooks and config run
   * code as soon as the user runs git there. Only existing paths.
   */
  readOnly?: readonly string[];
  /** A linked worktree root's git data outside the root (see worktree-git.ts); sandbox-runtime finds it. */
  git?: WorktreeGitBinds;
}

/** Git data of a linked worktree root: what git in the sandbox sees, may write, and may not. */
export interface WorktreeGitBinds {
  /** Bound read-only first (visible even under the sandbox's fresh /tmp): the common dir. */
  readOnly: readonly string[];
  /** Then bound writable (workspace-write only): objects, the worktree's admin dir, its branch's ref folders. */
  writable: readonly string[];
  /** Then read-only again, inside the writable ones: HEAD, commondir, gitdir, config.worktree, packs. Each must be there. */
  protect: readonly string[];
  /**
   * Then read-only too: the other branches' refs and reflogs in the session's branch folders,
   * where still there. The host's git goes on while the sandbox starts (a lock file renamed onto
   * its ref, a branch deleted at a pick): a file gone since it was listed has nothing left to
   * protect, and one the command makes in its place is a new branch of its folder, which it may
   * make anyway.
   */
  otherRefs: readonly string[];
}

export interface HiddenPath {
  path: string;
  kind: 'dir' | 'file';
}

function inside(parent: string, p: string): boolean {
  const base = parent.endsWith('/') ? parent : `${parent}/`;
  return p === parent || p.startsWith(base);
}

/**
 * Hidden paths that can be hidden without hiding the root: a folder that holds the root stays
 * (its files listed separately still go).
 */
function hideable(p: SandboxPolicy): HiddenPath[] {
  return (p.hidden ?? []).filter((h) => h.kind === 'file' || !inside(h.path, p.root));
}

/** The mode a session gets unless the user chooses another. */
export const DEFAULT_SANDBOX_MODE: SandboxMode = 'workspace-write';
/**
 * Network on by default: package installs and test suites that fetch fixtures keep working;
 * provider credentials never reach commands, and the setting turns it off.
 */
export const DEFAULT_NETWORK: NetworkPolicy = { mode: 'on', allowedDomains: [] };

/** Whether commands get the whole network (bubblewrap cannot filter by domain). */
export function commandsGetNetwork(n: NetworkPolicy): boolean {
  return n.mode === 'on';
}

/** Paths inside the root that stay read-only in workspace-write (a repository's git data, nested ones too). */
export function protectedPaths(root: string, extra: readonly string[] = []): string[] {
  return [joinPath(root, '.git'), ...extra.filter((path) => inside(root, path) && path !== root)];
}

function joinPath(a: string, b: string): string {
  return a.endsWith('/') ? a + b : `${a}/${b}`;
}

/** What commands still see of /run: systemd-resolved's resolv.conf files (no sockets a command could misuse). */
const RUN_KEPT = ['/run/systemd/resolve', '/run/resolvconf'];

/**
 * bubblewrap arguments up to (and including) `--`; the command's argv follows. The whole file
 * system is mounted read-only, then the root writable (workspace-write) with its `.git`
 * read-only again; `/tmp` is a fresh tmpfs, so a write there vanishes with the command and
 * never reaches the real `/tmp`. The root is bound after the tmpfs so a root under `/tmp`
 * stays visible. `--unshare-pid`: commands see (and can signal, ptrace or write the memory of)
 * no process outside; when the namespace's first process dies, everything inside dies with
 * it, and `--die-with-parent` ties that to bwrap. No `--new-session`: the command stays in the
 * runner's process group, so cancel and timeout reach every process with SIGTERM first (test
 * runners clean up); its terminal is its own, with no shell left reading it (`exec bwrap`),
 * so input pushed into it (TIOCSTI) reaches nothing.
 */
export function bwrapArgs(p: SandboxPolicy, cwd: string): string[] {
  if (p.mode === 'danger-full-access') throw new Error('danger-full-access runs without bubblewrap');
  const args = ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-uts'];
  if (!commandsGetNetwork(p.network)) args.push('--unshare-net');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  // A read-only mount does not stop connect() on a Unix socket: /run holds the user's D-Bus
  // session bus (`systemd-run --user` runs anything outside the sandbox), the Docker socket,
  // ssh and gpg agents. Commands get an empty /run (and /var/run, its link) with only the
  // resolver's files back, so name lookups keep working where /etc/resolv.conf points there.
  args.push('--tmpfs', '/run');
  for (const path of RUN_KEPT) args.push('--ro-bind-try', path, path);
  if (p.mode === 'workspace-write') {
    args.push('--bind', p.root, p.root);
    for (const path of protectedPaths(p.root, p.readOnly)) args.push('--ro-bind-try', path, path);
  } else {
    args.push('--ro-bind', p.root, p.root);
  }
  // A linked worktree's git data (the main repository's common dir): readable, and in
  // workspace-write just what a commit on the session's own branch writes.
  for (const path of p.git?.readOnly ?? []) args.push('--ro-bind', path, path);
  if (p.mode === 'workspace-write') {
    for (const path of p.git?.writable ?? []) args.push('--bind', path, path);
    for (const path of p.git?.protect ?? []) args.push('--ro-bind', path, path);
    for (const path of p.git?.otherRefs ?? []) args.push('--ro-bind-try', path, path);
  }
  // Hidden: an empty tmpfs over a folder, /dev/null over a file.
  for (const h of hideable(p)) args.push(...(h.kind === 'dir' ? ['--tmpfs', h.path] : ['--ro-bind', '/dev/null', h.path]));
  args.push('--setenv', 'TMPDIR', '/tmp', '--chdir', cwd, '--');
  return args;
}

/** A string as one SBPL string literal. */
function sbplString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export interface SeatbeltPaths {
  /** Temporary folders writable in both confined modes (real paths: `/private/tmp`, `$TMPDIR`). */
  tempDirs: readonly string[];
}

/**
 * The Seatbelt (sandbox-exec) profile for macOS. Everything is allowed except: file writes
 * outside the root (workspace-write) or anywhere (read-only) other than the temporary folders
 * and the few devices commands write to; writes into the root's `.git`; and, when commands get
 * no network, any network use other than local Unix sockets. In SBPL the last matching rule
 * wins, so the exceptions follow the rules they carve out of.
 */
export function seatbeltProfile(p: SandboxPolicy, paths: SeatbeltPaths): string {
  if (p.mode === 'danger-full-access') throw new Error('danger-full-access runs without Seatbelt');
  const lines = ['(version 1)', '(allow default)', '(deny file-write*)'];
  const writable = [
    ...(p.mode === 'workspace-write' ? [`(subpath ${sbplString(p.root)})`, ...(p.git?.writable ?? []).map((w) => `(subpath ${sbplString(w)})`)] : []),
    ...paths.tempDirs.map((d) => `(subpath ${sbplString(d)})`),
    '(literal "/dev/null")',
    '(literal "/dev/zero")',
    '(literal "/dev/dtracehelper")',
    '(regex #"^/dev/tty")',
    '(regex #"^/dev/fd/")',
  ];
  lines.push(`(allow file-write*\n  ${writable.join('\n  ')})`);
  if (p.mode === 'workspace-write') {
    lines.push(`(deny file-write*\n  ${[...protectedPaths(p.root, p.readOnly), ...(p.git?.protect ?? []), ...(p.git?.otherRefs ?? [])].map((g) => `(subpath ${sbplString(g)})`).join('\n  ')})`);
  }
  if (!commandsGetNetwork(p.network)) {
    lines.push('(deny network*)', '(allow network* (remote unix-socket))', '(allow network* (local unix-socket))');
  }
  const hidden = hideable(p);
  if (hidden.length > 0) {
    lines.push(`(deny file-read* file-write*\n  ${hidden.map((h) => `(${h.kind === 'dir' ? 'subpath' : 'literal'} ${sbplString(h.path)})`).join('\n  ')})`);
  }
  return lines.join('\n') + '\n';
}

/**
 * Claude Code's native sandbox (`--settings` → `sandbox`), checked against 2.1.197: its Bash
 * runs under bubblewrap (Linux) or Seatbelt (macOS) with writes limited to cd and its own
 * temporary folder, `.git` protected, and the network through its filtering proxy.
 * - `failIfUnavailable`: the CLI refuses to start instead of running commands unconfined.
 * - `allowUnsandboxedCommands: false`: the model cannot ask to run a command outside it.
 * - `autoAllowBashIfSandboxed: false`: commands still go through Flightdeck's approval hook.
 * - read-only: cd is denied for writing too.
 * - `credentials` / `denyRead`: the folders holding run keys and hook secrets cannot be read by
 *   commands (globs allowed in `denyRead`, expanded by Claude Code at each command), and the
 *   provider variables are unset for them.
 * Network `on` is the wildcard domain (Claude Code's matcher treats `*` as every host).
 */
export function claudeSandboxSettings(p: SandboxPolicy, opts: { secretDirs: readonly string[]; secretEnv: readonly string[] }): Record<string, unknown> | null {
  if (p.mode === 'danger-full-access') return null;
  const allowedDomains = p.network.mode === 'on' ? ['*'] : p.network.mode === 'off' ? [] : [...p.network.allowedDomains];
  return {
    enabled: true,
    failIfUnavailable: true,
    allowUnsandboxedCommands: false,
    autoAllowBashIfSandboxed: false,
    network: { allowedDomains },
    filesystem: {
      // A linked worktree's git data: what a commit on its own branch writes (see worktree-git.ts).
      ...(p.mode === 'workspace-write' && (p.git?.writable.length ?? 0) > 0 ? { allowWrite: [...p.git!.writable] } : {}),
      denyWrite: p.mode === 'read-only' ? [p.root] : [...protectedPaths(p.root, p.readOnly), ...(p.mode === 'workspace-write' ? [...(p.git?.protect ?? []), ...(p.git?.otherRefs ?? [])] : [])],
      denyRead: [...opts.secretDirs, ...hideable(p).map((h) => h.path)],
    },
    credentials: {
      files: opts.secretDirs.filter((path) => !path.includes('*')).map((path) => ({ path, mode: 'deny' })),
      envVars: opts.secretEnv.map((name) => ({ name, mode: 'deny' })),
    },
  };
}

/** One argument for a POSIX shell, single-quoted. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * A command line that runs `argv` (already wrapped) in place of the shell reading it: runners
 * that take a command string (`bash -c`) run this, so the sandbox applies whatever runner is
 * plugged in. `exec`: the sandbox becomes the process the runner signals.
 */
export function execLine(argv: readonly string[]): string {
  return `exec ${argv.map(shellQuote).join(' ')}`;
}

/**
 * The policy a session's commands run under: plan mode is read-only whatever the session
 * chose (it explores and proposes); otherwise the session's mode, default workspace-write.
 */
export function sessionSandboxPolicy(s: { root: string; mode: string; sandbox?: SandboxMode }, network: { sandboxNetwork: NetworkMode; sandboxAllowedDomains: readonly string[] }): SandboxPolicy {
  return {
    mode: s.mode === 'plan' ? 'read-only' : (s.sandbox ?? DEFAULT_SANDBOX_MODE),
    root: s.root,
    network: { mode: network.sandboxNetwork, allowedDomains: network.sandboxAllowedDomains },
  };
}
