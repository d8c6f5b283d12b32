/**
 * Preparing a new worktree the way the project's config says (`worktree:` in
 * `.flightdeck/config.yml`), so an agent's worktree can build and run like the user's checkout:
 * - `copy`: git-ignored files (`.env`, `.envrc`…) copied from the main checkout when the worktree
 *   has none. Only regular files are copied: a FIFO, socket or device is refused (reading one
 *   could hang or have side effects) and so is a symbolic link leading outside the repository.
 * - `ports`: each worktree gets its own `PORT` from the range, kept in the worktree's private git
 *   folder (`.git/worktrees/<name>/flightdeck-port`), so it survives restarts, is freed when git
 *   forgets the worktree, and is exported to its terminals, sessions and setup commands.
 * - `setup`: commands run one after another in the worktree, each in a terminal the user can
 *   watch live and stop; the first failure ends the setup.
 */
import { constants as fsConstants, existsSync, readFileSync, statSync, type Stats } from 'node:fs';
import { copyFile, lstat, mkdir, readdir, realpath, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { AppError, type TerminalOwner } from '../../src-preload/contract';
import { configPath, defaultConfig, loadConfig, type FeaturesConfig } from '../features/config';
import { isFeatureError } from '../features/errors';
import { git, gitBufferWithExit } from '../git/git';
import { locateRepository } from '../git/repo-location';
import { KeyedLock } from '../platform/keyed-lock';
import { span, spanSync } from '../platform/spans';
import { ignoredByFiles } from './ignore-rules';
import { recordSetupArtifacts, untrackedEntries } from './setup-artifacts';
import type { RunCommandOptions, RunCommandResult } from '../terminals/command-runner';

/** The file, in a worktree's private git folder, holding its port. */
export const PORT_FILE = 'flightdeck-port';
/** `npm ci` or a first build of a large project can take many minutes; past this a setup step is hung. */
export const SETUP_STEP_TIMEOUT_MS = 30 * 60_000;
/** Output of a setup step kept in the result (the terminal holds all of it). */
const SETUP_OUTPUT_CAP_BYTES = 16 * 1024;
/** Folders a copy pattern never descends into: git's own data and the other worktrees. */
const NEVER_SEARCHED = new Set(['.git', '.trees', 'node_modules']);

export interface WorktreePrepareConfig {
  setup: readonly string[];
  copy: readonly string[];
  ports: { start: number; end: number } | null;
}

// ---- copy ------------------------------------------------------------------------------------

/** `*` and `?` within one path segment, like a shell glob; everything else literal. */
export function segmentMatcher(segment: string): (name: string) => boolean {
  if (!/[*?]/.test(segment)) return (name) => name === segment;
  const re = new RegExp(`^${segment.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}$`);
  // A wildcard never matches a dot-file unless the pattern starts with a dot, like a shell.
  return (name) => re.test(name) && (segment.startsWith('.') || !name.startsWith('.'));
}

/** Why a copy pattern is refused, or null: patterns stay inside the repository. */
export function patternProblem(pattern: string): string | null {
  if (isAbsolute(pattern) || /^[A-Za-z]:/.test(pattern)) return 'must be a path relative to the repository';
  if (pattern.split(/[\\/]/).some((s) => s === '..')) return 'must not leave the repository (..)';
  if (pattern.includes('**')) return '** is not supported: name the folder, e.g. "config/.env"';
  return null;
}

/** Paths (relative, `/`-separated) in `root` matching a pattern; wildcards only within a segment. */
async function expand(root: string, pattern: string): Promise<string[]> {
  let found = [''];
  for (const segment of pattern.split(/[\\/]/).filter(Boolean)) {
    const next: string[] = [];
    const match = segmentMatcher(segment);
    for (const base of found) {
      if (!/[*?]/.test(segment)) {
        next.push(base ? `${base}/${segment}` : segment);
        continue;
      }
      const names = await readdir(join(root, base)).catch(() => [] as string[]); // Not a folder (or gone): no matches below it.
      for (const n of names) if (match(n) && !NEVER_SEARCHED.has(n)) next.push(base ? `${base}/${n}` : n);
    }
    found = next;
  }
  const present: string[] = [];
  for (const p of found) {
    // lstat: a link is found as itself (where it leads is judged when copying).
    if (p !== '' && (await lstat(join(root, p)).then(() => true, () => false))) present.push(p);
  }
  return present;
}

function inside(parent: string, child: string): boolean {
  const r = relative(parent, child);
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
}

/** Which of `paths` git ignores in `root` (tracked files are never reported as ignored). */
async function ignoredOf(root: string, paths: readonly string[]): Promise<Set<string>> {
  // A `.env` the repository's ignore file names and the index does not hold needs no git (ignore-rules.ts).
  const { ignored, unsure } = ignoredByFiles(root, paths);
  if (unsure.length === 0) return ignored;
  // Exit 1 means "none ignored"; the ignored paths come back one a line (-z needs --stdin). A
  // name with a newline is then not recognised, so it is left alone: the safe side.
  const { stdout, exitCode } = await gitBufferWithExit(['check-ignore', '--', ...unsure], { cwd: root });
  if (exitCode !== 0 && exitCode !== 1) throw new AppError('internal', `git check-ignore failed in ${root} (exit ${exitCode}).`);
  for (const p of stdout.toString('utf8').split('\n').filter(Boolean)) ignored.add(p);
  return ignored;
}

function kindOf(st: Stats): string | null {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isDirectory()) return 'a folder';
  return null;
}

export interface CopyResult {
  copied: string[];
  /** Matches not copied, with the reason (already there, not ignored by git, not a regular file, a link leaving the repository). */
  skipped: { path: string; reason: string }[];
}

/** What a copy takes from the main checkout alone: the matches, which git ignores, the refused patterns. */
export interface CopyPlan {
  root: string;
  matches: string[];
  ignored: Set<string>;
  refused: { path: string; reason: string }[];
}

/**
 * The main checkout's side of a copy (matching the patterns, one `check-ignore`): it needs no
 * worktree, so create reads it while git checks the worktree out (see WorktreeManager's
 * prepareEarly). The copy itself looks at each file again when it copies it.
 */
export async function planCopy(root: string, patterns: readonly string[]): Promise<CopyPlan> {
  const refused: CopyPlan['refused'] = [];
  const matches = new Set<string>();
  for (const pattern of patterns) {
    const problem = patternProblem(pattern);
    if (problem) {
      refused.push({ path: pattern, reason: `the pattern ${problem}` });
      continue;
    }
    for (const m of await expand(root, pattern)) matches.add(m);
  }
  return { root, matches: [...matches].sort(), ignored: await ignoredOf(root, [...matches]), refused };
}

/** Copies the git-ignored files matching `patterns` from the main checkout `root` into `worktree`, where absent. */
export async function copyIgnoredFiles(root: string, worktree: string, patterns: readonly string[], planned?: Promise<CopyPlan>): Promise<CopyResult> {
  const plan = (await planned?.then((p) => (p.root === root ? p : null))) ?? (await planCopy(root, patterns));
  const result: CopyResult = { copied: [], skipped: [...plan.refused] };
  const realRoot = await realpath(root);
  const realWorktree = await realpath(worktree);
  const ignored = plan.ignored;
  for (const rel of plan.matches) {
    const src = join(root, rel);
    const dest = join(worktree, rel);
    if (!ignored.has(rel)) {
      result.skipped.push({ path: rel, reason: 'not ignored by git (tracked files come with the checkout)' });
      continue;
    }
    if (await lstat(dest).then(() => true, () => false)) {
      result.skipped.push({ path: rel, reason: 'already in the worktree' });
      continue;
    }
    let st = await lstat(src);
    let from = src;
    if (st.isSymbolicLink()) {
      const target = await realpath(src).catch(() => null); // A dangling link has nothing to copy.
      if (!target) {
        result.skipped.push({ path: rel, reason: 'a symbolic link to nothing' });
        continue;
      }
      if (!inside(realRoot, target)) {
        result.skipped.push({ path: rel, reason: `a symbolic link to ${target}, outside the repository` });
        continue;
      }
      st = await stat(target);
      from = target;
    }
    const odd = kindOf(st);
    if (odd || !st.isFile()) {
      result.skipped.push({ path: rel, reason: `${odd ?? 'not a regular file'}: only regular files are copied` });
      continue;
    }
    await mkdir(dirname(dest), { recursive: true });
    // A folder on the way that is a link out of the worktree would put the copy elsewhere.
    if (!inside(realWorktree, await realpath(dirname(dest)))) {
      result.skipped.push({ path: rel, reason: 'its folder in the worktree leads outside it' });
      continue;
    }
    // COPYFILE_EXCL: a file that appeared meanwhile is never overwritten.
    await copyFile(from, dest, fsConstants.COPYFILE_EXCL);
    result.copied.push(rel);
  }
  return result;
}

// ---- ports -----------------------------------------------------------------------------------

const portLock = new KeyedLock();

async function gitDirs(worktree: string): Promise<{ own: string; common: string }> {
  // Where the app's git would look (./repo-location decides it for git too), without starting one.
  const loc = locateRepository(worktree);
  if (loc) return { own: loc.gitDir, common: loc.commonDir };
  const out = (await git(['rev-parse', '--path-format=absolute', '--absolute-git-dir', '--git-common-dir'], { cwd: worktree })).trim().split('\n');
  return { own: out[0]!.trim(), common: out[1]!.trim() };
}

function readPortFile(file: string): number | null {
  try {
    const n = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(n) && n > 0 && n < 65536 ? n : null;
  } catch {
    // No port assigned to that worktree (or its file is unreadable): it holds none.
    return null;
  }
}

/** The ports other worktrees of the repository hold. */
async function portsInUse(common: string, exceptGitDir: string): Promise<Set<number>> {
  const used = new Set<number>();
  const dir = join(common, 'worktrees');
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const gd = join(dir, name);
    if (gd === exceptGitDir) continue;
    const p = readPortFile(join(gd, PORT_FILE));
    if (p !== null) used.add(p);
  }
  return used;
}

/**
 * The worktree's port: the one it already holds when inside the range, else the lowest one of
 * the range no other worktree of the repository holds. Refused when all are taken.
 */
export async function assignPort(worktree: string, range: { start: number; end: number }): Promise<number> {
  const { own, common } = await gitDirs(worktree);
  if (own === common) throw new AppError('invalid_input', `${worktree} is the main checkout, not a worktree: ports are given to worktrees.`);
  return portLock.run(common, async () => {
    const file = join(own, PORT_FILE);
    const held = readPortFile(file);
    if (held !== null && held >= range.start && held <= range.end) return held;
    const used = await portsInUse(common, own);
    for (let p = range.start; p <= range.end; p++) {
      if (used.has(p)) continue;
      await writeFile(file, `${p}\n`);
      return p;
    }
    throw new AppError('conflict', `All ${range.end - range.start + 1} ports of worktree.ports (${range.start}-${range.end}) are held by other worktrees: widen the range or remove worktrees you no longer need.`);
  });
}

/**
 * The port of the worktree containing `dir`, or null (not in a worktree, or none assigned).
 * Synchronous and git-free (it only reads the `.git` file and the port file): it runs for every
 * terminal and agent command started.
 */
export function worktreePortOf(dir: string): number | null {
  for (let d = dir; ; d = dirname(d)) {
    const dotGit = join(d, '.git');
    let st;
    try {
      st = statSync(dotGit, { throwIfNoEntry: false });
    } catch {
      // An unreadable folder on the way up: treat it as no worktree.
      return null;
    }
    if (st?.isFile()) {
      let text: string;
      try {
        text = readFileSync(dotGit, 'utf8');
      } catch {
        // Unreadable .git file: no port can be known.
        return null;
      }
      const m = /^gitdir:\s*(.+)\s*$/m.exec(text);
      if (!m) return null;
      const gitDir = isAbsolute(m[1]!) ? m[1]! : join(d, m[1]!);
      return readPortFile(join(gitDir, PORT_FILE));
    }
    if (st) return null; // A `.git` folder: the main checkout.
    if (dirname(d) === d) return null;
  }
}

/** `{ PORT }` for a command or terminal started in `dir` when it is inside a worktree with a port. */
export function worktreeEnv(dir: string): Record<string, string> {
  const port = worktreePortOf(dir);
  return port === null ? {} : { PORT: String(port) };
}

// ---- setup -----------------------------------------------------------------------------------

export interface SetupRunner {
  runCommand(o: RunCommandOptions): Promise<RunCommandResult>;
}

export interface SetupStep {
  command: string;
  terminalId: string;
  exitCode: number | null;
  signal: string | null;
  cancelled: boolean;
  timedOut: boolean;
  durationMs: number;
  /** The end of its output (the terminal has all of it). */
  output: string;
}

export interface SetupResult {
  ok: boolean;
  steps: SetupStep[];
  /** The step that failed or was stopped, and the commands that therefore did not run. */
  failed: { command: string; reason: string; notRun: string[] } | null;
}

export async function runSetup(o: {
  worktree: string;
  commands: readonly string[];
  runner: SetupRunner;
  env?: Record<string, string>;
  signal?: AbortSignal;
  owner?: TerminalOwner;
  stepTimeoutMs?: number;
  onStart?: (command: string, terminalId: string) => void;
}): Promise<SetupResult> {
  const steps: SetupStep[] = [];
  for (let i = 0; i < o.commands.length; i++) {
    const command = o.commands[i]!;
    const notRun = o.commands.slice(i + 1);
    if (o.signal?.aborted) return { ok: false, steps, failed: { command, reason: 'the setup was cancelled', notRun: o.commands.slice(i) } };
    const r = await o.runner.runCommand({
      cwd: o.worktree,
      command,
      title: `setup: ${command}`,
      ...(o.env ? { env: o.env } : {}),
      ...(o.owner ? { owner: o.owner } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      timeoutMs: o.stepTimeoutMs ?? SETUP_STEP_TIMEOUT_MS,
      outputCapBytes: SETUP_OUTPUT_CAP_BYTES,
      // Nobody answers a setup command's prompt: it reads end-of-file instead of waiting.
      stdinClosed: true,
      onStart: (id) => o.onStart?.(command, id),
    });
    steps.push({ command, terminalId: r.terminalId, exitCode: r.exitCode, signal: r.signal, cancelled: r.cancelled, timedOut: r.timedOut, durationMs: r.durationMs, output: r.output });
    if (r.exitCode !== 0) {
      const reason = r.cancelled ? 'cancelled' : r.timedOut ? `stopped after ${Math.round((o.stepTimeoutMs ?? SETUP_STEP_TIMEOUT_MS) / 1000)} s` : r.signal ? `ended by ${r.signal}` : `exited with code ${r.exitCode}`;
      return { ok: false, steps, failed: { command, reason, notRun } };
    }
  }
  return { ok: true, steps, failed: null };
}

// ---- all together ----------------------------------------------------------------------------

export interface PrepareResult {
  copy: CopyResult;
  port: number | null;
  /** Null when the config has no setup commands or no runner was given. */
  setup: SetupResult | null;
  /** The project's config could not be read: nothing was prepared (the message names the file and line). */
  problem: string | null;
  /** What the repository's config asked for that was not done because the repository is untrusted ("worktree.setup (1 command) was not run"). */
  untrusted?: string[];
  /** Untracked files and folders the setup commands created and the repository does not ignore (kept out of commits and diffs). */
  setupArtifacts?: string[];
  /** The setup commands were handed to `startSetup`: they run after the worktree is usable (setup-service.ts). */
  setupStarted?: boolean;
}

/**
 * Starts the setup without waiting for it (setup-service.ts): its state is recorded at once, its
 * commands run once `env` is there (after the copies and the port); a rejected `env` ends it failed.
 */
export type StartSetup = (commands: readonly string[], env: Promise<Record<string, string>>) => void;

/**
 * Copy, then the port, then the setup commands (which see the copied files and the PORT). With
 * `startSetup` the commands are handed to it and not waited for: the worktree is usable at once.
 */
export async function prepareWorktree(o: {
  root: string;
  worktree: string;
  config: WorktreePrepareConfig;
  /** The copy's main-checkout side, read while the worktree was checked out (planCopy with config.copy). */
  copyPlan?: Promise<CopyPlan>;
  runner?: SetupRunner;
  startSetup?: StartSetup;
  signal?: AbortSignal;
  owner?: TerminalOwner;
  onSetupStart?: (command: string, terminalId: string) => void;
}): Promise<PrepareResult> {
  // The copy (one check-ignore and a few small files) and the port (a folder listing under a
  // lock) touch different things: done at once.
  const copying = span('worktree: copy', () => copyIgnoredFiles(o.root, o.worktree, o.config.copy, o.copyPlan));
  const porting = o.config.ports ? span('worktree: port', () => assignPort(o.worktree, o.config.ports!)) : Promise.resolve(null);
  const both = Promise.all([copying, porting]);
  if (o.startSetup && o.config.setup.length > 0) {
    // The setup's first state is recorded (a flushed file) while the copies and the port are
    // made; its commands wait for both (they see the copied files and PORT). A failed copy or
    // port fails create as before, and the setup reads as failed, not as never begun.
    const env = both.then(([, port]): Record<string, string> => (port !== null ? { PORT: String(port) } : {}));
    // Its failure is the setup's to report (and create's, through `both`); when startSetup refuses, no one else waits on it.
    env.catch(() => undefined);
    try {
      spanSync('worktree: setup start', () => o.startSetup!(o.config.setup, env));
    } catch (e) {
      // Refused (a setup of this worktree runs already, the app is stopping): the copies and the port still end first.
      await Promise.allSettled([both]);
      throw e;
    }
    const [copy, port] = await both;
    return { copy, port, setup: null, problem: null, setupStarted: true };
  }
  const [copy, port] = await both;
  let setup: SetupResult | null = null;
  let artifacts: string[] = [];
  if (o.runner && o.config.setup.length > 0) {
    // What setup creates (node_modules, .venv, a lockfile) is recorded so no commit or diff takes it.
    // A folder git cannot list (not a work tree) records nothing: there is no commit to keep clean.
    const before = await untrackedEntries(o.worktree).catch(() => null);
    setup = await runSetup({
      worktree: o.worktree,
      commands: o.config.setup,
      runner: o.runner,
      ...(port !== null ? { env: { PORT: String(port) } } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.owner ? { owner: o.owner } : {}),
      ...(o.onSetupStart ? { onStart: o.onSetupStart } : {}),
    });
    if (before) artifacts = await recordSetupArtifacts(o.worktree, before);
  }
  return { copy, port, setup, problem: null, ...(artifacts.length > 0 ? { setupArtifacts: artifacts } : {}) };
}

/** What the trust check makes of the project's config: the parts to use, and what was left out because the repository is untrusted. */
export type TrustedWorktreeConfig = (config: FeaturesConfig) => Promise<{ config: FeaturesConfig; skipped: readonly string[] }>;

/**
 * What every new worktree gets: the project's `worktree:` config when `.flightdeck/config.yml`
 * exists, else the defaults (the usual env files copied, no ports, no setup). The config passes
 * the repository's trust check first (`trusted`): an untrusted repository's setup commands never
 * run and its copy list is the default one. A config that does not load prepares nothing and
 * says why; the worktree itself is fine.
 */
export async function prepareNewWorktree(o: { root: string; worktree: string; trusted: TrustedWorktreeConfig; early?: Promise<EarlyPrepare> | null; runner?: SetupRunner; startSetup?: StartSetup; owner?: TerminalOwner; signal?: AbortSignal }): Promise<PrepareResult> {
  let config: WorktreePrepareConfig;
  let skipped: readonly string[] = [];
  let copyPlan: Promise<CopyPlan>;
  try {
    // Read while git checked the worktree out (earlyPrepare), else now.
    const early = (await o.early?.then((e) => (e.root === o.root ? e : null))) ?? (await earlyPrepare(o.root, o.trusted));
    ({ config, skipped, copyPlan } = await early.trusted);
  } catch (e) {
    if (!isFeatureError(e)) throw e;
    return { copy: { copied: [], skipped: [] }, port: null, setup: null, problem: `${e.kind} error: ${e.message}`, untrusted: [] };
  }
  const r = await prepareWorktree({ root: o.root, worktree: o.worktree, config, copyPlan, ...(o.runner ? { runner: o.runner } : {}), ...(o.startSetup ? { startSetup: o.startSetup } : {}), ...(o.owner ? { owner: o.owner } : {}), ...(o.signal ? { signal: o.signal } : {}) });
  return { ...r, untrusted: [...skipped] };
}

/** What preparing a worktree reads from the main checkout alone: the trusted config and the copy's plan. */
export interface EarlyPrepare {
  root: string;
  /** Rejects with the config's FeatureError when it does not load. */
  trusted: Promise<{ config: WorktreePrepareConfig; skipped: readonly string[]; copyPlan: Promise<CopyPlan> }>;
}

/**
 * Starts reading what prepareNewWorktree needs from the main checkout (the config through the
 * trust check, the copy's matches and their check-ignore), so create can do it while git checks
 * the worktree out. Never rejects itself: a failure is kept for prepareNewWorktree to report.
 */
export function earlyPrepare(root: string, trusted: TrustedWorktreeConfig): Promise<EarlyPrepare> {
  const read = trustedWorktreeConfig(root, trusted).then((t) => {
    const copyPlan = planCopy(root, t.config.copy);
    // Awaited by the copy; a failure here is reported there (nothing waits on it before).
    copyPlan.catch(() => undefined);
    return { ...t, copyPlan };
  });
  // Awaited by prepareNewWorktree, which reports a broken config; create may fail before that.
  read.catch(() => undefined);
  return Promise.resolve({ root, trusted: read });
}

/** The project's `worktree:` config as the trust check leaves it (the defaults without a config file); a broken config throws its FeatureError. */
export async function trustedWorktreeConfig(root: string, trusted: TrustedWorktreeConfig): Promise<{ config: WorktreePrepareConfig; skipped: readonly string[] }> {
  const t = await trusted(existsSync(configPath(root)) ? await loadConfig(root) : defaultConfig());
  return { config: t.config.worktree, skipped: t.skipped };
}
