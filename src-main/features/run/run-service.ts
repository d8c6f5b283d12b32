/**
 * Feature runs in the app: a queue that runs up to `maxParallel` features at once (default 3),
 * each independent (its own worktree, agent session, abort signal; one failing or cancelled
 * touches no other), run events appended to the event log under the run's id and published only
 * once persisted, cancel, the local merge, and crash recovery: at the start of a long-lived host
 * every feature left `in_progress` (its run's process gone) is queued again and resumes from its
 * first phase that is not completed.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { AppError, type FeatureRunEvent, type FeatureRunInfo, type FeatureRunStatus, type MergeResult, type RunEventData, type RunExecutor, type RunPlacement } from '../../../src-preload/contract';
import type { AgentService } from '../../agents/agent-service';
import type { SessionDriver } from '../../agents/session-driver';
import type { EventHub } from '../../bridge/event-hub';
import { ownerAlive, selfIdentity } from '../../platform/process-identity';
import type { Logger } from '../../platform/logger';
import type { ProjectService } from '../../projects/project-service';
import type { SettingsService } from '../../settings/settings-service';
import type { Database } from '../../store/db';
import type { EventLog, StoredEvent } from '../../store/event-log';
import { storageHealthOf, writeOrKeep } from '../../store/storage-health';
import type { TerminalService } from '../../terminals/terminal-service';
import { defaultConfig, type FeaturesConfig } from '../config';
import { isFeatureError } from '../errors';
import { DefaultGhOps, DefaultGitOps, type GhOps, type GitOps } from '../git-ops';
import { activeStatePath, scanFeatures } from '../scanner';
import type { RepositoryTemplatesPolicy } from '../templates';
import { readState, updateState, type RunAgent } from '../state';
import { chooseAgent, type ChosenAgent, type FeatureApprovals } from '../approvals';
import { makeCheckRunner } from './checks';
import { FeatureRunner, type CandidateRun, type FixRoundComments, type RunAbortReason, type RunContainers, type RunnerDeps, type RunResult, type SessionCost } from './feature-runner';
import type { ReviewCommentService } from '../../review-comments/comment-service';
import { localMerge, planLocalMerge } from './run-git';
import { pushFeature, type FeaturePushResult } from './feature-push';
import type { PrFeedback } from './feature-runner';
import { RunRepo, toInfo, type RunRow } from './run-repo';
import { spanSync } from '../../platform/spans';

/** Three features at once: enough to keep a reviewer busy, few enough for a laptop's memory and the provider's rate limits. */
export const DEFAULT_MAX_PARALLEL = 3;
const SETTINGS_KEY = 'featureRuns.settings';
/** Finished runs listed with the live ones (the board's recent activity). */
const RECENT_FINISHED = 20;
/**
 * Features whose latest run is listed (how it ended places the card: failed, stopped, waiting),
 * the most recently queued first: more than a board holds, and a bound on what each change of
 * the queue publishes to every window however long the history grows.
 */
const LATEST_RUNS_LISTED = 5_000;
/**
 * How often a long-lived process looks at the runs other processes hold: a run whose process
 * died (a killed CLI run, a crashed app) is marked interrupted within this, so the board shows
 * it stopped with Resume instead of in progress forever. Reading /proc per run is cheap.
 */
const OWNER_SWEEP_MS = 2_000;
/** How often a process looks for cancels asked by another one (the CLI while the app runs the feature): a second feels immediate. */
const CANCEL_POLL_MS = 1_000;
/**
 * While the data folder's disk is full no queued run starts (it would fail at once on its first
 * write); the queue looks again this often. The storage watcher retries on its own schedule and
 * shows the notice; this only has to notice that it is over.
 */
const STORAGE_WAIT_POLL_MS = 1_000;
/** What a run waiting for space says in the run list (the storage notice says why). */
const WAITING_FOR_SPACE = 'Waiting for space in the data folder: the run starts once Flightdeck can save again.';

export interface FeatureRunServiceOptions {
  db: Database;
  events: EventLog;
  hub: EventHub;
  logger: Logger;
  settings: SettingsService;
  projects: ProjectService;
  agents: AgentService;
  driver: Pick<SessionDriver, 'createSession' | 'runTurn'>;
  terminals: TerminalService;
  /** Places runs' sessions in containers (agent.placement); absent: a container placement fails the run. */
  containers?: RunContainers;
  dataDir: string;
  git?: GitOps;
  gh?: GhOps;
  /** Whether a repository's own prompt templates are used (workspace trust); absent: never. */
  repositoryTemplates?: RepositoryTemplatesPolicy;
  /** Workspace trust over the loaded config (checks, template folders, placement); absent: used as loaded. */
  trustedConfig?: (root: string, config: FeaturesConfig) => Promise<FeaturesConfig>;
  /** The features' review comments, sent in a fix round by the next run; absent: none are kept. */
  comments?: ReviewCommentService;
  /** The agent settings approved with each plan (../approvals.ts); absent: state.yml's are used as read. */
  approvals?: FeatureApprovals;
  /** Whether the repository's main checkout is trusted (state.yml's placement of a feature without an approval record). */
  repositoryTrusted?: (root: string) => boolean;
  /** The feature's pull request feedback for a fix round (../pr/pr-service.ts); absent: none. */
  prFeedback?: (root: string, slug: string) => PrFeedback;
  /** Waits for the worktree's setup to end (../../worktrees/setup-service.ts) before the first agent turn; absent: not waited for. */
  setupDone?: RunnerDeps['setupDone'];
}

interface LiveRun {
  row: RunRow;
  /** The executor the request named (over the approved one); absent: the approved one. */
  executor?: RunExecutor;
  projectId: string | null;
  mode?: import('../../../src-preload/contract').AgentMode;
  placement?: RunPlacement;
  onSession?: (sessionId: string) => void;
  /** A candidate of a best-of-N run (./candidates-service.ts). */
  candidate?: CandidateRun;
  controller: AbortController;
  done: Promise<RunResult>;
  resolve(r: RunResult): void;
}

function newRunId(): string {
  return `frun-${Date.now().toString(36)}${randomBytes(5).toString('hex')}`;
}

/** One feature's comments as its run sees them. */
function fixRoundComments(comments: ReviewCommentService, repoRoot: string, slug: string): FixRoundComments {
  return {
    pending: () => {
      // Comments still "sent" belong to a round whose process died (one run per feature at a
      // time): they go again with this one rather than wait forever.
      comments.unsend(repoRoot, slug);
      return comments.list(repoRoot, slug, 'open');
    },
    markSent: (ids, revision) => comments.markSent(ids, revision),
    judgeSent: () => comments.judgeSent(repoRoot, slug),
    unsend: () => comments.unsend(repoRoot, slug),
  };
}

function featureKey(projectPath: string, slug: string, candidate?: CandidateRun): string {
  return `${projectPath}\0${slug}${candidate ? `\0${candidate.label}` : ''}`;
}

/** What the best-of-N candidates (./candidates-service.ts) tell the queue: why a plain run is refused now, and which candidates to resume. */
export interface CandidateHooks {
  /** Why the feature cannot be run as one run now (its candidates are open), null when it can. */
  busy(projectPath: string, slug: string): string | null;
  resumeInterrupted(): Promise<FeatureRunInfo[]>;
}

/** A run whose cancel was asked for, and whose owner process died before carrying it out. */
const cancelledWithOwner = () => ({ status: 'cancelled', message: 'Cancelled (the process running it ended before it stopped).', endedAt: Date.now(), ownerPid: null, ownerId: null }) as const;

export class FeatureRunService {
  private readonly repo: RunRepo;
  private readonly queue: LiveRun[] = [];
  private readonly running = new Map<string, LiveRun>();
  private readonly ownerId = selfIdentity();
  private readonly git: GitOps;
  private readonly gh: GhOps;
  private disposed = false;
  private cancelPoll: NodeJS.Timeout | null = null;
  private storageWait: NodeJS.Timeout | null = null;
  private ownerSweep: NodeJS.Timeout | null = null;
  /** What the last sweep saw of other processes' runs, to publish only a change. */
  private elsewhereSeen = '';
  /**
   * Whether the owner of another process's run was alive, by run and owner, as the last sweep
   * (or a list since) saw it: the run list is published on every change of the queue, and
   * reading /proc for each held run each time is work the sweep already does every OWNER_SWEEP_MS.
   */
  private readonly ownersSeen = new Map<string, boolean>();
  /** Set by the candidates service once it exists (it runs its candidates through this queue). */
  candidateHooks: CandidateHooks | null = null;

  constructor(private readonly o: FeatureRunServiceOptions) {
    this.repo = new RunRepo(o.db);
    this.git = o.git ?? new DefaultGitOps();
    this.gh = o.gh ?? new DefaultGhOps();
  }

  /**
   * Runs whose process died while they were queued or running are marked interrupted (their
   * feature resumes at this start, resumeInterrupted); one the user had asked to cancel is
   * marked cancelled (it never resumes by itself).
   */
  start(): void {
    for (const r of this.repo.unfinished()) {
      // A live owner (identity = pid + start time, so a recycled pid does not count) still runs it.
      if (r.ownerPid !== null && ownerAlive(r.ownerPid, r.ownerId)) continue;
      this.repo.update(r.id, r.status === 'cancelling' ? cancelledWithOwner() : { status: 'interrupted', message: 'Flightdeck stopped during this run.', endedAt: Date.now(), ownerPid: null, ownerId: null });
    }
    this.ownerSweep = setInterval(() => this.sweepOwners(), OWNER_SWEEP_MS);
    this.ownerSweep.unref?.();
  }

  /** What a run of the feature uses of its state.yml's agent block (../approvals.ts). */
  agentChoice(root: string, slug: string, fromState: RunAgent | null): ChosenAgent {
    if (!this.o.approvals) return { executor: fromState?.executor, mode: fromState?.mode, placement: fromState?.placement, notice: null };
    return chooseAgent(fromState, this.o.approvals.get(root, slug), this.o.repositoryTrusted?.(root) ?? false, root);
  }

  /** The project's agent.placement as workspace trust allows it: none while the repository is untrusted. */
  async trustedProjectPlacement(root: string, placement: RunPlacement | null): Promise<RunPlacement | null> {
    if (!placement || !this.o.trustedConfig) return placement;
    const config = defaultConfig();
    config.agent.placement = placement;
    return (await this.o.trustedConfig(root, config)).agent.placement ?? null;
  }

  /**
   * Runs held by other processes: a dead owner's run is marked interrupted (with its pid, so the
   * user sees what stopped), and a change in what live ones do is published to the board.
   */
  sweepOwners(): void {
    if (this.disposed) return;
    let changed = false;
    const live: string[] = [];
    // Looked at afresh below: what list() trusts until the next sweep.
    this.ownersSeen.clear();
    for (const r of this.repo.unfinished()) {
      // This process's own runs end here (a row may be written just before its run is queued in memory).
      if (r.ownerPid === process.pid || this.running.has(r.id) || this.queue.some((q) => q.row.id === r.id)) continue;
      if (r.ownerPid !== null && this.ownerLives(r)) {
        live.push(`${r.id}:${r.status}:${r.phase ?? ''}`);
        continue;
      }
      // No live owner: its process died (or this process lost it), so nothing will ever finish it.
      // A cancel it had been asked for is what happened to it, not an interruption to resume.
      const who = r.ownerPid !== null ? `the Flightdeck process running it (pid ${r.ownerPid}) ended` : 'no Flightdeck process holds it';
      if (r.status === 'cancelling') writeOrKeep(this.o.db, 'cancelled feature run', () => this.repo.update(r.id, cancelledWithOwner()));
      else writeOrKeep(this.o.db, 'interrupted feature run', () => this.repo.update(r.id, { status: 'interrupted', message: `${who}${r.phase ? ` during phase ${r.phase}` : ''}; Resume continues it.`, endedAt: Date.now(), ownerPid: null, ownerId: null }));
      changed = true;
    }
    // A run another process started and ended between two sweeps (a push refused in a CLI run) changes the mark.
    const seen = `${this.repo.changeMark()} ${live.join(' ')}`;
    if (seen !== this.elsewhereSeen) changed = true;
    this.elsewhereSeen = seen;
    if (changed) this.publishQueue();
  }

  /** Whether the process holding `r` lives (ownersSeen, else /proc once). */
  private ownerLives(r: RunRow): boolean {
    const key = `${r.id}\0${r.ownerPid}\0${r.ownerId ?? ''}`;
    let alive = this.ownersSeen.get(key);
    if (alive === undefined) {
      alive = r.ownerPid !== null && ownerAlive(r.ownerPid, r.ownerId);
      this.ownersSeen.set(key, alive);
    }
    return alive;
  }

  /** Stops every run (the phase in flight stays `running` in state.yml, resumed at the next start). Synchronous. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.cancelPoll) clearInterval(this.cancelPoll);
    if (this.ownerSweep) clearInterval(this.ownerSweep);
    if (this.storageWait) clearTimeout(this.storageWait);
    for (const r of [...this.running.values(), ...this.queue]) {
      writeOrKeep(this.o.db, 'interrupted feature run', () => this.repo.update(r.row.id, { status: 'interrupted', message: 'Flightdeck stopped during this run.', endedAt: Date.now(), ownerPid: null, ownerId: null }));
      r.controller.abort({ kind: 'shutdown' } satisfies RunAbortReason);
    }
    this.queue.length = 0;
  }

  // ---- settings -----------------------------------------------------------------------------

  maxParallel(): number {
    const v = this.o.settings.getInternal<{ maxParallel?: unknown }>(SETTINGS_KEY)?.maxParallel;
    return typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : DEFAULT_MAX_PARALLEL;
  }

  setMaxParallel(n: number): number {
    if (!Number.isInteger(n) || n < 1) throw new AppError('invalid_input', 'The number of features run at once must be a whole number of at least 1.');
    this.o.settings.setInternal(SETTINGS_KEY, { maxParallel: n });
    this.pump();
    this.publishQueue();
    return n;
  }

  // ---- queue --------------------------------------------------------------------------------

  list(): FeatureRunInfo[] {
    const live = [...this.running.values()].map((r) => toInfo(this.repo.get(r.row.id) ?? r.row, null));
    const queued = this.queue.map((r, i) => toInfo(r.row, i + 1));
    const ids = new Set([...live, ...queued].map((r) => r.id));
    // Runs another live process holds (a CLI feature run): the board shows them running too.
    const elsewhere = this.repo.unfinished().filter((r) => !ids.has(r.id) && r.ownerPid !== null && r.ownerPid !== process.pid && this.ownerLives(r));
    for (const r of elsewhere) ids.add(r.id);
    const finished = (r: RunRow) => !ids.has(r.id) && r.status !== 'queued' && r.status !== 'running' && r.status !== 'cancelling';
    const recent = this.repo.recent(RECENT_FINISHED + ids.size).filter(finished).slice(0, RECENT_FINISHED);
    for (const r of recent) ids.add(r.id);
    // And how every other feature's latest run ended (a failed push, a crash), whenever it was.
    const latest = this.repo.latestPerFeature(LATEST_RUNS_LISTED).filter(finished);
    return [...live, ...queued, ...elsewhere.map((r) => toInfo(r, null)), ...[...recent, ...latest].map((r) => toInfo(r, null))];
  }

  history(projectPath: string, slug: string): FeatureRunInfo[] {
    return this.repo.ofFeature(projectPath, slug).map((r) => toInfo(r, null));
  }

  /** The stored events of a run (replay after a restart). */
  events(runId: string, fromSeq = 1): FeatureRunEvent[] {
    const row = this.repo.get(runId);
    if (!row) throw new AppError('not_found', `There is no feature run ${runId}.`);
    return this.o.events.read<{ data: RunEventData }>(runId, fromSeq).map((e) => ({ runId, projectPath: row.projectPath, slug: row.slug, seq: e.seq, ts: e.ts, data: e.payload.data, ...(row.candidate ? { candidate: row.candidate } : {}) }));
  }

  /**
   * Queues a run of the feature (it starts at once while fewer than the limit run). Refused when
   * the feature is already queued or running here or in another live Flightdeck process.
   */
  async enqueue(o: { projectPath: string; slug: string; executor?: RunExecutor; mode?: LiveRun['mode']; /** Overrides agent.placement of state.yml and config.yml. */ placement?: RunPlacement; /** Called with the run's agent session as soon as it exists (the CLI sets its approval answers). */ onSession?: (sessionId: string) => void; candidate?: CandidateRun }): Promise<FeatureRunInfo & { done: Promise<RunResult> }> {
    if (this.disposed) throw new AppError('unavailable', 'Flightdeck is shutting down.');
    const busy = o.candidate ? null : this.candidateHooks?.busy(o.projectPath, o.slug);
    if (busy) throw new AppError('conflict', busy);
    const key = featureKey(o.projectPath, o.slug, o.candidate);
    if ([...this.running.values(), ...this.queue].some((r) => featureKey(r.row.projectPath, r.row.slug, r.candidate) === key)) {
      throw new AppError('conflict', o.candidate ? `The candidate ${o.candidate.label} of "${o.slug}" is already running or queued.` : `The feature "${o.slug}" is already running or queued.`);
    }
    const other = this.repo.ofFeature(o.projectPath, o.slug).find((r) => (r.status === 'running' || r.status === 'queued' || r.status === 'cancelling') && r.ownerPid !== null && r.ownerPid !== process.pid && ownerAlive(r.ownerPid, r.ownerId));
    if (other) throw new AppError('conflict', `The feature "${o.slug}" is being run by another Flightdeck process (pid ${other.ownerPid}).`);
    // Checked now, so a feature that cannot run is refused at once rather than failing in the queue.
    const state = await readState(o.candidate?.statePath ?? activeStatePath(o.projectPath, o.slug)).catch((e: unknown) => {
      throw isFeatureError(e) ? e.toAppError() : e;
    });
    if (state.status === 'completed' || state.status === 'merged') throw new AppError('conflict', `The feature "${o.slug}" is already ${state.status}.`);
    const agentExecutor = this.agentChoice(o.projectPath, o.slug, state.agent ?? null).executor;
    const row: RunRow = {
      id: newRunId(),
      projectPath: o.projectPath,
      slug: o.slug,
      executor: o.executor ?? agentExecutor ?? 'builtin',
      status: 'queued',
      phase: null,
      message: null,
      ownerPid: process.pid,
      ownerId: this.ownerId,
      queuedAt: Date.now(),
      startedAt: null,
      endedAt: null,
      candidate: o.candidate?.label ?? null,
    };
    // A full disk keeps the row in memory (saved when space returns): the run is queued and listed
    // meanwhile, not refused with SQLite's text.
    writeOrKeep(this.o.db, 'feature run queued', () => this.repo.insert(row));
    let resolve!: (r: RunResult) => void;
    const done = new Promise<RunResult>((r) => (resolve = r));
    const project = this.o.projects.list().find((p) => p.path === o.projectPath);
    const live: LiveRun = { row, projectId: project?.id ?? null, ...(o.executor ? { executor: o.executor } : {}), ...(o.mode ? { mode: o.mode } : {}), ...(o.placement ? { placement: o.placement } : {}), ...(o.onSession ? { onSession: o.onSession } : {}), ...(o.candidate ? { candidate: o.candidate } : {}), controller: new AbortController(), done, resolve };
    this.queue.push(live);
    this.pump();
    if (this.queue.includes(live)) this.emit(row, { type: 'Queued', position: this.queue.indexOf(live) + 1 });
    this.publishQueue();
    return { ...toInfo(this.repo.get(row.id) ?? row, this.queue.includes(live) ? this.queue.indexOf(live) + 1 : null), done };
  }

  /** Cancels a queued or running run of the feature; false when none is. */
  cancel(projectPath: string, slug: string, reason: RunAbortReason = { kind: 'cancel' }, candidate?: CandidateRun): boolean {
    const key = featureKey(projectPath, slug, candidate);
    const qi = this.queue.findIndex((r) => featureKey(r.row.projectPath, r.row.slug, r.candidate) === key);
    if (qi >= 0) {
      const [r] = this.queue.splice(qi, 1);
      const totals = { turns: 0, costUsd: 0, inputTokens: 0, outputTokens: 0, durationSecs: 0 };
      this.emit(r!.row, { type: 'RunFinished', success: false, outcome: 'cancelled', message: 'Cancelled while queued.', totals, delivery: null });
      this.finish(r!, { outcome: 'cancelled', message: 'Cancelled while queued.', delivery: null, totals, state: null });
      this.queue.forEach((q, i) => this.emit(q.row, { type: 'Queued', position: i + 1 }));
      this.publishQueue();
      return true;
    }
    const live = [...this.running.values()].find((r) => featureKey(r.row.projectPath, r.row.slug, r.candidate) === key);
    if (!live) return false;
    live.controller.abort(reason);
    return true;
  }

  /** Whether the run is queued or running in this process. */
  isLive(runId: string): boolean {
    return this.running.has(runId) || this.queue.some((r) => r.row.id === runId);
  }

  /** Cancels a run by id (the CLI's waiting-for-a-human stop, a candidate). */
  abort(runId: string, reason: RunAbortReason): void {
    const live = this.running.get(runId) ?? this.queue.find((r) => r.row.id === runId);
    if (live) this.cancel(live.row.projectPath, live.row.slug, reason, live.candidate);
  }

  private pump(): void {
    if (this.waitingForStorage()) return;
    while (!this.disposed && this.running.size < this.maxParallel() && this.queue.length > 0) {
      const next = this.queue.shift()!;
      this.running.set(next.row.id, next);
      void this.execute(next);
      this.queue.forEach((q, i) => this.emit(q.row, { type: 'Queued', position: i + 1 }));
    }
  }

  /** While the disk is full: queued runs wait (listed as such), and the queue is looked at again shortly. */
  private waitingForStorage(): boolean {
    const health = storageHealthOf(this.o.db);
    if (this.disposed || !health || health.state === 'ok' || this.queue.length === 0) {
      for (const q of this.queue) if (q.row.message === WAITING_FOR_SPACE) q.row.message = null;
      return false;
    }
    for (const q of this.queue) q.row.message = WAITING_FOR_SPACE;
    if (!this.storageWait) {
      this.storageWait = setTimeout(() => {
        this.storageWait = null;
        this.pump();
        this.publishQueue();
      }, STORAGE_WAIT_POLL_MS);
      this.storageWait.unref?.();
    }
    return true;
  }

  /** Stops the runs another process asked to cancel (their row says `cancelling`). */
  private watchCancels(): void {
    if (this.cancelPoll || this.disposed) return;
    this.cancelPoll = setInterval(() => {
      if (this.running.size === 0 && this.queue.length === 0) {
        clearInterval(this.cancelPoll!);
        this.cancelPoll = null;
        return;
      }
      for (const r of [...this.running.values(), ...this.queue]) {
        if (this.repo.get(r.row.id)?.status === 'cancelling') this.cancel(r.row.projectPath, r.row.slug, undefined, r.candidate);
      }
    }, CANCEL_POLL_MS);
    this.cancelPoll.unref?.();
  }

  /**
   * Cancels the feature's run wherever it runs: here at once, in another live Flightdeck process
   * by marking its row, which that process sees within a second. 'none' when nothing runs it.
   */
  requestCancel(projectPath: string, slug: string): 'cancelled' | 'requested' | 'none' {
    if (this.cancel(projectPath, slug)) return 'cancelled';
    // Every one: a feature tried by candidates has several runs at once.
    const others = this.repo.ofFeature(projectPath, slug).filter((r) => (r.status === 'running' || r.status === 'queued') && r.ownerPid !== null && ownerAlive(r.ownerPid, r.ownerId));
    if (others.length === 0) return 'none';
    for (const other of others) this.repo.update(other.id, { status: 'cancelling' });
    return 'requested';
  }

  private async execute(live: LiveRun): Promise<void> {
    const row = live.row;
    this.watchCancels();
    writeOrKeep(this.o.db, 'feature run started', () => this.repo.update(row.id, { status: 'running', startedAt: Date.now() }));
    this.publishQueue();
    const runner = new FeatureRunner(
      {
        driver: {
          createSession: (opts) => {
            const s = this.o.driver.createSession(opts);
            live.onSession?.(s.id);
            return s;
          },
          runTurn: (sid, input, opts) => this.o.driver.runTurn(sid, input, opts),
        },
        ...(this.o.containers ? { containers: this.o.containers } : {}),
        guards: this.o.agents.callGuards,
        sessionCost: (sid) => this.sessionCost(sid),
        git: this.git,
        gh: this.gh,
        runCheck: makeCheckRunner(this.o.terminals, this.o.dataDir),
        emit: (data) =>
          spanSync('events: emit', () => {
            if (data.type === 'PhaseStarting') {
              this.repo.update(row.id, { phase: data.name });
              this.publishQueue();
            }
            this.emit(row, data);
          }),
        now: () => new Date(),
        logger: this.o.logger,
        useRepositoryTemplates: spanSync('trust: templates', () => this.o.repositoryTemplates?.(row.projectPath) ?? false),
        userPromptsDir: join(this.o.dataDir, 'prompts'),
        ...(this.o.trustedConfig ? { trustedConfig: this.o.trustedConfig } : {}),
        ...(this.o.comments && !live.candidate ? { comments: fixRoundComments(this.o.comments, row.projectPath, row.slug) } : {}),
        agentChoice: (root, slug, fromState) => this.agentChoice(root, slug, fromState),
        // A candidate run is no round of the feature's PR (it has none before one is picked).
        ...(this.o.prFeedback && !live.candidate ? { prFeedback: this.o.prFeedback(row.projectPath, row.slug) } : {}),
        ...(this.o.setupDone ? { setupDone: this.o.setupDone } : {}),
      },
      { repoRoot: row.projectPath, slug: row.slug, projectId: live.projectId, ...(live.executor ? { executor: live.executor } : {}), ...(live.mode ? { mode: live.mode } : {}), ...(live.placement ? { placement: live.placement } : {}), ...(live.candidate ? { candidate: live.candidate } : {}), signal: live.controller.signal },
    );
    let result: RunResult;
    try {
      result = await runner.run();
    } catch (e) {
      // The runner reports its own failures; this is the state file or config refusing before it started.
      const message = isFeatureError(e) ? e.toAppError().message : e instanceof Error ? e.message : String(e);
      result = { outcome: 'failed', message, delivery: null, totals: { turns: 0, costUsd: 0, inputTokens: 0, outputTokens: 0, durationSecs: 0 }, state: null };
      this.emit(row, { type: 'RunFinished', success: false, outcome: 'failed', message, totals: result.totals, delivery: null });
    }
    this.running.delete(row.id);
    this.finish(live, result);
    this.pump();
    this.publishQueue();
  }

  private finish(live: LiveRun, result: RunResult): void {
    if (!(this.disposed && result.outcome === 'interrupted')) {
      const status: FeatureRunStatus = result.outcome === 'completed' ? 'completed' : result.outcome;
      writeOrKeep(this.o.db, 'feature run end', () => this.repo.update(live.row.id, { status, message: result.message, endedAt: Date.now(), ownerPid: null, ownerId: null }));
    }
    live.resolve(result);
  }

  private sessionCost(sessionId: string): SessionCost {
    const row = this.o.db
      .prepare('SELECT COUNT(*) AS calls, COALESCE(SUM(usd), 0) AS usd, COALESCE(SUM(input_tokens), 0) AS inputTokens, COALESCE(SUM(output_tokens), 0) AS outputTokens, COALESCE(MAX(usd), 0) AS maxCallUsd FROM agent_costs WHERE session_id = ?')
      .get(sessionId) as SessionCost;
    return row;
  }

  // ---- events -------------------------------------------------------------------------------

  private emit(row: RunRow, data: RunEventData): void {
    // After a shutdown the event log is closing; the run was recorded as interrupted and resumes at the next start.
    if (this.disposed) return;
    this.o.events.append(row.id, data.type, { projectPath: row.projectPath, slug: row.slug, ...(row.candidate ? { candidate: row.candidate } : {}), data });
  }

  /** Called with each committed event-log batch: run events are published once persisted. */
  onPersisted(batch: readonly StoredEvent[]): void {
    if (this.disposed) return;
    for (const e of batch) {
      if (!e.runId.startsWith('frun-')) continue;
      const p = e.payload as { projectPath: string; slug: string; candidate?: string; data: RunEventData };
      this.o.hub.publish('featureRuns.event', { runId: e.runId, projectPath: p.projectPath, slug: p.slug, seq: e.seq, ts: e.ts, data: p.data, ...(p.candidate ? { candidate: p.candidate } : {}) });
    }
  }

  private publishQueue(): void {
    if (this.disposed) return;
    spanSync('queue: publish', () => this.o.hub.publish('featureRuns.changed', { runs: this.list(), limit: this.maxParallel() }));
  }

  // ---- recovery -----------------------------------------------------------------------------

  /**
   * Queues every in-progress feature whose last run here was interrupted (the app or the CLI
   * running it stopped or was killed mid-phase): each resumes from its first phase that is not
   * completed. Long-lived hosts call this as they start; a short CLI command does not.
   *
   * A feature that is in progress by its state file alone (no run of it here, or its last run
   * failed, was cancelled or waits for an answer) is left for the user to start: a cloned
   * repository or another machine's worktree must not start agents, and spend, by being opened.
   */
  async resumeInterrupted(): Promise<FeatureRunInfo[]> {
    const started: FeatureRunInfo[] = [];
    for (const p of this.o.projects.list()) {
      const scan = await scanFeatures(p.path).catch((e: unknown) => {
        // A project whose folder vanished has nothing to resume; the others still do.
        this.o.logger.warn('could not scan a project for interrupted features', { path: p.path, error: e });
        return null;
      });
      for (const f of scan?.features ?? []) {
        if (f.source !== 'active' || f.state.status !== 'in_progress') continue;
        const last = this.repo.ofFeature(p.path, f.slug).find((r) => !r.candidate);
        if (last?.status !== 'interrupted') continue;
        try {
          const info = await this.enqueue({ projectPath: p.path, slug: f.slug });
          started.push(info);
        } catch (e) {
          // Already running in another live process, or not runnable: it is left as it is and said why.
          this.o.logger.info('an in-progress feature was not resumed', { slug: f.slug, reason: e instanceof Error ? e.message : String(e) });
        }
      }
    }
    if (this.candidateHooks) started.push(...(await this.candidateHooks.resumeInterrupted()));
    return started;
  }

  // ---- local merge --------------------------------------------------------------------------

  /** Push & PR from the feature's page (see feature-push.ts); refused while a run of it is live here. */
  push(o: { projectPath: string; slug: string }): Promise<FeaturePushResult> {
    const running = [...this.running.values(), ...this.queue].some((r) => r.row.projectPath === o.projectPath && r.row.slug === o.slug);
    return pushFeature({ ...o, git: this.git, gh: this.gh, running });
  }

  /**
   * Merges a completed feature's branch into its base in the main checkout (merge or squash).
   * Without `confirm` nothing changes: the answer says what would be merged. Refused when the
   * base has moved in a way that conflicts with the branch.
   */
  async merge(o: { projectPath: string; slug: string; squash: boolean; confirm: boolean }): Promise<MergeResult> {
    const path = activeStatePath(o.projectPath, o.slug);
    const state = await readState(path).catch((e: unknown) => {
      throw isFeatureError(e) ? e.toAppError() : e;
    });
    const method = o.squash ? 'squash' : 'merge';
    if (state.status !== 'completed') throw new AppError('conflict', `The feature "${o.slug}" is ${state.status}; only a completed feature is merged.`);
    if ([...this.running.values()].some((r) => r.row.projectPath === o.projectPath && r.row.slug === o.slug)) throw new AppError('conflict', `The feature "${o.slug}" is running.`);
    const { branch, base_branch: base } = state.git;
    const plan = await planLocalMerge(o.projectPath, base, branch);
    if (plan.conflicts.length > 0) {
      throw new AppError('conflict', `${base} has moved in a way that conflicts with ${branch} (${plan.conflicts.join(', ')}). Merge by hand, or rebase the feature onto ${base} first.`, { conflicts: plan.conflicts });
    }
    const summary = `${plan.commits.length} commit${plan.commits.length === 1 ? '' : 's'} of ${branch} into ${base}${plan.baseMoved ? ` (${base} has moved since; it merges cleanly)` : ''}`;
    if (!o.confirm) return { merged: false, method, base, commit: null, message: `Would ${method} ${summary}. Confirm to merge.` };
    // The record says merged in the commit that lands on the base; put back if the merge fails.
    const worktree = state.git.worktree_path.startsWith('/') ? state.git.worktree_path : `${o.projectPath}/${state.git.worktree_path}`;
    await updateState(path, new Date(), (s) => ({ ...s, status: 'merged' }));
    // The record's commit is part of the merge: if it fails (an editor's git holding the
    // worktree's index.lock, a full disk), nothing was merged and the feature is completed again.
    let recorded = false;
    try {
      await this.git.commit(worktree, `chore(${o.slug}): merged into ${base}`, [`.flightdeck/${o.slug}`]);
      recorded = true;
      const commit = await localMerge(o.projectPath, base, branch, { squash: o.squash, message: `${o.squash ? 'feat' : 'Merge'}(${o.slug}): ${o.squash ? 'squashed feature' : `branch ${branch}`}` });
      return { merged: true, method, base, commit, message: `Merged (${method}) ${summary}.` };
    } catch (e) {
      await updateState(path, new Date(), (s) => ({ ...s, status: 'completed' }));
      // Only a record already committed needs one saying it is undone; the failure is what the user sees.
      if (recorded) await this.git.commit(worktree, `chore(${o.slug}): merge into ${base} failed`, [`.flightdeck/${o.slug}`]).catch(() => undefined);
      throw isFeatureError(e) ? e.toAppError() : e;
    }
  }
}
