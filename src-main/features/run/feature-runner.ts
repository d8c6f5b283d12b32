/**
 * One feature's run: load and check `state.yml`, then run the phases from the
 * first one that is not completed — each development phase, the review rounds, the verify
 * attempts with the real checks — and deliver the work (a PR with gh, else the pushed branch's
 * compare page, else completed locally). A Coder agent session does the work through the
 * SessionDriver; this file never calls a model itself.
 *
 * What makes it safe to stop at any moment: the state file is written after every interaction
 * (phase metrics) and every transition, atomically; a phase is `running` until it completes, so
 * a crash or a cancel leaves it for the next run to resume with the resume prompt (its commits
 * and diff since it began); a completed phase is never run again. Cost, tokens and turns come
 * from the session's cumulative figures turned into per-interaction deltas (metrics.ts), added
 * to the phase, and the totals are recomputed from the phases at every write.
 */
import { readFileInsideAsync } from '../../platform/contained-path';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { AppError, type AgentMode, type CheckOutcome, type ContainerPlacement, type Delivery, type PhaseStats, type ReviewIssue, type RunEventData, type RunOutcome, type RunPlacement, type VerifyItem } from '../../../src-preload/contract';
import type { CallGuards } from '../../agents/call-guard';
import type { ExecutorName, SessionDriver, TurnReport } from '../../agents/session-driver';
import type { Logger } from '../../platform/logger';
import { FEATURES_DIR, loadConfig, recordPath, type FeaturesConfig } from '../config';
import { FeatureError } from '../errors';
import { ISSUE_FILE, prBody } from '../issue-input';
import { readIssueRecord } from '../issue-links';
import type { FeatureIssueRef } from '../../../src-preload/contract/issues';
import type { GhOps, GitOps } from '../git-ops';
import { activeStatePath } from '../scanner';
import { readState, updateState, type FeatureState, type PhaseRecord, type RunAgent } from '../state';
import { effectivePlacement } from '../placement';
import type { ChosenAgent } from '../approvals';
import { projectTemplates, type PromptTemplates } from '../templates';
import { runBudgetRefusal } from '../../budgets/budget-model';
import { blockingIssues, parseReviewIssues, parseVerifyResult, type Parsed } from './answers';
import { compareUrl } from '../../git/forge';
import { AGENT_IMAGE } from '../../containers/images';
import { findPrUrl } from './delivery';
import { roundCommitMessage } from './commit-messages';
import { fixRoundText } from '../../review-comments/anchor';
import { addToPhase, CumulativeTracker, ZERO_USAGE, type Usage } from './metrics';
import { checkRunnable, DETAIL, markPhaseCompleted, markPhaseFailed, markPhaseRunning, markRunStarted, resumePoint, updatePhase } from './pipeline';
import { branchDiff, headCommit, progressSince, pushRemote } from './run-git';
import { span, spanSync } from '../../platform/spans';

/** How much of a failing check's output goes into the fix prompt and the event: the end, where the failure is. */
const CHECK_OUTPUT_TAIL_CHARS = 6_000;
/** The default approval mode of a run's sessions: the Coder edits and runs commands without asking (bypass permissions), under the role guard and the hard floor. */
const DEFAULT_RUN_MODE: AgentMode = 'yolo';

export interface SessionCost {
  calls: number;
  usd: number;
  inputTokens: number;
  outputTokens: number;
  /** The dearest single call so far (the guess for what the next one costs). */
  maxCallUsd: number;
}

export interface CheckRequest {
  cwd: string;
  command: string;
  sessionId: string;
  projectId: string | null;
  signal: AbortSignal;
  /** From the project's `check_timeout_minutes`. */
  timeoutMs: number;
}

/**
 * What a run placed in a container needs of the containers service: place the session and start
 * its container at once (so an engine or image problem fails the run before any turn), and
 * remove it when the run ends (a run's session is never used again).
 */
export interface RunContainers {
  place(req: { sessionId: string; worktree: string; projectId: string | null; featureId: string; placement: ContainerPlacement }): Promise<void>;
  release(sessionId: string): Promise<void>;
}

export interface RunnerDeps {
  driver: Pick<SessionDriver, 'createSession' | 'runTurn'>;
  /** Absent where no containers service exists: a container placement then fails the run. */
  containers?: RunContainers;
  guards: CallGuards;
  /** The session's cumulative figures (every model call recorded so far). */
  sessionCost(sessionId: string): SessionCost;
  git: GitOps;
  gh: GhOps;
  runCheck(req: CheckRequest): Promise<CheckOutcome>;
  emit(data: RunEventData): void;
  now(): Date;
  logger: Logger;
  /** Tests point the built-in templates elsewhere. */
  builtinPromptsDir?: string;
  /** Whether the repository's own prompt templates are used (workspace trust); absent: never. */
  useRepositoryTemplates?: boolean;
  /** The user's own template folder (`<data folder>/prompts`). */
  userPromptsDir?: string;
  /** Workspace trust over the loaded config: checks, template folders and placement only while the repository is trusted; absent: used as loaded. */
  trustedConfig?: (root: string, config: FeaturesConfig) => Promise<FeaturesConfig>;
  /** The feature's review comments waiting for a fix round (absent: none are kept). */
  comments?: FixRoundComments;
  /**
   * What the run uses of state.yml's agent block: the settings approved with the plan (recorded
   * outside the worktree, which the agent can write), see ../approvals.ts. Absent: state.yml as read.
   */
  agentChoice?: (root: string, slug: string, fromState: RunAgent | null) => ChosenAgent;
  /** The feature's pull request feedback waiting for a fix round (../pr/pr-service.ts); absent: none. */
  prFeedback?: PrFeedback;
  /**
   * Waits for the worktree's setup (started when it was made, ../../worktrees/setup-service.ts)
   * to end: its problem in words when it did not finish well, null when it did or none ran.
   * Absent: the run does not wait. A setup a restart cut off is run again first, under `root`'s trust.
   */
  setupDone?: (worktree: string, signal: AbortSignal, onWait: (command: string) => void, root: string) => Promise<string | null>;
}

/** A fix round made from the PR's failed checks and reviews, sent before review like diff comments. */
export interface PrFeedback {
  pending(): { round: number; text: string } | null;
  markSent(round: number): void;
  markFixed(round: number): void;
}

/** The user's diff comments of this feature, as a run sends them in one fix round before review. */
export interface FixRoundComments {
  pending(): ReadonlyArray<{ id: string; file: string; lineStart: number; lineEnd: number; quote: string; body: string }>;
  markSent(ids: readonly string[], revision: string): void;
  /** Judges the sent comments on the fixed worktree (addressed, outdated or open). */
  judgeSent(): Promise<unknown>;
  /** The round did not finish: its comments are open again. */
  unsend(): void;
}

export interface RunRequest {
  repoRoot: string;
  slug: string;
  projectId: string | null;
  /** Overrides the executor chosen when the plan was approved. */
  executor?: ExecutorName;
  mode?: AgentMode;
  /** Overrides the placement in state.yml and config.yml (absent in all: on the host). */
  placement?: RunPlacement;
  signal: AbortSignal;
  /** A candidate of a best-of-N run (./candidates-service.ts): its own state file, agent and budget, and no delivery. */
  candidate?: CandidateRun;
}

/** What a candidate run changes of a feature run: where its state lives, its agent, its budget; it stops before delivery. */
export interface CandidateRun {
  /** The candidate's copy of state.yml, in its own worktree (whose path and branch it names). */
  statePath: string;
  label: string;
  profile?: string;
  model?: string;
  /** Over agent.max_budget_usd (the feature's budget split among the candidates, or set for each). */
  budgetUsd?: number;
}

export interface RunResult {
  outcome: RunOutcome;
  message: string | null;
  delivery: Delivery | null;
  totals: PhaseStats;
  state: FeatureState | null;
}

/** The run stopped early: cancelled, or a limit, or a phase that failed; carries the outcome. */
class RunStop extends Error {
  constructor(
    readonly outcome: RunOutcome,
    message: string,
  ) {
    super(message);
  }
}

function statsOf(t: { turns: number; cost_usd: number; duration_secs: number; cost: { input_tokens: number; output_tokens: number } }): PhaseStats {
  return { turns: t.turns, costUsd: t.cost_usd, inputTokens: t.cost.input_tokens, outputTokens: t.cost.output_tokens, durationSecs: t.duration_secs };
}

const ZERO_STATS: PhaseStats = { turns: 0, costUsd: 0, inputTokens: 0, outputTokens: 0, durationSecs: 0 };

function tail(text: string, chars: number): string {
  return text.length > chars ? `… ${text.slice(-chars)}` : text;
}

function how(c: CheckOutcome): string {
  return c.exitCode === null ? 'stopped by a signal or timeout' : `exit ${c.exitCode}`;
}

export class FeatureRunner {
  private statePath = '';
  private worktree = '';
  private state!: FeatureState;
  private config!: FeaturesConfig;
  private templates!: PromptTemplates;
  private sessionId = '';
  private firstTurn = true;
  /**
   * Whether anything but this run's own record may have changed in the worktree since this
   * process last committed it: an agent turn ran since (or none was committed yet: a resumed
   * run finds what the last one left). A round's commit with nothing to commit is skipped.
   */
  private changedSinceCommit = true;
  private tracker = new CumulativeTracker();
  /** Index of the phase being run (for the turn limit); -1 outside phases. */
  private phaseIndex = -1;
  /** Calls of the session when the current interaction started (turn limit of a phase). */
  private callsAtInteraction = 0;
  private turnsBeforeInteraction = 0;
  /** The refusal of a limit guard that stopped the last turn. */
  private limitRefusal: string | null = null;

  constructor(
    private readonly d: RunnerDeps,
    private readonly req: RunRequest,
  ) {}

  async run(): Promise<RunResult> {
    this.statePath = this.req.candidate?.statePath ?? activeStatePath(this.req.repoRoot, this.req.slug);
    this.state = await span('run: state read', () => readState(this.statePath));
    checkRunnable(this.state, this.statePath);
    const loaded = await span('run: config read', () => loadConfig(this.req.repoRoot));
    this.config = this.d.trustedConfig ? await span('trust: config', () => this.d.trustedConfig!(this.req.repoRoot, loaded)) : loaded;
    this.templates = projectTemplates(this.req.repoRoot, this.config.prompts.extra_dirs, {
      useRepositoryTemplates: this.d.useRepositoryTemplates ?? false,
      ...(this.d.userPromptsDir ? { userDir: this.d.userPromptsDir } : {}),
      ...(this.d.builtinPromptsDir ? { builtinDir: this.d.builtinPromptsDir } : {}),
    });
    this.worktree = resolve(this.req.repoRoot, this.state.git.worktree_path);
    // state.yml is in the worktree its agent writes: the worktree it names must be the one holding it
    // (another feature's or candidate's tree, or any folder, would be the next run's session root).
    const own = resolve(dirname(this.statePath), '..', '..');
    if (this.worktree !== own) throw new FeatureError('state', `git.worktree_path names ${this.state.git.worktree_path}, not the worktree this state.yml is in (${relative(this.req.repoRoot, own) || '.'}); put it back by hand`, { path: this.statePath });
    // The first agent turn and the checks need what setup installs (dependencies, a build).
    const setupProblem = this.d.setupDone ? await span('worktree: setup wait', () => this.d.setupDone!(this.worktree, this.req.signal, (command) => this.d.emit({ type: 'Notice', message: `Waiting for the worktree's setup to finish (\`${command}\`) before the first agent turn.` }), this.req.repoRoot)) : null;
    if (this.req.signal.aborted) {
      // Cancelled (or Flightdeck stopping) while it waited: nothing started, nothing to record.
      const outcome = abortOutcome(this.req.signal);
      const message = abortMessage(this.req.signal);
      this.d.emit({ type: 'RunFinished', success: false, outcome, message, totals: ZERO_STATS, delivery: null });
      return { outcome, message, delivery: null, totals: ZERO_STATS, state: this.state };
    }
    if (setupProblem) throw new AppError('conflict', `The run did not start: ${setupProblem}. Run the setup again (Worktrees in the project, or \`flightdeck worktree setup ${basename(this.worktree)}\`), then start the run again.`);
    const featureDir = join(this.worktree, FEATURES_DIR, this.req.slug);
    const designSpec = await readDoc(this.worktree, join(featureDir, 'specs', 'design.md'));
    const verificationPlan = await readDoc(this.worktree, join(featureDir, 'specs', 'verification.md'));

    // How the run drives its agent, as chosen when the plan was approved (null in older files: the defaults).
    const agent = this.state.agent;
    const chosen: ChosenAgent = this.d.agentChoice
      ? spanSync('trust: agent choice', () => this.d.agentChoice!(this.req.repoRoot, this.req.slug, agent ?? null))
      : { executor: agent?.executor, mode: agent?.mode, placement: agent?.placement, notice: null };
    const executor: ExecutorName = this.req.executor ?? chosen.executor ?? 'builtin';
    const point = resumePoint(this.state);
    await this.save((s) => markRunStarted(s));
    const session = spanSync('session: create', () => this.d.driver.createSession({
      root: this.worktree,
      ...(this.req.projectId ? { projectId: this.req.projectId } : {}),
      role: 'coder',
      executor,
      mode: this.req.mode ?? chosen.mode ?? DEFAULT_RUN_MODE,
      ...((this.req.candidate?.profile ?? agent?.profile) ? { profile: this.req.candidate?.profile ?? agent!.profile! } : {}),
      ...((this.req.candidate?.model ?? agent?.model) ? { model: this.req.candidate?.model ?? agent!.model! } : {}),
      title: this.req.candidate ? `Feature ${this.req.slug} (candidate ${this.req.candidate.label})` : `Feature ${this.req.slug}`,
    }));
    this.sessionId = session.id;
    const removeGuard = this.d.guards.add((sid) => (sid === this.sessionId ? this.guard() : null));

    const system = this.templates.render('run/system', {
      slug: this.req.slug,
      worktree: this.worktree,
      branch: this.state.git.branch,
      base_branch: this.state.git.base_branch,
      checks: this.config.checks,
      design_spec: designSpec,
    });
    const phases = this.state.phases.map((p) => ({ name: p.name, kind: p.kind, status: p.status }));
    this.d.emit({ type: 'RunStarting', phases: [...phases, { name: 'create-pr', kind: 'pr', status: 'pending' }], startIndex: point.index ?? this.state.phases.length, executor, resumed: point.index !== null && (point.index > 0 || point.interrupted) });

    if (chosen.notice) {
      this.d.logger.warn('feature run: state.yml agent settings not used', { slug: this.req.slug, notice: chosen.notice });
      this.d.emit({ type: 'Notice', message: chosen.notice });
    }
    const placement = effectivePlacement(chosen.placement, this.req.placement, this.config.agent.placement);
    let placed = false;
    try {
      if (placement.kind === 'container') {
        // Released in any case: a refused placement is recorded for the session too.
        placed = this.d.containers !== undefined;
        await this.placeInContainer(placement);
      }
      if (point.index !== null) {
        for (let i = point.index; i < this.state.phases.length; i++) {
          this.throwIfCancelled();
          const phase = this.state.phases[i]!;
          const resumed = phase.status === 'running' || (phase.status === 'failed' && typeof phase.details[DETAIL.startCommit] === 'string');
          await this.runPhase(i, resumed, { system, designSpec, verificationPlan });
        }
      }
      this.throwIfCancelled();
      if (this.req.candidate) {
        // A candidate is delivered only once picked, as the feature's branch (a run of the feature then delivers it).
        await this.commitState(`chore(${this.req.slug}): candidate ${this.req.candidate.label} finished`);
        const totals = statsOf(this.state.total);
        this.d.emit({ type: 'RunFinished', success: true, outcome: 'completed', message: null, totals, delivery: null });
        return { outcome: 'completed', message: null, delivery: null, totals, state: this.state };
      }
      const delivery = await this.deliver(system);
      const totals = statsOf(this.state.total);
      this.d.emit({ type: 'RunFinished', success: true, outcome: 'completed', message: null, totals, delivery });
      return { outcome: 'completed', message: null, delivery, totals, state: this.state };
    } catch (e) {
      const stop = e instanceof RunStop ? e : null;
      const outcome: RunOutcome = stop ? stop.outcome : 'failed';
      const message = e instanceof Error ? e.message : String(e);
      if (!stop) this.d.logger.warn('feature run failed', { slug: this.req.slug, error: e });
      const totals = this.state ? statsOf(this.state.total) : ZERO_STATS;
      this.d.emit({ type: 'RunFinished', success: false, outcome, message, totals, delivery: null });
      return { outcome, message, delivery: null, totals, state: this.state };
    } finally {
      removeGuard();
      if (placed) {
        await this.d.containers!.release(this.sessionId).catch((e: unknown) => {
          // The run's outcome stands; a container left behind is reaped at the next start or by `containers reap`.
          this.d.logger.warn('could not remove the run container', { slug: this.req.slug, error: e });
        });
      }
    }
  }

  /**
   * Places the run's session in a container and starts it before the first turn. Any refusal
   * (engine down, image missing, no GPU runtime) fails the run with the engine's message: the
   * agent never falls back to running on the host.
   */
  private async placeInContainer(p: Extract<RunPlacement, { kind: 'container' }>): Promise<void> {
    if (!this.d.containers) throw new AppError('unavailable', 'This feature run is placed in a container, but containers are not available here; run it from Flightdeck or the CLI, or set agent.placement to host.');
    const { kind: _kind, ...rest } = p;
    const placement: ContainerPlacement = { ...rest, image: p.image ?? AGENT_IMAGE };
    try {
      await this.d.containers.place({ sessionId: this.sessionId, worktree: this.worktree, projectId: this.req.projectId, featureId: this.req.slug, placement });
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      throw new AppError(e instanceof AppError ? e.code : 'unavailable', `The run's container could not start (${placement.image}): ${why}`, e instanceof AppError ? e.details : undefined);
    }
  }

  // ---- limits -----------------------------------------------------------------------------------

  /** Asked before every model call of the run's session: the run's budget, then the phase's turn limit. */
  private guard(): string | null {
    const cost = spanSync('budget: session cost', () => this.d.sessionCost(this.sessionId));
    // One session per run: its cumulative cost is the run's spend.
    const budget = runBudgetRefusal(cost.usd, cost.maxCallUsd, this.req.candidate?.budgetUsd ?? this.config.agent.max_budget_usd);
    if (budget) return (this.limitRefusal = budget);
    if (this.phaseIndex >= 0) {
      const turns = this.turnsBeforeInteraction + (cost.calls - this.callsAtInteraction);
      const max = this.config.agent.max_turns;
      if (turns >= max) {
        const name = this.state.phases[this.phaseIndex]?.name ?? '';
        return (this.limitRefusal = `The phase "${name}" reached its limit of ${max} turns (agent.max_turns in .flightdeck/config.yml); raise it and run the feature again to continue.`);
      }
    }
    return null;
  }

  private throwIfCancelled(): void {
    if (this.req.signal.aborted) throw new RunStop(abortOutcome(this.req.signal), abortMessage(this.req.signal));
  }

  // ---- state --------------------------------------------------------------------------------------

  /**
   * A turn's figures not written yet: a review round or a verify attempt writes them with its
   * verdict (one write, each a flush to disk, instead of two), which follows with nothing but the
   * parsing of the answer in between. Kept until a write succeeds; any write takes them along.
   */
  private unsaved: ((s: FeatureState) => FeatureState) | null = null;

  private async save(change: (s: FeatureState) => FeatureState): Promise<void> {
    const pending = this.unsaved;
    this.state = await span('state: write', () => updateState(this.statePath, this.d.now(), pending ? (s) => change(pending(s)) : change));
    this.unsaved = null;
  }

  // ---- one interaction ------------------------------------------------------------------------

  /**
   * Sends one input to the agent and adds what it cost to phase `index` (state written at once;
   * with `writeWithVerdict`, by the caller's next write when the turn completed, see `unsaved`).
   * A turn that did not complete stops the run: cancelled, a limit, or failed with its message.
   */
  private async interact(index: number, prompt: string, system: string, o: { writeWithVerdict?: boolean } = {}): Promise<TurnReport> {
    // The previous turn's figures are on disk before another turn (or a cancel) can happen.
    if (this.unsaved) await this.save((s) => s);
    this.throwIfCancelled();
    const input = this.firstTurn ? `${system}\n\n---\n\n${prompt}` : prompt;
    const before = spanSync('budget: session cost', () => this.d.sessionCost(this.sessionId));
    this.callsAtInteraction = before.calls;
    this.turnsBeforeInteraction = this.state.phases[index]!.turns;
    this.phaseIndex = index;
    this.limitRefusal = null;
    const started = Date.now();
    // Even a turn that fails may have written files.
    this.changedSinceCommit = true;
    const report = await span('agent turn', () => this.d.driver.runTurn(this.sessionId, input, { signal: this.req.signal }));
    this.firstTurn = false;
    const now = spanSync('budget: session cost', () => this.d.sessionCost(this.sessionId));
    const delta = this.tracker.delta(cumulative(now));
    const secs = (Date.now() - started) / 1000;
    const figures = (s: FeatureState) => updatePhase(s, index, (p) => addToPhase(p, delta, secs));
    if (o.writeWithVerdict && report.outcome === 'completed') this.unsaved = figures;
    else await this.save(figures);
    if (report.outcome === 'completed') return report;
    if (this.req.signal.aborted || report.outcome === 'cancelled') throw new RunStop(abortOutcome(this.req.signal), abortMessage(this.req.signal));
    if (this.limitRefusal) {
      this.d.emit({ type: 'BudgetNotice', level: 'exceeded', message: this.limitRefusal });
      throw this.phaseFailure(index, this.limitRefusal);
    }
    throw this.phaseFailure(index, `The agent's turn ${report.outcome}: ${report.message ?? 'no reason given'}`);
  }

  /** Marks the phase and the feature failed (state written by the caller's catch through failPhase). */
  private phaseFailure(index: number, reason: string): RunStop {
    this.pendingFailure = { index, reason };
    return new RunStop('failed', reason);
  }

  private pendingFailure: { index: number; reason: string } | null = null;

  // ---- phases ---------------------------------------------------------------------------------

  private async runPhase(index: number, resumed: boolean, docs: { system: string; designSpec: string; verificationPlan: string }): Promise<void> {
    const phase = this.state.phases[index]!;
    this.d.emit({ type: 'PhaseStarting', name: phase.name, index, resumed });
    // Read before the phase is marked running again: the prompt says how it stopped (failed or interrupted).
    const resumePrefix = resumed ? await this.resumeText(phase) : '';
    // One write: running, and (unless a resumed phase keeps its own) the commit it starts from.
    const start = !resumed || typeof this.state.phases[index]!.details[DETAIL.startCommit] !== 'string' ? await span('git: head', () => headCommit(this.worktree)) : null;
    await this.save((s) => {
      const running = markPhaseRunning(s, index, this.d.now(), null);
      if (!start || (resumed && typeof running.phases[index]!.details[DETAIL.startCommit] === 'string')) return running;
      return updatePhase(running, index, (p) => ({ ...p, details: { ...p.details, [DETAIL.startCommit]: start } }));
    });
    this.pendingFailure = null;
    let details: Record<string, unknown> = {};
    let commit: string | null = null;
    try {
      if (phase.kind === 'dev') {
        await this.interact(index, resumePrefix + this.devPrompt(index), docs.system);
      } else if (phase.name === 'review') {
        details = await this.review(index, docs.system, resumePrefix);
      } else if (phase.name === 'verify') {
        details = await this.verify(index, docs.system, docs.verificationPlan, resumePrefix);
      } else {
        throw new FeatureError('state', `unknown quality phase "${phase.name}" (only review and verify exist)`, { path: this.statePath });
      }
      commit = await this.autoCommit(`feat(${this.req.slug}): ${phase.name}`);
    } catch (e) {
      await this.failIfPending(e, index);
      throw e;
    }
    this.phaseIndex = -1;
    await this.save((s) => markPhaseCompleted(s, index, this.d.now(), details));
    const done = this.state.phases[index]!;
    this.d.emit({ type: 'PhaseCompleted', name: done.name, index, success: true, stats: statsOf(done), commit, message: null });
  }

  /** A phase that failed (not cancelled): the phase and the feature are `failed` with the reason. */
  private async failIfPending(e: unknown, index: number): Promise<void> {
    const stop = e instanceof RunStop ? e : null;
    if (stop && stop.outcome !== 'failed') return; // Cancelled or waiting: the phase stays running, to be resumed.
    const reason = this.pendingFailure?.reason ?? (e instanceof Error ? e.message : String(e));
    this.phaseIndex = -1;
    await this.save((s) => markPhaseFailed(s, index, this.d.now(), reason)).catch((err: unknown) => {
      // The state file could not be written (disk, hand-edited into invalid): the run's own error is the one to report.
      this.d.logger.warn('could not record the failed phase', { error: err });
    });
    const p = this.state.phases[index]!;
    this.d.emit({ type: 'PhaseCompleted', name: p.name, index, success: false, stats: statsOf(p), commit: null, message: reason });
  }

  private async resumeText(p: PhaseRecord): Promise<string> {
    const start = p.details[DETAIL.startCommit];
    const reason = p.status === 'failed' ? `it failed: ${String(p.details[DETAIL.reason] ?? 'unknown reason')}` : 'Flightdeck stopped or the run was cancelled';
    const progress = typeof start === 'string' ? await progressSince(this.worktree, start) : { commits: '', diff: '', truncated: false };
    return `${this.templates.render('run/resume', {
      phase_name: p.name,
      reason,
      start_commit: typeof start === 'string' ? start.slice(0, 12) : '(unknown)',
      commits: progress.commits,
      diff: progress.diff,
      diff_truncated: progress.truncated,
    })}\n\n`;
  }

  private devPrompt(index: number): string {
    const devs = this.state.phases.filter((p) => p.kind === 'dev');
    const phase = this.state.phases[index]!;
    return this.templates.render('run/dev_phase', {
      phase_name: typeof phase.details.title === 'string' ? phase.details.title : phase.name,
      phase_number: devs.indexOf(phase) + 1,
      phase_count: devs.length,
      checks: this.config.checks,
    });
  }

  /**
   * Commits the worktree's changes after a phase or before a round. `leaveOut` is not staged (it
   * goes with a later commit): before a review round, the run's own record, which the run
   * rewrites between phases and would otherwise make a commit of its own nearly every time. A
   * message made from what was staged names the commit for what it holds.
   */
  private async autoCommit(message: string | ((staged: readonly string[]) => string), o: { leaveOut?: readonly string[] } = {}): Promise<string | null> {
    if (!this.config.git.auto_commit) return null;
    try {
      // Into the project's repository as recorded, whatever the worktree's .git file says now (an agent or a container wrote in it).
      // No housekeeping after these: the run's record commit at the end keeps it (git-ops.ts).
      const made = await span('git: commit', () => this.d.git.commit(this.worktree, message, undefined, { repository: this.req.repoRoot, housekeeping: false, ...(o.leaveOut ? { leaveOut: o.leaveOut } : {}) }));
      this.changedSinceCommit = false;
      return made ? await span('git: head', () => headCommit(this.worktree)) : null;
    } catch (e) {
      throw new FeatureError('git', `the commit after the phase failed: ${e instanceof Error ? e.message : String(e)}`, {}, { cause: e });
    }
  }

  /**
   * The commit before a review round: what the last fix round changed (or a resumed run found),
   * without the feature's record (it goes with the phase's commit). None when no agent turn ran
   * since this process last committed, as for the first round right after a phase's commit (an
   * add and an empty commit, two gits, for nothing). True when it staged all changes (nothing
   * untracked is left for the review's diff to add).
   */
  private async reviewRoundCommit(round: number): Promise<boolean> {
    if (!this.config.git.auto_commit || !this.changedSinceCommit) return false;
    await this.autoCommit(roundCommitMessage(this.req.slug, 'review', round), { leaveOut: [recordPath(this.req.slug)] });
    return true;
  }

  /** Asks once more for the block when the answer had none; null when still unreadable. */
  private async withFormat<T>(index: number, report: TurnReport, parse: (t: string) => Parsed<T>, example: string, system: string): Promise<T | null> {
    const first = parse(report.finalText || report.text);
    if (first.ok) return first.value;
    const again = await this.interact(index, this.templates.render('run/format_reminder', { reason: first.reason, example }), system);
    const second = parse(again.finalText || again.text);
    return second.ok ? second.value : null;
  }

  private async review(index: number, system: string, resumed: string): Promise<Record<string, unknown>> {
    // The user's diff comments first: the review then looks at the fixed code.
    const prFixed = await this.prFixRound(index, system, resumed);
    const fixed = (await this.commentsFixRound(index, system, prFixed ? '' : resumed)) || prFixed;
    const resumePrefix = fixed ? '' : resumed;
    if (!this.config.review.enabled) return { [DETAIL.skipped]: true };
    const max = this.config.review.max_review_rounds;
    const rounds: Array<{ round: number; issues: ReviewIssue[]; parsed: boolean }> = [];
    let clean = false;
    for (let round = 1; round <= max; round++) {
      // The previous round's fixes; nothing to commit is the usual case, and no fix is called one.
      const staged = await this.reviewRoundCommit(round);
      // Its `git add --all` has just left no untracked file for the diff to add; without it, the
      // diff marks them itself (a file a job or the user made since the phase's commit).
      const diff = await span('git: branch diff', () => branchDiff(this.worktree, this.state.git.base_branch, { untrackedAdded: staged }));
      const prompt = this.templates.render('run/review', { round, max_rounds: max, base_branch: this.state.git.base_branch, diff: diff.text || '(no changes)', diff_truncated: diff.truncated });
      const report = await this.interact(index, (round === 1 ? resumePrefix : '') + prompt, system, { writeWithVerdict: true });
      const issues = await this.withFormat(index, report, parseReviewIssues, 'issues: []', system);
      rounds.push({ round, issues: issues ?? [], parsed: issues !== null });
      this.d.emit({ type: 'ReviewRound', round, issues: issues ?? [], parsed: issues !== null });
      await this.save((s) => updatePhase(s, index, (p) => ({ ...p, details: { ...p.details, [DETAIL.rounds]: rounds } })));
      if (issues === null) continue; // A failed round: the next one asks again.
      const blocking = blockingIssues(issues);
      if (blocking.length === 0) {
        clean = true;
        break;
      }
      if (round === max) break;
      await this.interact(index, this.templates.render('run/review_fix', { issues: blocking }), system);
    }
    return { [DETAIL.rounds]: rounds, clean };
  }

  /** The pull request's feedback (failed checks, requested changes), sent as one fix round before review; false when none waits. */
  private async prFixRound(index: number, system: string, resumePrefix: string): Promise<boolean> {
    const feedback = this.d.prFeedback;
    const round = feedback?.pending() ?? null;
    if (!feedback || !round) return false;
    // Sent until fixed: a run that dies here leaves it to be sent again by the next one.
    feedback.markSent(round.round);
    await this.interact(index, resumePrefix + round.text, system);
    await this.autoCommit(`fix(${this.req.slug}): pull request feedback (round ${round.round})`);
    feedback.markFixed(round.round);
    return true;
  }

  /**
   * The user's diff comments, sent as one fix round before review (review and verify then run as
   * after any fix round); each comment is judged again on the fixed worktree. False when none wait.
   */
  private async commentsFixRound(index: number, system: string, resumePrefix: string): Promise<boolean> {
    const comments = this.d.comments;
    const asked = comments?.pending() ?? [];
    if (!comments || asked.length === 0) return false;
    comments.markSent(
      asked.map((c) => c.id),
      (await headCommit(this.worktree)) ?? '',
    );
    try {
      await this.interact(index, resumePrefix + fixRoundText(asked), system);
      await this.autoCommit(`fix(${this.req.slug}): address ${asked.length === 1 ? 'a review comment' : `${asked.length} review comments`}`);
    } catch (e) {
      comments.unsend();
      throw e;
    }
    await comments.judgeSent();
    return true;
  }

  private async verify(index: number, system: string, plan: string, resumePrefix: string): Promise<Record<string, unknown>> {
    const max = this.config.agent.max_retries + 1;
    const attempts: Array<{ attempt: number; result: 'pass' | 'fail'; failed_checks: string[] }> = [];
    for (let attempt = 1; attempt <= max; attempt++) {
      // Everything, the record included: the checks run on a clean tree (a check may well be
      // `git diff --exit-code` after a generator). Named for what it holds.
      await this.autoCommit((staged) => roundCommitMessage(this.req.slug, 'verify', attempt, staged));
      const checks: CheckOutcome[] = [];
      for (const command of this.config.checks) {
        this.throwIfCancelled();
        checks.push(await span('check terminal', () => this.d.runCheck({ cwd: this.worktree, command, sessionId: this.sessionId, projectId: this.req.projectId, signal: this.req.signal, timeoutMs: this.config.check_timeout_minutes * 60_000 })));
      }
      this.throwIfCancelled();
      const shown = checks.map((c) => ({ ...c, how: how(c) }));
      const prompt = this.templates.render('run/verify', { attempt, max_attempts: max, verification_plan: plan, checks: shown });
      const report = await this.interact(index, (attempt === 1 ? resumePrefix : '') + prompt, system, { writeWithVerdict: true });
      const answer = await this.withFormat(index, report, parseVerifyResult, 'result: pass\nitems:\n  - item: …\n    result: pass', system);
      const checksPass = checks.every((c) => c.passed);
      const result: 'pass' | 'fail' = checksPass && answer?.result === 'pass' ? 'pass' : 'fail';
      const items: VerifyItem[] = answer?.items ?? [];
      this.d.emit({ type: 'VerifyAttempt', attempt, checks, agentResult: answer?.result ?? null, items, result });
      attempts.push({ attempt, result, failed_checks: checks.filter((c) => !c.passed).map((c) => c.command) });
      await this.save((s) => updatePhase(s, index, (p) => ({ ...p, details: { ...p.details, [DETAIL.attempts]: attempts } })));
      if (result === 'pass') return { [DETAIL.attempts]: attempts };
      const failedChecks = shown.filter((c) => !c.passed).map((c) => ({ ...c, output: tail(c.output, CHECK_OUTPUT_TAIL_CHARS) }));
      const failedItems = items.filter((i) => i.result === 'fail');
      if (attempt === max) {
        const why = failedChecks.length > 0 ? failedChecks.map((c) => `${c.command} (${c.how})`).join(', ') + ' failed' : answer === null ? 'the verifier gave no readable verdict' : `the verifier reported fail${failedItems.length ? `: ${failedItems.map((i) => i.item).join('; ')}` : ''}`;
        throw this.phaseFailure(index, `Verification failed after ${max} attempt${max === 1 ? '' : 's'}: ${why}.`);
      }
      await this.interact(index, this.templates.render('run/verify_fix', { attempt, failed_checks: failedChecks, failed_items: failedItems }), system);
    }
    return { [DETAIL.attempts]: attempts };
  }

  // ---- delivery -------------------------------------------------------------------------------

  private async commitState(message: string): Promise<void> {
    // The feature's record goes with the branch (it is merged with it and kept on the base).
    await span('git: commit', () => this.d.git.commit(this.worktree, message, [recordPath(this.req.slug)], { repository: this.req.repoRoot }));
  }

  private async deliver(system: string): Promise<Delivery> {
    this.d.emit({ type: 'CreatingPr' });
    const branch = this.state.git.branch;
    const base = this.state.git.base_branch;
    const remote = await span('git: push remote', () => pushRemote(this.worktree));
    let delivery: Delivery;
    if (!remote) {
      delivery = { kind: 'local' };
      await this.save((s) => ({ ...s, status: 'completed' }));
      await this.commitState(`chore(${this.req.slug}): feature completed`);
      this.d.emit({ type: 'PrCreated', url: null, delivery });
      return delivery;
    }
    await this.commitState(`chore(${this.req.slug}): record the run`);
    await this.push(remote.name, branch);
    const ghReady = this.d.gh.available() && (await this.d.gh.authStatus(this.worktree)).ok;
    if (ghReady) {
      // A fix round of the PR loop pushes to the PR already open: no second one is asked for.
      const known = this.state.pr;
      const pr = known ? { url: known.url, number: known.number as number | null, title: known.title } : await this.createPr(system, remote.name, branch, base);
      delivery = pr ? { kind: 'pr', url: pr.url, number: pr.number, title: pr.title } : { kind: 'compare', url: compareUrl(remote.url, base, branch), remote: remote.name };
      if (pr && pr.number !== null) await this.save((s) => ({ ...s, pr: { url: pr.url, number: pr.number!, title: pr.title } }));
    } else {
      delivery = { kind: 'compare', url: compareUrl(remote.url, base, branch), remote: remote.name };
    }
    await this.save((s) => ({ ...s, status: 'completed' }));
    await this.commitState(`chore(${this.req.slug}): feature completed`);
    await this.push(remote.name, branch);
    this.d.emit({ type: 'PrCreated', url: delivery.kind === 'pr' ? delivery.url : delivery.kind === 'compare' ? delivery.url : null, delivery });
    return delivery;
  }

  private async push(remote: string, branch: string): Promise<void> {
    try {
      await this.d.git.push(this.worktree, remote, branch, { repository: this.req.repoRoot });
    } catch (e) {
      throw new FeatureError('git', `pushing ${branch} to ${remote} failed: ${e instanceof Error ? e.message : String(e)}`, {}, { cause: e });
    }
  }

  /**
   * The agent opens the PR; its URL is taken from the agent's answer, else from the output of
   * its commands, else from `gh pr list --head <branch>`. When none of them has one (the agent
   * did not manage it), Flightdeck opens it itself.
   */
  /** The issue the feature was planned from (`.flightdeck/<slug>/issue.yml`), null when none or unreadable. */
  private featureIssue(): Promise<FeatureIssueRef | null> {
    return readIssueRecord(this.worktree, join(this.worktree, FEATURES_DIR, this.req.slug, ISSUE_FILE));
  }

  private async createPr(system: string, remote: string, branch: string, base: string): Promise<{ url: string; number: number | null; title: string } | null> {
    // The PR step's cost belongs to the last phase (verify): state.yml has no separate PR phase.
    const index = this.state.phases.length - 1;
    const issue = await this.featureIssue();
    const report = await this.interact(index, this.templates.render('run/create_pr', { slug: this.req.slug, branch, base_branch: base, remote, issue }), system);
    const fromText = findPrUrl(report.finalText) ?? findPrUrl(report.text);
    const fromTools = fromText ? null : findPrUrl(report.toolCalls.map((c) => c.output ?? '').join('\n'));
    const found = fromText ?? fromTools;
    const titleOf = (number: number | null): string => {
      const call = report.toolCalls.find((c) => /\bgh\s+pr\s+create\b/.test(String((c.input as { command?: unknown }).command ?? '')));
      const m = call ? /--title\s+(?:"([^"]*)"|'([^']*)'|(\S+))/.exec(String((call.input as { command?: unknown }).command)) : null;
      return m ? (m[1] ?? m[2] ?? m[3] ?? '') : number !== null ? `${this.req.slug} (#${number})` : this.req.slug;
    };
    if (found) return { url: found.url, number: found.number, title: titleOf(found.number) };
    const listed = await this.d.gh.prList(this.worktree, branch);
    if (listed.ok) {
      const open = listed.value.find((p) => p.state === 'OPEN') ?? listed.value[0];
      if (open) return { url: open.url, number: open.number, title: open.title };
    }
    const created = await this.d.gh.prCreate(this.worktree, { title: `feat: ${this.req.slug}`, body: prBody(this.req.slug, issue), base, head: branch });
    if (created.ok && created.value.url) return { url: created.value.url, number: created.value.number, title: `feat: ${this.req.slug}` };
    this.d.logger.warn('no pull request could be opened', { slug: this.req.slug, reason: created.ok ? 'gh printed no URL' : created.message });
    return null;
  }
}

// The run's placement (request over state.yml over config.yml): ../placement.ts, re-exported for the run's callers.
export { effectivePlacement };

function cumulative(c: SessionCost): Usage {
  return { ...ZERO_USAGE, turns: c.calls, costUsd: c.usd, inputTokens: c.inputTokens, outputTokens: c.outputTokens };
}

/** Why the signal was aborted: a cancel by the user, or a run that needs a human (exit 3). */
export interface RunAbortReason {
  kind: 'cancel' | 'waiting' | 'shutdown';
  message?: string;
}

function abortOutcome(signal: AbortSignal): RunOutcome {
  const r = signal.reason as RunAbortReason | undefined;
  return r?.kind === 'waiting' ? 'waiting' : r?.kind === 'shutdown' ? 'interrupted' : 'cancelled';
}

function abortMessage(signal: AbortSignal): string {
  const r = signal.reason as RunAbortReason | undefined;
  if (r?.message) return r.message;
  if (r?.kind === 'shutdown') return 'Flightdeck stopped during the run; it resumes at the next start.';
  return 'Cancelled; run the feature again to resume where it stopped.';
}

/**
 * Largest spec read (design spec, verification plan). Both go into prompts whole; the Planner
 * writes a few KiB, and a committed or agent-written giant would be sent to the model at each phase.
 */
const MAX_SPEC_BYTES = 512 * 1024;

/** A spec of the feature: a regular file inside the worktree (no link out of it), of bounded size. */
async function readDoc(worktree: string, path: string): Promise<string> {
  try {
    return (await readFileInsideAsync(worktree, path, { maxBytes: MAX_SPEC_BYTES, what: 'spec' })).toString('utf8');
  } catch (e) {
    throw new FeatureError('state', `the feature's document is missing or unreadable: ${(e as Error).message}`, { path }, { cause: e });
  }
}
