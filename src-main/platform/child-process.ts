/**
 * The one way Flightdeck starts a program: its environment, its descriptors, its concurrency.
 *
 * - Environment: `childEnv(profile)` builds every child's environment. Programs the app runs for
 *   itself (git, the pty host) get a short allow-list; the user's own shells get the user's
 *   environment minus Flightdeck's private variables; commands (an agent's, a check's) also lose
 *   model credentials. Nothing else builds an environment from `process.env`.
 * - Descriptors: a child gets its stdio and nothing else. libuv opens its own descriptors
 *   close-on-exec, but not everything in the process does: node-pty's `forkpty` leaves each pty
 *   master inheritable (an agent's command could then type into the user's shell), and whatever
 *   the app itself inherited from its launcher is passed on. On Linux every program is therefore
 *   started through `cleanExec`, a two-line bash prelude that closes every descriptor above 2
 *   and then execs the program (same pid, same process group). macOS needs none: node-pty and
 *   libuv both use posix_spawn with POSIX_SPAWN_CLOEXEC_DEFAULT there.
 * - Concurrency: see ./concurrency (ConcurrencyLimiter), which bounds how many run at once.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { isAppPrivateEnv, isCommandSecretEnv } from './private-env';

// ---- environment ------------------------------------------------------------------------------

/**
 * What a program the app runs for itself needs to work like it does in the user's terminal:
 * where programs are, whose home it is (git's global config), the locale and temp folders, and
 * the few variables Windows cannot start a process without. Nothing that carries a secret.
 */
const MINIMAL_ALLOWED = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'TMP',
  'TEMP',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_RUNTIME_DIR',
  // Windows: a process cannot start (or find its profile) without these.
  'SystemRoot',
  'SYSTEMROOT',
  'ComSpec',
  'COMSPEC',
  'PATHEXT',
  'WINDIR',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
]);

function minimalAllowed(name: string): boolean {
  return MINIMAL_ALLOWED.has(name) || name.startsWith('LC_');
}

/**
 * - `minimal`: the app's own helpers (git, the pty host, `claude --version`): the allow-list only.
 * - `user`: a shell the user opened: their environment (their keys are theirs to use in their
 *   own shell), minus Flightdeck's private variables (the browser token would let anything in
 *   that shell drive the app).
 * - `command`: a command the app runs on someone's behalf (an agent's tool call, a check): the
 *   user's environment minus Flightdeck's private variables, model credentials and other
 *   services' credentials (they would end up in tool output and in the model's context).
 */
export type EnvProfile = 'minimal' | 'user' | 'command';

export function childEnv(profile: EnvProfile, base: NodeJS.ProcessEnv = process.env, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  // Names first, values only of the variables kept: each value read from process.env is a call
  // into the runtime, and the app's own gits (a few per user action) keep about 10 of ~70.
  for (const k of Object.keys(base)) {
    if (isAppPrivateEnv(k)) continue;
    if (profile === 'minimal' && !minimalAllowed(k)) continue;
    if (profile === 'command' && isCommandSecretEnv(k)) continue;
    const v = base[k];
    if (v !== undefined) env[k] = v;
  }
  return { ...env, ...extra };
}

/**
 * The environment of the app's own git calls: the allow-list, no prompts (nobody can answer
 * one), messages in English (callers match git's wording), no system-wide askpass.
 */
export function gitEnv(base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return childEnv('minimal', base, { GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', GIT_ASKPASS: '', SSH_ASKPASS: '' });
}

// ---- descriptors ------------------------------------------------------------------------------

const BASH_CANDIDATES = ['/bin/bash', '/usr/bin/bash'];

/** An existing regular file this process may execute. */
export function isExecutableFile(p: string): boolean {
  try {
    // A missing file answers undefined instead of throwing: a PATH lookup tries several folders
    // before the one that has the program, and each thrown error cost ~30 µs (its stack), 0.25 ms
    // and more per git call with a usual PATH.
    if (!statSync(p, { throwIfNoEntry: false })?.isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    // Not a folder on the way (ENOTDIR), not readable, not executable: not this one.
    return false;
  }
}

/** The argv[0] the prelude shell gets; shows up only in its own error messages. */
const PRELUDE_NAME = 'flightdeck-exec';

let preludeShell: string | null | undefined;

/**
 * The shell that runs the prelude, or null where none is needed (macOS, Windows). bash is used
 * because it can close any descriptor number and reads no startup file (see cleanExec); it
 * passes the environment on unchanged. Without bash (a minimal
 * container) /bin/sh can close only 3–9 (dash has no multi-digit redirections).
 */
function preludeShellPath(): string | null {
  if (preludeShell !== undefined) return preludeShell;
  if (process.platform === 'darwin' || process.platform === 'win32') return (preludeShell = null);
  return (preludeShell = BASH_CANDIDATES.find(isExecutableFile) ?? '/bin/sh');
}

function preludeScript(shell: string, keep: readonly number[]): string {
  return `${closeScript(shell, keep)} exec "$@"`;
}

/** The prelude's first part: every descriptor but 0, 1, 2 and `keep` closed (ends with `;`). */
function closeScript(shell: string, keep: readonly number[]): string {
  const dir = existsSync('/proc/self/fd') ? '/proc/self/fd' : '/dev/fd';
  const kept = ['0', '1', '2', ...keep.map(String)].join('|');
  // The glob is expanded by the shell itself, so "self" is the shell; the directory handle it
  // read is already closed when the loop runs (closing it again is harmless).
  const close = shell.endsWith('bash') ? `case $n in *[!0-9]*|''|${kept}) ;; *) eval "exec $n>&-";; esac` : `case $n in ${kept}) ;; [3-9]) eval "exec $n>&-";; esac`;
  return `for f in ${dir}/*; do n=\${f##*/}; ${close}; done;`;
}

/**
 * `file args…` rewritten so that the program starts with descriptors 0, 1 and 2 (and `keep`)
 * only. The pid is the program's own (the prelude execs it), so signals, process groups and
 * exit codes are unchanged. A program that cannot be found makes the prelude exit 127 with the
 * shell's message.
 */
export function cleanExec(file: string, args: readonly string[], keep: readonly number[] = []): { file: string; args: string[] } {
  const shell = preludeShellPath();
  if (!shell) return { file, args: [...args] };
  // --norc: bash reads ~/.bashrc even non-interactively when stdin is a socket (it takes that
  // for rshd), and Node's pipes are socket pairs. -p: no $BASH_ENV, no imported functions.
  const flags = shell.endsWith('bash') ? ['--norc', '--noprofile', '-p'] : [];
  return { file: shell, args: [...flags, '-c', preludeScript(shell, keep), PRELUDE_NAME, file, ...args] };
}

/**
 * `file first…`, then, if it succeeded, `file then…`, as one process started through the prelude:
 * a process start fewer than two calls (see docs/performance-worktrees-runs.md), each command
 * with descriptors 0, 1 and 2 only. Its exit code is the first command's when that failed, else
 * the second's; both write to the same stdout, and to the same stderr with `mark` (a random line
 * made per call, so nothing the commands print can pass for it) between them. The first command
 * runs as the shell's child with no stdin: a TERM, INT or HUP the shell gets (a timeout, a cancel)
 * is passed on to it, and the shell exits once it has ended (so does the call: nothing of it still
 * holds the repository's locks). The second replaces the shell as cleanExec's does. Null where
 * the prelude is not bash (the caller makes two calls).
 */
export function cleanExecThen(file: string, first: readonly string[], then: readonly string[]): { file: string; args: string[]; mark: string } | null {
  const shell = preludeShellPath();
  if (!shell?.endsWith('bash')) return null;
  const token = randomBytes(8).toString('hex');
  // $! is the first command's pid from the moment it is started (empty before: the trap then only exits).
  const pair = `trap '[ -n "$!" ] && { kill -TERM "$!"; wait "$!"; } 2>/dev/null; exit 143' TERM INT HUP; g=$1; m=$2; n=$3; shift 3; "$g" "\${@:1:$n}" & wait "$!" || exit; trap - TERM INT HUP; printf '\\037%s\\037\\n' "$m" >&2; shift "$n"; exec "$g" "$@"`;
  return { file: shell, args: ['--norc', '--noprofile', '-p', '-c', `${closeScript(shell, [])} ${pair}`, PRELUDE_NAME, file, token, String(first.length), ...first, ...then], mark: `\x1f${token}\x1f\n` };
}

/**
 * The absolute path of `name` on `pathVar`, or null. The prelude turns "not found" into exit
 * 127, so callers that must tell "not installed" apart (git) resolve the program first.
 */
export function resolveOnPath(name: string, pathVar: string | undefined): string | null {
  if (isAbsolute(name)) return isExecutableFile(name) ? name : null;
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}
