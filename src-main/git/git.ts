import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { readFileNoWait } from '../platform/read-no-wait';
import { AppError } from '../../src-preload/contract';
import { cleanExec, cleanExecThen, gitEnv, resolveOnPath } from '../platform/child-process';
import { ConcurrencyLimiter } from '../platform/concurrency';
import { runInOwnGroup } from '../platform/own-group';
import { locateRepository, requireRecordedRepository, type RepoLocation } from './repo-location';
import { decide, repoPrograms, type RepoProgram } from './repo-programs';

/** Git status on a large repository can take a while; a hung git (network FS) must not hang us. */
const DEFAULT_GIT_TIMEOUT_MS = 30_000;
/** Porcelain output of a big worktree list or status fits comfortably. */
const MAX_GIT_OUTPUT_BYTES = 32 * 1024 * 1024;

/**
 * How many gits run at once. Each is mostly I/O on the repository; a handful in parallel keeps
 * a refresh of many projects quick, while a flood of requests (10,000 path validations) waits
 * in the queue instead of starting thousands of processes and starving the host.
 */
const GIT_MAX_CONCURRENT = 8;
/** Per repository: a refresh runs 3–4 gits together; more on one repository only contend for its index. */
const GIT_MAX_CONCURRENT_PER_REPO = 4;
/**
 * Gits waiting for a slot. A refresh of a few hundred projects queues well under this; beyond
 * it the caller is flooding and is told to retry instead of growing the queue without bound.
 */
const GIT_MAX_QUEUED = 2_000;
/** Gits waiting for one repository: its refresh needs 3–4, so hundreds waiting is a flood. */
const GIT_MAX_QUEUED_PER_REPO = 256;

const limiter = new ConcurrencyLimiter({
  global: GIT_MAX_CONCURRENT,
  perKey: GIT_MAX_CONCURRENT_PER_REPO,
  maxQueued: GIT_MAX_QUEUED,
  maxQueuedPerKey: GIT_MAX_QUEUED_PER_REPO,
  what: 'git commands',
});

/**
 * Settings a repository (or an agent working in it) can plant to make git run a program: the
 * app's own calls turn each of them off. Command-line `-c` wins over every config file, and git
 * passes it on to the gits it starts itself (submodules).
 * - core.fsmonitor: runs a hook program on status.
 * - core.hooksPath: hooks (the app's calls trigger none today; this keeps it so).
 * - credential.helper / core.askPass: programs run when git wants credentials.
 * - diff.external: an external diff program (`--no-ext-diff` also covers gitattributes drivers).
 * - log.showSignature: would run gpg.program.
 * - protocol.ext.allow: `ext::` URLs (a remote or an insteadOf rewrite) run any command.
 * Editors and pagers are switched off in the environment (GIT_EDITOR, GIT_SEQUENCE_EDITOR,
 * GIT_PAGER win over config). Programs only a repository's config can name (filter and merge
 * drivers, signing and ssh programs) are handled per call by ./repo-programs.
 * Aliases need nothing: git never expands an alias for a built-in command, and the app calls
 * built-ins only.
 */
export const SAFE_GIT_CONFIG: readonly string[] = [
  '-c',
  'core.fsmonitor=false',
  '-c',
  `core.hooksPath=${process.platform === 'win32' ? 'NUL' : '/dev/null'}`,
  '-c',
  'credential.helper=',
  '-c',
  'core.askPass=',
  '-c',
  'diff.external=',
  '-c',
  'log.showSignature=false',
  '-c',
  'protocol.ext.allow=never',
];

/** Subcommands that may start a diff program or a text conversion filter unless told not to. */
const DIFF_LIKE = new Set(['diff', 'log', 'show']);

export class GitError extends Error {
  override readonly name = 'GitError';
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string,
    /** What git printed on stdout before failing (some answers, "nothing to commit", come there). */
    readonly stdout: string = '',
    /** Set when the app stopped git: cancelled, past its time limit, or past its output limit (maxOutputBytes). */
    readonly stoppedFor: 'cancel' | 'timeout' | 'overflow' | null = null,
  ) {
    super(message);
  }
}

export interface GitOptions {
  cwd: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Added to the allow-listed environment (never the app's whole environment). */
  env?: Record<string, string>;
  /** Most stdout accepted (default 32 MiB); more fails the call. */
  maxOutputBytes?: number;
  /**
   * The repository Flightdeck recorded for this work (a project's path, a session's repository):
   * the call is refused unless cwd's git data is that repository's.
   */
  repository?: string;
}

/** Subcommands that create a repository (GIT_DIR would name the one they create). */
const CREATES_REPOSITORY = new Set(['clone', 'init']);

/**
 * The environment and, per command of the call, the extra `-c` arguments that pin where the call
 * looks (git dir and work tree from ./repo-location, never from a `.git` file alone) and switch
 * off the repository's own programs (./repo-programs), or a refusal of any of them. One look at
 * where the repository is for all the commands of a call (gitThen runs two in the same cwd).
 */
async function pinned(subs: ReadonlyArray<string | undefined>, opts: GitOptions, gitPath: string, env: Record<string, string>): Promise<{ env: Record<string, string>; configArgs: string[][] }> {
  const none = () => ({ env, configArgs: subs.map((): string[] => []) });
  if (subs.some((sub) => sub !== undefined && CREATES_REPOSITORY.has(sub)) || env.GIT_DIR !== undefined) return none();
  const loc: RepoLocation | null = locateRepository(opts.cwd);
  if (!loc) {
    if (opts.repository !== undefined) throw new AppError('forbidden', `${opts.cwd} is not a work tree of the repository ${opts.repository}.`, { path: opts.cwd });
    return none();
  }
  if (opts.repository !== undefined) requireRecordedRepository(loc, opts.repository);
  const pinnedEnv = { ...env, GIT_DIR: loc.gitDir, GIT_WORK_TREE: loc.workTree };
  const programs = await repoPrograms(loc, gitPath, pinnedEnv);
  return { env: pinnedEnv, configArgs: subs.map((sub) => decide(loc, sub, programs).configArgs) };
}

/**
 * Subcommands that look into a nested repository's work tree (a submodule an agent added) by
 * starting a git of its own there, with that repository's config: its filters ran on the host.
 * Told on the command line (which a `.gitmodules` entry cannot override, unlike the config),
 * they compare only the nested repository's HEAD.
 */
const LOOKS_INTO_SUBMODULES = new Set(['status', 'diff', 'diff-files', 'diff-index']);
const SUBMODULES_HEAD_ONLY = '--ignore-submodules=dirty';

/** The full argument list for one of the app's own git calls. */
export function safeGitArgs(args: readonly string[]): string[] {
  const [sub, ...rest] = args;
  if (sub === undefined) return [...SAFE_GIT_CONFIG];
  const options = [...(DIFF_LIKE.has(sub) ? ['--no-ext-diff', '--no-textconv'] : []), ...(LOOKS_INTO_SUBMODULES.has(sub) ? [SUBMODULES_HEAD_ONLY] : [])];
  return [...SAFE_GIT_CONFIG, sub, ...options, ...rest.filter((a) => !(LOOKS_INTO_SUBMODULES.has(sub) && a.startsWith('--ignore-submodules')))];
}

/**
 * The programs the repository at `cwd` configures in its own config (what the app's git refuses
 * or switches off), with where its git data is; null outside a work tree.
 */
export async function repositoryPrograms(cwd: string): Promise<{ location: RepoLocation; programs: RepoProgram[] } | null> {
  const location = locateRepository(cwd);
  if (!location) return null;
  const env: Record<string, string> = { ...gitEnv(), GIT_OPTIONAL_LOCKS: '0' };
  const gitPath = resolveOnPath('git', env.PATH);
  if (!gitPath) throw gitNotInstalled();
  return { location, programs: await repoPrograms(location, gitPath, env) };
}

/** One git call's time by part: waiting for a slot, deciding where it looks and what it may run, the process itself. */
export interface GitCallTiming {
  args: readonly string[];
  /** A second command run after `args` in the same call (gitThen). */
  then?: readonly string[];
  cwd: string;
  waitMs: number;
  pinMs: number;
  execMs: number;
  ok: boolean;
}
let observer: ((t: GitCallTiming) => void) | null = null;

/** Benches: every git call's timing, or null to stop (off by default: nothing is measured then). */
export function observeGit(fn: ((t: GitCallTiming) => void) | null): void {
  observer = fn;
}

/** Gits running and waiting now, and the most that ever ran at once (tests, diagnostics). */
export function gitConcurrency(): { running: number; queued: number; peakRunning: number } {
  return limiter.stats();
}

/**
 * Runs git with an argument array (never a shell string). A missing git binary becomes
 * `git_not_installed`; a failing command becomes GitError with git's own message. Calls wait
 * for a slot (see GIT_MAX_CONCURRENT); a full queue rejects with `unavailable`.
 */
export function git(args: readonly string[], opts: GitOptions): Promise<string> {
  return runGit(args, opts, 'utf8') as Promise<string>;
}

/** Like git(), with stdout as raw bytes (blobs are written back byte for byte). */
export function gitBuffer(args: readonly string[], opts: GitOptions): Promise<Buffer> {
  return runGit(args, opts, 'buffer') as Promise<Buffer>;
}

/**
 * Like gitBuffer(), for commands whose exit code is an answer (`merge-file` exits with the number
 * of conflicts): any exit resolves with its code; a signal, a timeout or a failed start rejects.
 */
export function gitBufferWithExit(args: readonly string[], opts: GitOptions): Promise<{ stdout: Buffer; exitCode: number }> {
  return limited(args, opts, 'buffer', true) as Promise<{ stdout: Buffer; exitCode: number }>;
}

/**
 * `git first…`, then `git then…` if the first succeeded, as one call: one process start where the
 * platform allows it (cleanExecThen; a feature run commits with an add and a commit seven times),
 * else two. Each command is pinned, checked and started as git() does it (a refusal of either
 * comes before anything runs), and each gets the whole timeout a call has. Resolves with what
 * both printed on stdout, which is the second's as `git add` prints nothing there; a failure is
 * the first's when it failed (the second then never ran), else the second's, with its own stderr.
 */
export function gitThen(first: readonly string[], then: readonly string[], opts: GitOptions): Promise<string> {
  // Both are checked before either runs, so the first must leave where the repository is and
  // what its config says as they were: `git add`, the only first command the app needs.
  if (first[0] !== 'add') return Promise.reject(new Error(`gitThen: the first command must be git add, not git ${first[0] ?? ''}`));
  return limited(first, opts, 'utf8', false, then) as Promise<string>;
}

function runGit(args: readonly string[], opts: GitOptions, encoding: 'utf8' | 'buffer'): Promise<string | Buffer> {
  return limited(args, opts, encoding, false) as Promise<string | Buffer>;
}

function limited(args: readonly string[], opts: GitOptions, encoding: 'utf8' | 'buffer', withExit: boolean, then?: readonly string[]): Promise<string | Buffer | { stdout: Buffer; exitCode: number }> {
  const start = (t: GitCallTiming | null) => (then ? spawnGitThen(args, then, opts, t) : spawnGit(args, opts, encoding, withExit, t));
  if (!observer) return limiter.run(opts.cwd, () => start(null), opts.signal);
  const t: GitCallTiming = { args, ...(then ? { then } : {}), cwd: opts.cwd, waitMs: 0, pinMs: 0, execMs: 0, ok: false };
  const queued = performance.now();
  return limiter
    .run(
      opts.cwd,
      () => {
        t.waitMs = performance.now() - queued;
        return start(t);
      },
      opts.signal,
    )
    .then(
      (r) => ((t.ok = true), observer?.(t), r),
      (e: unknown) => {
        observer?.(t);
        throw e;
      },
    );
}

async function spawnGit(args: readonly string[], opts: GitOptions, encoding: 'utf8' | 'buffer', withExit: boolean, timing: GitCallTiming | null): Promise<string | Buffer | { stdout: Buffer; exitCode: number }> {
  const t0 = timing ? performance.now() : 0;
  const { gitPath, env, fullArgs: [fullArgs] } = await prepared([args], opts);
  return timed(() => runExec(gitPath, fullArgs!, env, opts, encoding, withExit), t0, timing);
}

async function spawnGitThen(first: readonly string[], then: readonly string[], opts: GitOptions, timing: GitCallTiming | null): Promise<string> {
  const t0 = timing ? performance.now() : 0;
  const { gitPath, env, fullArgs: [a, b] } = await prepared([first, then], opts);
  const pair = cleanExecThen(gitPath, a!, b!);
  const exec = async (): Promise<string> => {
    // The two commands' time in one process: each its own timeout's worth, as in two calls.
    if (pair) return (await execPrepared(pair, env, { ...opts, timeoutMs: 2 * (opts.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS) }, 'utf8', false)) as string;
    const out = (await runExec(gitPath, a!, env, opts, 'utf8', false)) as string;
    return out + ((await runExec(gitPath, b!, env, opts, 'utf8', false)) as string);
  };
  return timed(exec, t0, timing);
}

/** The environment of one of the app's git calls (see spawnGit). */
function callEnv(opts: GitOptions): Record<string, string> {
  // Optional locks off: a background status must not take the index lock from the user's own git.
  // No editor or pager ever starts (nobody could use one; a repository's config could name any program).
  return { ...gitEnv(), ...opts.env, GIT_OPTIONAL_LOCKS: '0', GIT_EDITOR: ':', GIT_SEQUENCE_EDITOR: ':', GIT_PAGER: 'cat' };
}

/**
 * Where git is, the call's pinned environment (one for all its commands: the same cwd) and each
 * command's full argument list (config switches, safe settings, the command).
 */
async function prepared(commands: ReadonlyArray<readonly string[]>, opts: GitOptions): Promise<{ gitPath: string; env: Record<string, string>; fullArgs: string[][] }> {
  const base = callEnv(opts);
  // Resolved here: the descriptor-closing prelude would report a missing git as exit 127.
  const gitPath = resolveOnPath('git', base.PATH);
  if (!gitPath) throw gitNotInstalled();
  const { env, configArgs } = await pinned(commands.map((c) => c[0]), opts, gitPath, base);
  const fullArgs: string[][] = [];
  for (const [i, args] of commands.entries()) {
    // `git add` looks into the work tree of every nested repository the index tracks (a submodule)
    // with a git of its own, run with that repository's config and filters, and no option or config
    // stops it. So the app's `add` leaves them out: their pointers are the user's to stage.
    const run = args[0] === 'add' && args.includes('--') && indexMayHoldGitlinks(env) ? [...args, ...(await trackedNestedRepositories(gitPath, configArgs[i]!, env, opts))] : args;
    fullArgs.push([...configArgs[i]!, ...safeGitArgs(run)]);
  }
  return { gitPath, env, fullArgs };
}

async function timed<T>(exec: () => Promise<T>, t0: number, timing: GitCallTiming | null): Promise<T> {
  if (!timing) return exec();
  const t1 = performance.now();
  timing.pinMs = t1 - t0;
  try {
    return await exec();
  } finally {
    timing.execMs = performance.now() - t1;
  }
}

/** The index read whole up to this size for the look below; a bigger one is listed by git. */
const MAX_INDEX_SCAN_BYTES = 64 * 1024 * 1024;
/** A nested repository's entry has mode 0160000: these four bytes (big-endian) in its mode field. */
const GITLINK_MODE = Buffer.from([0x00, 0x00, 0xe0, 0x00]);

/**
 * Whether the index the call will use may track a nested repository, without starting a git:
 * an entry's mode is stored as these four bytes, so an index that holds them nowhere tracks none
 * (most repositories; a commit then needs no `ls-files`). Anything that cannot be looked at this
 * way — no pinned git dir, a relative GIT_INDEX_FILE, a split index whose entries live in a
 * shared file, an unreadable or huge index — answers true and git lists the entries.
 */
function indexMayHoldGitlinks(env: Record<string, string>): boolean {
  const gitDir = env.GIT_DIR;
  if (!gitDir || !isAbsolute(gitDir)) return true;
  // A relative GIT_INDEX_FILE is resolved by git after it moved to the top of the work tree: git lists it.
  const file = env.GIT_INDEX_FILE ?? join(gitDir, 'index');
  if (!isAbsolute(file)) return true;
  let bytes: Buffer;
  try {
    if (statSync(file).size > MAX_INDEX_SCAN_BYTES) return true;
    bytes = readFileNoWait(file);
  } catch (e) {
    // No index yet tracks nothing; anything else is git's to read.
    return (e as NodeJS.ErrnoException).code !== 'ENOENT';
  }
  // The split-index extension ("link") keeps entries in a sharedindex file: git lists them.
  return bytes.includes(GITLINK_MODE) || bytes.includes('link');
}

async function trackedNestedRepositories(gitPath: string, configArgs: string[], env: Record<string, string>, opts: GitOptions): Promise<string[]> {
  const listed = (await runExec(gitPath, [...configArgs, ...safeGitArgs(['ls-files', '--stage', '-z'])], env, opts, 'utf8', false)) as string;
  return listed
    .split('\0')
    .filter((entry) => entry.startsWith('160000 '))
    .map((entry) => `:(exclude,literal,top)${entry.slice(entry.indexOf('\t') + 1)}`);
}

function runExec(gitPath: string, fullArgs: string[], env: Record<string, string>, opts: GitOptions, encoding: 'utf8' | 'buffer', withExit: boolean): Promise<string | Buffer | { stdout: Buffer; exitCode: number }> {
  return execPrepared(cleanExec(gitPath, fullArgs), env, opts, encoding, withExit);
}

/**
 * `mark`: two commands (cleanExecThen): once the first succeeded, only what follows it on stderr
 * is the second's.
 *
 * Git runs in a process group of its own (platform/own-group.ts): a stop (a cancel, the time
 * limit, output past its limit) reaches whatever git started, and the call answers once git has
 * ended (its lock files removed), not when it was told to.
 */
async function execPrepared({ file, args: argv, mark }: { file: string; args: string[]; mark?: string }, env: Record<string, string>, opts: GitOptions, encoding: 'utf8' | 'buffer', withExit: boolean): Promise<string | Buffer | { stdout: Buffer; exitCode: number }> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;
  const maxBytes = opts.maxOutputBytes ?? MAX_GIT_OUTPUT_BYTES;
  const r = await runInOwnGroup(file, argv, { cwd: opts.cwd, env, timeoutMs, maxOutputBytes: maxBytes, ...(opts.signal ? { signal: opts.signal } : {}) });
  const { error, stoppedFor } = r;
  const stdout = encoding === 'utf8' ? r.stdout.toString('utf8') : r.stdout;
  const stderr = r.stderr.toString('utf8');
  // Stopped by the app: no exit code of git's, also when a shell reported the stop as 143.
  if (stoppedFor) {
    const said = stderr.trim().split('\n')[0];
    const message = stoppedFor === 'cancel' ? 'git was cancelled' : stoppedFor === 'overflow' ? `git printed more than ${formatBytes(maxBytes)}` : `git did not finish within ${timeoutMs} ms${said ? ` (${said})` : ''}`;
    throw new GitError(message, null, stderr, String(stdout), stoppedFor);
  }
  if (withExit && (!error || typeof error.code === 'number')) return { stdout: r.stdout, exitCode: error ? (error.code as number) : 0 };
  if (!error) return stdout;
  const code = error.code;
  if (code === 'ENOENT') {
    // spawn reports a missing working directory as ENOENT too: tell the two apart.
    throw existsSync(opts.cwd) ? gitNotInstalled() : new AppError('path_not_found', `The folder ${opts.cwd} does not exist (moved or deleted?).`);
  }
  if (code === 'EMFILE' || code === 'ENFILE') throw new GitError(`Flightdeck could not start git: too many files are open (${code}). Close some terminals or sessions and try again.`, null, '');
  // The working directory cannot be entered (spawn's chdir failed): say so, not "spawn git EACCES".
  if (code === 'EACCES' || code === 'EPERM') throw permissionDenied(opts.cwd);
  // Two commands (gitThen): once the first succeeded, only what the second wrote is its failure
  // (the first's warnings, a CRLF notice or an unreadable folder `git add` skipped, are not).
  const at = mark ? stderr.lastIndexOf(mark) : -1;
  const err = mark && at >= 0 ? stderr.slice(at + mark.length) : stderr;
  // Git itself was refused a file of the repository (an unreadable .git): the same problem, in git's words.
  if (/: permission denied\s*$/im.test(err)) throw permissionDenied(opts.cwd, err.split('\n').find((l) => /permission denied/i.test(l))?.trim());
  const exit = typeof code === 'number' ? code : null;
  throw new GitError((err || `git ${error.message}`).trim().split('\n')[0] ?? 'git failed', exit, err, String(stdout));
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${Math.round(n / 1024 / 1024)} MB` : `${Math.ceil(n / 1024)} KB`;
}

/** A folder (or a file in it) the operating system does not let Flightdeck read. */
export function permissionDenied(path: string, detail?: string): AppError {
  return new AppError(
    'permission_denied',
    `Flightdeck cannot read ${path}: permission denied${detail ? ` (${detail})` : ''}. Give your user read access to it (for example with chmod or chown).`,
    { path, reason: 'permission denied' },
  );
}

export function gitNotInstalled(): AppError {
  return new AppError('git_not_installed', 'Git is not installed or not on PATH. Install git (e.g. "apt-get install git") and try again.');
}
