/**
 * The autopilot service: starts runs in new worktrees, drives them in the background, answers
 * pause / resume / cancel / a blocked step's answer, and reconciles runs left behind by a
 * process that died (they become paused and resume from their saved state).
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import { AppError, AutopilotStartInput, type AutopilotIteration, type AutopilotPlanView, type AutopilotRun } from '../../src-preload/contract';
import type { EventHub } from '../bridge/event-hub';
import { loadConfig } from '../features/config';
import type { RepositoryTemplatesPolicy } from '../features/templates';
import { ownerAlive, selfIdentity } from '../platform/process-identity';
import { GroupRecords, reapOrphanedGroups } from '../platform/process-groups';
import { ChildProcessRunner, type CommandRunner } from '../agents/tools/command-runner';
import { DEFAULT_NETWORK, type NetworkPolicy } from '../sandbox/policy';
import { SandboxedRunner } from '../sandbox/sandboxed-runner';
import type { AcceptanceTarget } from './acceptance';
import { watchedTarget, type AcceptanceViewOptions } from './acceptance-view';
import type { Logger } from '../platform/logger';
import type { ProjectService } from '../projects/project-service';
import type { Database } from '../store/db';
import { DEFAULT_BRANCH_PREFIX, WorktreeManager } from '../worktrees/worktree-manager';
import { AutopilotAgent, type DriverLike } from './agent';
import { formatProblem, parsePlan, readSteps, unblock, validatePlan } from './plan';
import { AutopilotPrompts } from './prompts';
import { ensureRunDir, logFileName, readStateFile, writeStateFile } from './run-files';
import { publicRun, RunStore, type RunRecord } from './run-store';
import { AutopilotRunner } from './runner';
import { initialState, transition, type RunState } from './state';
import { readPlan, writePlan } from './workspace';

export interface AutopilotServiceOptions {
  db: Database;
  hub: EventHub;
  projects: ProjectService;
  /** The app's worktree manager (its branch prefix is used when the project sets none). */
  worktrees: WorktreeManager;
  /** The one way capabilities drive an agent session (both executors). */
  driver: () => DriverLike;
  dataDir: string;
  logger: Logger;
  /** The runner of a session placed in a container (its acceptance runs there too), or null for one on the host. */
  placement?: (sessionId: string) => CommandRunner | null;
  /** Network for sandboxed commands (Settings → Agents), the same the agent's commands get. */
  sandboxNetwork?: () => NetworkPolicy;
  /** Whether a repository's own prompt templates are used (workspace trust); absent: never. */
  repositoryTemplates?: RepositoryTemplatesPolicy;
  /** Where the acceptance command's output is shown live (a terminal following its log); absent: not shown. */
  terminals?: AcceptanceViewOptions['terminals'];
}

export type RunListener = (run: AutopilotRun, iteration: AutopilotIteration | null) => void;

function newRunId(): string {
  return `ap-${randomBytes(5).toString('hex')}`;
}

export class AutopilotService {
  readonly store: RunStore;
  private readonly active = new Map<string, { runner: AutopilotRunner; done: Promise<RunRecord> }>();
  private readonly listeners = new Set<RunListener>();
  private disposed = false;
  /** Acceptance commands on this host, recorded while they run (see reapAcceptances). */
  private readonly acceptanceRecords: string;
  private readonly hostRunner: CommandRunner;

  constructor(private readonly o: AutopilotServiceOptions) {
    this.store = new RunStore(o.db);
    this.acceptanceRecords = join(o.dataDir, 'run', 'autopilot-acceptance');
    const recorded = new ChildProcessRunner({ dir: new GroupRecords(this.acceptanceRecords), kind: 'acceptance' });
    // Flightdeck's data folder (stored keys, the database) is hidden from acceptance commands as from agents'.
    this.hostRunner = new SandboxedRunner(() => recorded, {}, [
      { path: o.dataDir, kind: 'dir' },
      { path: join(o.dataDir, 'secrets.json'), kind: 'file' },
    ]);
  }

  /**
   * Ends acceptance commands left running by a process of this data folder that died while
   * they ran (SIGKILL, a crash: the command was reparented to init and would go on, and a resume
   * would start a second one). Each is recorded with its owner while it runs; those of a live
   * owner (another Flightdeck process driving its run) are left alone.
   */
  private reapAcceptances(): void {
    try {
      const ended = reapOrphanedGroups(this.acceptanceRecords);
      if (ended.length > 0) this.o.logger.warn('ended acceptance commands left running by a Flightdeck process that died', { pids: ended.map((r) => r.pid) });
    } catch (e) {
      this.o.logger.warn('could not read the records of earlier acceptance commands', { error: e });
    }
  }

  /** Where a run's acceptance command runs, with its output streamed to a terminal the user can open. */
  private acceptanceTarget(r: RunRecord): AcceptanceTarget {
    const target = this.placeAcceptance(r);
    if (!this.o.terminals) return target;
    const owner = { worktreePath: r.worktree, ...(r.sessionId ? { sessionId: r.sessionId } : {}), ...(r.projectId ? { projectId: r.projectId } : {}) };
    return watchedTarget(target, { terminals: this.o.terminals, logFile: join(this.o.dataDir, 'run', 'autopilot-acceptance-output', `${r.id}.log`), owner });
  }

  /** Where a run's acceptance command runs: its session's container, else this host's sandbox, or unconfined when the user chose so for the run. */
  private placeAcceptance(r: RunRecord): AcceptanceTarget {
    const network = this.o.sandboxNetwork?.() ?? DEFAULT_NETWORK;
    if (r.options.acceptanceUnsandboxed) return { place: 'host-unsandboxed', runner: this.hostRunner, sandbox: { mode: 'danger-full-access', root: r.worktree, network } };
    const owner = r.sessionId ? { sessionId: r.sessionId, ...(r.projectId ? { projectId: r.projectId } : {}) } : undefined;
    const placed = r.sessionId ? (this.o.placement?.(r.sessionId) ?? null) : null;
    if (placed) return { place: 'container', runner: placed, sandbox: { mode: 'workspace-write', root: r.worktree, network }, ...(owner ? { owner } : {}), marker: `.flightdeck-acceptance-${r.id}` };
    return { place: 'sandbox', runner: this.hostRunner, sandbox: { mode: 'workspace-write', root: r.worktree, network }, ...(owner ? { owner } : {}) };
  }

  /** Runs marked running by a process that is gone (killed, crashed) become paused, resumable from their state. */
  start(): void {
    this.disposed = false;
    this.reapAcceptances();
    for (const r of this.store.list()) {
      if (r.status !== 'running') continue;
      if (r.ownerPid !== null && ownerAlive(r.ownerPid, r.ownerId)) continue;
      this.reconcile(r);
      this.store.saveState(r.id, this.savedState(r), 'paused', `Interrupted in ${r.state.phase}: the process driving the run stopped. Resume to continue from this state.`);
      this.store.setOwner(r.id, null, null);
    }
  }

  /** Stops driving (the app is closing): runs in progress are left paused, resumable by the next start. */
  dispose(): void {
    if (this.disposed) return;
    for (const id of [...this.active.keys()]) this.interrupt(id, 'Flightdeck closed');
    this.disposed = true;
  }

  /**
   * Stops driving a run at once without ending it (Ctrl-C in the terminal, the app closing): the
   * agent turn or acceptance command in progress is stopped, and the run is left paused in the
   * state it was in, to be resumed from there.
   */
  interrupt(runId: string, why: string): AutopilotRun {
    const a = this.active.get(runId);
    if (a) {
      a.runner.halt();
      this.active.delete(runId);
      const r = this.record(runId);
      if (r.status === 'running') this.store.saveState(runId, this.savedState(r), 'paused', `Interrupted in ${r.state.phase}: ${why}. Resume to continue from this state.`);
      this.store.setOwner(runId, null, null);
      this.emit(publicRun(this.record(runId)), null);
    }
    return publicRun(this.record(runId));
  }

  /** Every persisted change of any run this process drives. Returns the unsubscribe. */
  onChange(listener: RunListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  list(projectId?: string): AutopilotRun[] {
    return this.store.list(projectId).map(publicRun);
  }

  private record(runId: string): RunRecord {
    const r = this.store.get(runId);
    if (!r) throw new AppError('not_found', `There is no autopilot run ${runId}.`, { runId });
    return r;
  }

  async get(runId: string): Promise<{ run: AutopilotRun; plan: AutopilotPlanView | null; iterations: AutopilotIteration[] }> {
    const r = this.record(runId);
    let plan: AutopilotPlanView | null = null;
    let text: string | null = null;
    try {
      text = existsSync(r.worktree) ? await readPlan(r.worktree) : null;
    } catch (e) {
      // Oversized or a link: the run is still shown, with why its plan is not.
      if (!(e instanceof AppError)) throw e;
      plan = { text: '', problems: [{ line: 1, message: e.message }], next: null, backlog: [], done: [], blocked: [] };
    }
    if (text !== null) {
      const doc = parsePlan(text);
      const steps = readSteps(doc);
      plan = { text, problems: validatePlan(doc), next: steps.next ?? null, backlog: steps.backlog, done: steps.done, blocked: steps.blocked };
    }
    return { run: publicRun(r), plan, iterations: this.store.iterations(runId) };
  }

  /** The worktree's state.json wins over the database (it is written first); a missing one falls back to the row. */
  private savedState(r: RunRecord): RunState {
    if (!existsSync(r.worktree)) return r.state;
    return readStateFile(r.worktree) ?? r.state;
  }

  private reconcile(r: RunRecord): RunRecord {
    const state = this.savedState(r);
    if (JSON.stringify(state) !== JSON.stringify(r.state)) this.store.saveState(r.id, state, r.status, r.message);
    return { ...r, state };
  }

  async startRun(raw: unknown): Promise<AutopilotRun> {
    const parsed = AutopilotStartInput.safeParse(raw);
    if (!parsed.success) {
      const what = parsed.error.issues.map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`).join('; ');
      throw new AppError('invalid_input', `The run cannot start: ${what}`);
    }
    const input = parsed.data;
    const projects = this.o.projects.list();
    let dir = input.repo;
    if (input.projectId) dir = this.o.projects.get(input.projectId).path;
    if (!dir) throw new AppError('invalid_input', 'Give the repository to run in.');
    const absolute = resolve(dir);
    if (!existsSync(absolute) || !statSync(absolute).isDirectory()) throw new AppError('path_not_found', `The folder ${absolute} does not exist.`, { path: absolute });
    const root = await this.o.worktrees.repoRoot(absolute);
    for (const f of input.seedFiles) {
      const p = isAbsolute(f) ? f : join(root, f);
      const rel = relative(root, p);
      if (rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) throw new AppError('invalid_input', `The seed file ${f} is outside the repository ${root}.`);
      if (!existsSync(p)) throw new AppError('path_not_found', `The seed file ${f} does not exist in ${root}.`, { path: p });
    }
    // The project's own branch prefix and base branch (`.flightdeck/config.yml`), else the app's.
    let manager = this.o.worktrees;
    let base: string | undefined;
    try {
      const cfg = await loadConfig(root);
      manager = new WorktreeManager({ branchPrefix: cfg.git.branch_prefix ?? DEFAULT_BRANCH_PREFIX, baseBranch: cfg.git.base_branch });
      if (cfg.git.base_branch !== 'auto') base = cfg.git.base_branch;
    } catch (e) {
      // No features config (the usual case outside features) keeps the defaults; a broken one is the user's to fix.
      if (!(e instanceof Error) || !/no features config/.test(e.message)) throw e;
    }
    const id = newRunId();
    const created = await manager.create(root, `autopilot-${id.slice(3)}`, base ? { base } : {});
    const worktree = created.entry.path;
    const now = new Date();
    const state = initialState({ maxIters: input.maxIters, maxFixAttemptsPerStep: input.maxFixAttempts });
    ensureRunDir(worktree);
    writeStateFile(worktree, state);
    const rec: Omit<RunRecord, 'costUsd' | 'updatedAt' | 'control'> = {
      id,
      projectId: projects.find((p) => p.path === root)?.id ?? input.projectId ?? null,
      repo: root,
      worktree,
      branch: created.entry.branch ?? manager.branchFor(`autopilot-${id.slice(3)}`),
      goal: input.goal,
      testCmd: input.testCmd,
      options: {
        seedFiles: input.seedFiles.map((f) => (isAbsolute(f) ? relative(root, f) : f)),
        executor: input.executor,
        profile: input.profile,
        commit: input.commit,
        compactEvery: input.compactEvery,
        acceptanceTimeoutMs: input.acceptanceTimeoutS * 1000,
        acceptanceUnsandboxed: input.acceptanceUnsandboxed,
        logFile: logFileName(now),
      },
      status: 'running',
      message: null,
      state,
      sessionId: null,
      ownerPid: null,
      ownerId: null,
      createdAt: now.getTime(),
    };
    this.store.insert(rec);
    this.o.logger.info('autopilot run started', { run: id, worktree, branch: rec.branch });
    return publicRun(this.launch(this.record(id)));
  }

  /** Resolves when the run stops or pauses (the CLI waits on it). */
  async wait(runId: string): Promise<AutopilotRun> {
    const a = this.active.get(runId);
    if (a) return publicRun(await a.done);
    return publicRun(this.record(runId));
  }

  isDriving(runId: string): boolean {
    return this.active.has(runId);
  }

  private drivenElsewhere(r: RunRecord): boolean {
    return !this.active.has(r.id) && r.status === 'running' && r.ownerPid !== null && r.ownerPid !== process.pid && ownerAlive(r.ownerPid, r.ownerId);
  }

  pause(runId: string): AutopilotRun {
    const r = this.record(runId);
    const a = this.active.get(runId);
    if (a) a.runner.pause();
    else if (this.drivenElsewhere(r)) this.store.setControl(runId, 'pause');
    else if (r.status === 'running') this.store.saveState(runId, this.savedState(r), 'paused', 'Paused by request; resume to continue from this state.');
    return publicRun(this.record(runId));
  }

  resume(runId: string): AutopilotRun {
    const r = this.record(runId);
    if (this.active.has(runId) || this.drivenElsewhere(r)) throw new AppError('conflict', `The run ${runId} is running${this.drivenElsewhere(r) ? ` in another Flightdeck process (pid ${r.ownerPid})` : ''}.`);
    if (r.status === 'stopped') {
      const why = r.state.exitReason === 'blocked' ? ' — answer the blocked step to go on' : '';
      throw new AppError('conflict', `The run ${runId} has stopped (${r.state.exitReason ?? 'unknown'})${why}.`);
    }
    if (!existsSync(r.worktree)) throw new AppError('path_not_found', `The run's worktree ${r.worktree} is gone; restore it (worktree restore) before resuming.`, { path: r.worktree });
    return publicRun(this.launch(this.reconcile(r)));
  }

  cancel(runId: string): AutopilotRun {
    const r = this.record(runId);
    const a = this.active.get(runId);
    if (a) {
      a.runner.cancel();
      return publicRun(this.record(runId));
    }
    if (this.drivenElsewhere(r)) {
      this.store.setControl(runId, 'cancel');
      return publicRun(this.record(runId));
    }
    // A finished run has nothing to cancel: saying "Cancelled" would misreport how it ended.
    if (r.status === 'stopped') throw new AppError('conflict', `Nothing to cancel: the run ${runId} has already stopped (${r.state.exitReason ?? 'unknown'}).`);
    const state = transition(this.savedState(r), { type: 'cancel' }).state;
    if (existsSync(r.worktree)) writeStateFile(r.worktree, state);
    this.store.saveState(runId, state, 'stopped', null);
    const run = publicRun(this.record(runId));
    this.emit(run, null);
    return run;
  }

  /**
   * A human answered a blocked step: the answer goes into Notes, the step back to Next, its
   * failure count starts over, and the run goes on with a new iteration.
   */
  async answer(runId: string, stepId: string, answer: string): Promise<AutopilotRun> {
    const r = this.reconcile(this.record(runId));
    if (this.active.has(runId) || this.drivenElsewhere(r)) throw new AppError('conflict', `The run ${runId} is running; a blocked step is answered once it has stopped.`);
    const plan = await readPlan(r.worktree);
    if (plan === null) throw new AppError('not_found', `The run's PLAN.md is missing in ${r.worktree}.`);
    const problems = validatePlan(plan);
    if (problems.length > 0) throw new AppError('invalid_input', `PLAN.md does not validate, so the answer was not written:\n${problems.map(formatProblem).join('\n')}`);
    writePlan(r.worktree, unblock(plan, stepId, answer).text);
    const s = r.state;
    const failures = { ...s.failures };
    delete failures[stepId];
    const iteration = s.iteration + 1;
    const state: RunState = {
      ...s,
      phase: 'S1_SNAPSHOT',
      iteration,
      currentStepId: stepId,
      failures,
      planRepairs: 0,
      replans: 0,
      exitReason: null,
      exitDetail: null,
      blockedStepId: null,
      // The answer opens a new iteration; a run that had used up its iterations gets this one.
      limits: { ...s.limits, maxIters: Math.max(s.limits.maxIters, iteration) },
    };
    writeStateFile(r.worktree, state);
    this.store.saveState(runId, state, 'paused', null);
    this.store.startIteration(runId, iteration, Date.now());
    this.store.updateIteration(runId, iteration, { addNote: `answered STEP_ID=${stepId}: ${answer.replace(/\s+/g, ' ').slice(0, 200)}` });
    return publicRun(this.launch(this.record(runId)));
  }

  private emit(run: AutopilotRun, iteration: AutopilotIteration | null): void {
    this.o.hub.publish('autopilot.changed', { run, iteration });
    for (const l of this.listeners) l(run, iteration);
  }

  private launch(r: RunRecord): RunRecord {
    if (this.disposed) throw new AppError('unavailable', 'Flightdeck is shutting down.');
    // A process that died since this one started may have left this run's acceptance command running.
    this.reapAcceptances();
    this.store.setOwner(r.id, process.pid, selfIdentity());
    const agent = new AutopilotAgent(
      this.o.driver(),
      { root: r.worktree, projectId: r.projectId, executor: r.options.executor, profile: r.options.profile, title: `Autopilot: ${r.goal.slice(0, 60)}` },
      r.sessionId,
      (sid) => this.store.setSession(r.id, sid),
    );
    const runner = new AutopilotRunner(
      { ...r, status: 'running' },
      {
        store: this.store,
        agent,
        // The trusted main checkout's templates, never the worktree's (its agent can edit them).
        prompts: new AutopilotPrompts({ repository: r.repo, dataDir: this.o.dataDir, useRepositoryTemplates: () => this.o.repositoryTemplates?.(r.repo) ?? false }),
        logger: this.o.logger,
        acceptance: (run) => this.acceptanceTarget(run),
        onChange: (run, iteration) => this.emit(publicRun(run), iteration),
      },
    );
    const done = runner.drive().finally(() => {
      if (this.active.get(r.id)?.runner !== runner) return;
      this.active.delete(r.id);
      if (!this.disposed) this.store.setOwner(r.id, null, null);
    });
    this.active.set(r.id, { runner, done });
    return this.record(r.id);
  }
}
