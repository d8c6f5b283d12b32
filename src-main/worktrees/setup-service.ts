/**
 * A worktree's setup (`worktree.setup` of a trusted repository: `npm ci`, a first build) runs
 * after the worktree is made, so the worktree is usable at once: a user's session may start in
 * it while setup runs, and the callers that need setup finished (a feature run's first agent
 * turn and checks, candidates, the mailbox's tasks, the CLI before it exits) wait for it.
 *
 * Its state (pending → running → done, failed, cancelled) is kept in the worktree's private git
 * folder (`.git/worktrees/<name>/flightdeck-setup.json`, beside its port): it goes with the
 * worktree, the CLI reads it without the app, and a setup whose process ended before it finished
 * (a restart, a crash) reads as `interrupted` instead of running forever. An agent can write that
 * folder, so the file is parsed against the contract's schema and decides nothing about what runs:
 * a re-run takes its commands from the repository's config through the trust check, never from
 * the file. What it does decide is whether a caller waits (a feature run, candidates, the mailbox,
 * the CLI) and whether an `interrupted` setup is run again: its owner counts as running only when
 * it is exactly a live process's `pid@start`, and a wait for another process's setup ends when the
 * file has not changed for longer than any one command may run (see `foreignStallMs`).
 *
 * A failed, cancelled or interrupted setup can be run again: with the repository's setup as the
 * trust check allows it now (an untrusted repository's never runs).
 */
import { lstatSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { AppError, WorktreeSetup, type TerminalOwner } from '../../src-preload/contract';
import { locateRepository } from '../git/repo-location';
import { writeFileAtomic } from '../platform/atomic-file';
import type { Logger } from '../platform/logger';
import { ownerAlive, processStartTicks, selfIdentity } from '../platform/process-identity';
import { readFileNoWait } from '../platform/read-no-wait';
import { spanSync } from '../platform/spans';
import { recordSetupArtifacts, untrackedEntries } from './setup-artifacts';
import { runSetup, SETUP_STEP_TIMEOUT_MS, worktreePortOf, type SetupResult, type SetupRunner } from './worktree-prepare';

/** The file, in a worktree's private git folder, holding its setup's state. */
export const SETUP_STATE_FILE = 'flightdeck-setup.json';
/** A state file larger than this was not written by Flightdeck for any real setup (a few commands of a few hundred characters). */
const STATE_FILE_MAX_BYTES = 4 * 1024 * 1024;
/**
 * How often a wait for a setup another process runs (the app's, seen from the CLI, or the other
 * way round) reads its state file again: setups take seconds to minutes, and a read is one small file.
 */
const FOREIGN_POLL_MS = 500;
/** How long past a command's time limit another process may leave its setup's state unchanged (it writes the end when the limit stops the command). */
const FOREIGN_STALL_GRACE_MS = 60_000;

interface Job {
  root: string;
  path: string;
  setup: WorktreeSetup;
  controller: AbortController;
  /** Why it was aborted: a cancel by the user, or the service stopping (then it reads as interrupted). */
  abortedFor: 'cancel' | 'dispose' | null;
  done: Promise<WorktreeSetup>;
  service: WorktreeSetupService;
}

/** The setups this process runs, by the worktree's real path (every service of the process sees them: tests run several apps in one). */
const running = new Map<string, Job>();

function realOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    // Gone: its setup (if any) is looked up under the path as given.
    return path;
  }
}

function stateFile(worktree: string): string | null {
  // The admin dir the app's git would use (./repo-location decides it for git too); a main
  // checkout (its git dir is the common one) has no setup of its own.
  let loc;
  try {
    loc = locateRepository(worktree);
  } catch {
    // A .git file git's records do not confirm: no state is read from or written to where it points.
    return null;
  }
  if (!loc || loc.gitDir === loc.commonDir) return null;
  return join(loc.gitDir, SETUP_STATE_FILE);
}

interface StoredState extends WorktreeSetup {
  version: 1;
  ownerPid: number;
  ownerId: string;
}

function readStored(file: string): StoredState | null {
  try {
    const st = lstatSync(file);
    if (!st.isFile() || st.size > STATE_FILE_MAX_BYTES) return null;
    const raw = JSON.parse(readFileNoWait(file, 'utf8')) as { version?: unknown; ownerPid?: unknown; ownerId?: unknown };
    const setup = WorktreeSetup.safeParse(raw);
    // A pid of 0 or below names a process group, not the owner (signal 0 to it always succeeds).
    if (!setup.success || raw.version !== 1 || !Number.isSafeInteger(raw.ownerPid) || (raw.ownerPid as number) <= 0 || typeof raw.ownerId !== 'string') return null;
    return { ...setup.data, version: 1, ownerPid: raw.ownerPid as number, ownerId: raw.ownerId };
  } catch {
    // No setup ran here (no file), or the file is not one Flightdeck wrote: nothing to show.
    return null;
  }
}

/**
 * The worktree's setup state as this process knows it or its file says; a setup left pending or
 * running by a process that is gone (or by this one, which no longer runs it) is `interrupted`.
 * Null when no setup ran in it.
 */
export function worktreeSetupStatus(worktree: string): WorktreeSetup | null {
  const job = running.get(realOf(worktree));
  if (job) return job.setup;
  const file = stateFile(worktree);
  const stored = file ? readStored(file) : null;
  if (!stored) return null;
  const { version: _v, ownerPid, ownerId, ...setup } = stored;
  if (setup.state !== 'pending' && setup.state !== 'running') return setup;
  const ownerRuns = ownerPid === process.pid ? false : foreignOwnerRuns(ownerPid, ownerId);
  return ownerRuns ? setup : interrupted(setup, 'Flightdeck stopped before the setup finished');
}

/**
 * Whether the process a state file names as its setup's owner still runs. The file can be forged,
 * so where /proc tells a process's start the identity must be exactly that live process's
 * `pid@start` (ownerAlive alone takes any live pid with an identity it cannot parse).
 */
function foreignOwnerRuns(pid: number, id: string): boolean {
  const start = processStartTicks(pid);
  if (start !== null && id !== `${pid}@${start}`) return false;
  return ownerAlive(pid, id);
}

function interrupted(setup: WorktreeSetup, reason: string): WorktreeSetup {
  return { ...setup, state: 'interrupted', terminalId: null, failed: setup.failed ?? { command: setup.commands[setup.step] ?? '', exitCode: null, reason } };
}

/** The setup's outcome in words when it did not finish well, null when it did (or none ran). */
export function setupProblem(s: WorktreeSetup | null): string | null {
  if (!s || s.state === 'done') return null;
  if (s.state === 'pending' || s.state === 'running') return `the worktree's setup is still running (\`${s.commands[s.step] ?? ''}\`)`;
  const f = s.failed;
  const at = f ? ` at \`${f.command}\`` : '';
  if (s.state === 'cancelled') return `the worktree's setup was cancelled${at}`;
  if (s.state === 'interrupted') return `the worktree's setup was interrupted${at} (Flightdeck stopped before it finished)`;
  return `the worktree's setup failed${at}: ${f?.reason ?? 'it did not finish'}`;
}

/** What the repository's config gives as setup now, after the trust check; a refusal says why in words. */
export type SetupCommandsOf = (root: string) => Promise<{ commands: readonly string[]; refused: string | null }>;

export interface WorktreeSetupServiceOptions {
  runner: SetupRunner;
  /** Who the setup's terminals belong to (the project, the worktree, phase `setup`). */
  owner: (root: string, worktree: string) => TerminalOwner;
  commandsOf: SetupCommandsOf;
  /** Called on every change of a setup's state (start, next command, end). */
  onChange?: (root: string, worktree: string, setup: WorktreeSetup) => void;
  logger?: Pick<Logger, 'warn'>;
  stepTimeoutMs?: number;
  /**
   * A wait for a setup another process runs ends (as interrupted) when its state file has not
   * changed for this long: its owner writes each command's start and the end, and a command
   * is stopped at its time limit. Default: the time limit and a minute.
   */
  foreignStallMs?: number;
}

export class WorktreeSetupService {
  private disposed = false;

  constructor(private readonly o: WorktreeSetupServiceOptions) {}

  start(): void {
    this.disposed = false;
  }

  /** Stops the setups this service runs; each reads as interrupted (and can be run again) afterwards. */
  dispose(): void {
    this.disposed = true;
    for (const job of running.values()) {
      if (job.service !== this) continue;
      job.abortedFor = 'dispose';
      job.controller.abort();
      // Written now: the run's own end comes after the event log and terminals have stopped.
      this.save(job, { ...job.setup, state: 'interrupted', terminalId: null, endedAt: Date.now(), failed: { command: job.setup.commands[job.setup.step] ?? '', exitCode: null, reason: 'Flightdeck stopped before the setup finished' } }, true);
      running.delete(job.path);
    }
  }

  status(worktree: string): WorktreeSetup | null {
    return worktreeSetupStatus(worktree);
  }

  /**
   * Starts the setup of a worktree made (or prepared) just now and returns at once: its state is
   * `pending` until its first command starts. Refused while a setup of that worktree runs.
   */
  begin(root: string, worktree: string, commands: readonly string[], env: Record<string, string> | Promise<Record<string, string>>): WorktreeSetup {
    if (this.disposed) throw new AppError('unavailable', 'Flightdeck is stopping: the setup was not started.');
    const path = realOf(worktree);
    if (running.has(path)) throw new AppError('conflict', `The setup of ${path} is running already: wait for it or cancel it first.`, { path });
    if (commands.length === 0) throw new AppError('invalid_input', 'There are no setup commands to run.');
    const setup: WorktreeSetup = { state: 'pending', commands: [...commands], step: 0, terminalId: null, failed: null, startedAt: Date.now(), endedAt: null };
    let resolve!: (s: WorktreeSetup) => void;
    const done = new Promise<WorktreeSetup>((r) => (resolve = r));
    const job: Job = { root, path, setup, controller: new AbortController(), abortedFor: null, done, service: this };
    running.set(path, job);
    this.save(job, setup);
    void this.run(job, env).then(resolve, (e: unknown) => {
      // runSetup reports a command's failure as its result; this is the sandbox or the terminals refusing.
      const failed: WorktreeSetup = { ...job.setup, state: 'failed', terminalId: null, endedAt: Date.now(), failed: { command: job.setup.commands[job.setup.step] ?? '', exitCode: null, reason: e instanceof Error ? e.message : String(e) } };
      this.end(job, failed);
      resolve(failed);
    });
    return setup;
  }

  /** Runs the worktree's setup again, with the repository's setup commands as its trust allows now. */
  async rerun(root: string, worktree: string): Promise<WorktreeSetup> {
    const current = this.status(worktree);
    if (current && (current.state === 'pending' || current.state === 'running')) throw new AppError('conflict', `The setup of ${worktree} is still running: wait for it or cancel it first.`, { path: worktree });
    if (!stateFile(worktree)) throw new AppError('invalid_input', `${worktree} is not a worktree: setup runs in worktrees only.`, { path: worktree });
    const { commands, refused } = await this.o.commandsOf(root);
    if (refused) throw new AppError('conflict', `The setup was not run: ${refused}`, { path: worktree });
    if (commands.length === 0) throw new AppError('invalid_input', `The repository's config has no worktree.setup commands (any more): there is nothing to run.`, { path: worktree });
    const port = worktreePortOf(worktree);
    return this.begin(root, worktree, commands, port === null ? {} : { PORT: String(port) });
  }

  /** Stops the worktree's running setup; false when none runs here. */
  cancel(worktree: string): boolean {
    const job = running.get(realOf(worktree));
    if (!job || job.service !== this) return false;
    job.abortedFor = 'cancel';
    job.controller.abort();
    return true;
  }

  /**
   * Waits for the worktree's setup to end and returns how it ended (null when none ran). A setup
   * another process runs is followed through its state file. `signal` ends the wait only.
   */
  async wait(worktree: string, signal?: AbortSignal): Promise<WorktreeSetup | null> {
    const aborted = new Promise<null>((r) => {
      if (signal?.aborted) r(null);
      signal?.addEventListener('abort', () => r(null), { once: true });
    });
    const stallMs = this.o.foreignStallMs ?? (this.o.stepTimeoutMs ?? SETUP_STEP_TIMEOUT_MS) + FOREIGN_STALL_GRACE_MS;
    let seen = '';
    let since = Date.now();
    for (;;) {
      const job = running.get(realOf(worktree));
      if (job) return (await Promise.race([job.done, aborted])) ?? this.status(worktree);
      const s = this.status(worktree);
      if (!s || (s.state !== 'pending' && s.state !== 'running')) return s;
      // Measured here, not from the file's times (which its writer chose).
      const now = JSON.stringify(s);
      if (now !== seen) [seen, since] = [now, Date.now()];
      else if (Date.now() - since > stallMs) return interrupted(s, `the process running it left its state unchanged for ${Math.round(stallMs / 1000)} s`);
      const tick = new Promise<boolean>((r) => setTimeout(() => r(true), FOREIGN_POLL_MS));
      if ((await Promise.race([tick, aborted])) === null) return this.status(worktree);
    }
  }

  private async run(job: Job, envReady: Record<string, string> | Promise<Record<string, string>>): Promise<WorktreeSetup> {
    let env: Record<string, string>;
    try {
      // What the worktree is prepared with (its copies, its PORT) is done before the first command.
      env = await envReady;
    } catch (e) {
      throw new Error(`it did not start: preparing the worktree failed (${e instanceof Error ? e.message : String(e)})`);
    }
    // Not in create's time: its first git (the untracked listing) starts once create has returned.
    await new Promise((r) => setImmediate(r));
    // What setup creates (node_modules, .venv, a lockfile) is recorded so no commit or diff takes
    // it. A folder git cannot list (not a work tree) records nothing: there is no commit to keep clean.
    const before = await untrackedEntries(job.path).catch(() => null);
    let step = -1;
    const result: SetupResult = await runSetup({
      worktree: job.path,
      commands: job.setup.commands,
      runner: this.o.runner,
      env,
      signal: job.controller.signal,
      owner: this.o.owner(job.root, job.path),
      ...(this.o.stepTimeoutMs !== undefined ? { stepTimeoutMs: this.o.stepTimeoutMs } : {}),
      onStart: (_command, terminalId) => {
        step += 1;
        if (running.get(job.path) === job) this.save(job, { ...job.setup, state: 'running', step, terminalId });
      },
    });
    if (before) {
      await recordSetupArtifacts(job.path, before).catch((e: unknown) => {
        // The worktree went away meanwhile (removed by the user): there is nothing to keep clean.
        this.o.logger?.warn('could not record what the worktree setup created', { path: job.path, error: e });
      });
    }
    const last = result.steps[result.steps.length - 1];
    // The last step ran and failed, or (stopped between two) the next one never started.
    const lastFailed = last !== undefined && last.exitCode !== 0;
    const failedAt = Math.min(lastFailed ? result.steps.length - 1 : result.steps.length, job.setup.commands.length - 1);
    const end: WorktreeSetup = result.ok
      ? { ...job.setup, state: 'done', endedAt: Date.now(), failed: null }
      : {
          ...job.setup,
          state: job.abortedFor === 'dispose' ? 'interrupted' : job.abortedFor === 'cancel' || last?.cancelled ? 'cancelled' : 'failed',
          step: failedAt,
          endedAt: Date.now(),
          failed: { command: result.failed?.command ?? '', exitCode: lastFailed && !last.cancelled && !last.timedOut ? last.exitCode : null, reason: result.failed?.reason ?? 'it did not finish' },
        };
    this.end(job, end);
    return end;
  }

  private end(job: Job, setup: WorktreeSetup): void {
    // After dispose the interrupted state is written already; the aborted run's end changes nothing.
    if (running.get(job.path) !== job) return;
    this.save(job, setup);
    running.delete(job.path);
  }

  private save(job: Job, setup: WorktreeSetup, quiet = false): void {
    job.setup = setup;
    const file = stateFile(job.path);
    if (file) {
      try {
        const stored: StoredState = { ...setup, version: 1, ownerPid: process.pid, ownerId: selfIdentity() };
        // Rewritten at each command: the previous state is a valid one to come back to after a power loss.
        spanSync('worktree: setup record', () => writeFileAtomic(file, JSON.stringify(stored) + '\n', { mode: 0o644, syncFolder: false }));
      } catch (e) {
        // The worktree was removed while its setup ran: the state lives on in this process until it ends.
        this.o.logger?.warn('could not write the worktree setup state', { path: job.path, error: e });
      }
    }
    if (!quiet || !this.disposed) this.o.onChange?.(job.root, job.path, setup);
  }
}
