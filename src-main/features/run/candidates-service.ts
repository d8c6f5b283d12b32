/**
 * Best-of-N: N candidate runs of one approved plan, grouped under the feature (issue 24 §3).
 *
 * Start: the feature's record is committed on its branch, and each candidate gets a worktree
 * `.trees/<slug>--c<N>` on a branch `feature/<slug>--c<N>` from that commit, with its own copy of
 * state.yml naming them; its run is an ordinary run of the queue (./run-service.ts), so it obeys
 * the parallel-run limit and the budgets, shows on the board, can be cancelled and resumes after
 * a restart; it stops before delivery. Compare reads what each left (state.yml, its branch).
 * Pick fast-forwards the feature's branch to the winner and runs the feature, which delivers it
 * as any run does; every candidate's branch is kept under refs/flightdeck/archive/ and its
 * worktree removed (uncommitted work is committed on it first: nothing is lost).
 */
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import {
  AppError,
  type CandidateBudget,
  type CandidateComparison,
  type CandidateDiff,
  type CandidateGroupInfo,
  type CandidatePlanInfo,
  type CandidateSpec,
  type CandidateStartResult,
  type FeatureRunInfo,
  type FeatureRunStatus,
  type JudgeRanking,
} from '../../../src-preload/contract';
import type { SessionDriver } from '../../agents/session-driver';
import type { PrepareResult } from '../../worktrees/worktree-prepare';
import { treesFolder } from '../../worktrees/worktree-manager';
import type { Logger } from '../../platform/logger';
import type { Database } from '../../store/db';
import { FEATURES_DIR, loadConfig, recordPath, type FeaturesConfig } from '../config';
import { isFeatureError } from '../errors';
import type { GitOps } from '../git-ops';
import { activeStatePath } from '../scanner';
import { parseState, readState, STATE_FILE, updateState, writeState, type FeatureState } from '../state';
import { projectTemplates } from '../templates';
import { git } from '../../git/git';
import { archiveRef, candidateBranch, candidateBudgets, candidateLabel, candidateProgress, candidateWorktree, isTestFile, parseJudgeAnswer } from './candidates-model';
import { CandidateRepo, type CandidateRow, type GroupRow } from './candidates-repo';
import { changeStats, diffBetween, fastForward, hasChanges, keepRef, refCommit } from './candidates-git';
import { headCommit } from './run-git';
import type { FeatureRunService } from './run-service';
import type { SessionCost } from './feature-runner';

/** How much of each candidate's diff the judge reads: enough for a feature, bounded for five of them in one prompt. */
const JUDGE_DIFF_CHARS = 40_000;

export interface CandidateServiceOptions {
  db: Database;
  runs: FeatureRunService;
  git: GitOps;
  logger: Logger;
  /** The judge's session. */
  driver: Pick<SessionDriver, 'createSession' | 'runTurn'>;
  /** Workspace trust over the loaded config (checks, budget); absent: used as loaded. */
  trustedConfig?: (root: string, config: FeaturesConfig) => Promise<FeaturesConfig>;
  projectIdOf(root: string): string | null;
  /** The project's worktree preparation (copy, ports, setup), as a feature's own worktree gets it; absent: none. */
  prepare?: (root: string, worktree: string) => Promise<PrepareResult | null>;
  /** Waits for a worktree's setup started by `prepare` to end: its problem in words, null when it finished well or none ran. */
  setupDone?: (worktree: string, root: string) => Promise<string | null>;
  /** Stops a worktree's running setup and waits for it to end (before a half-made candidate is dropped). */
  stopSetup?: (worktree: string) => Promise<void>;
  now?: () => number;
}

function featureErrors<T>(fn: () => Promise<T>): Promise<T> {
  return fn().catch((e: unknown) => {
    throw isFeatureError(e) ? e.toAppError() : e;
  });
}

function newGroupId(): string {
  return `cand-${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
}

const LIVE: readonly string[] = ['queued', 'running', 'cancelling'];

export class FeatureCandidateService {
  private readonly repo: CandidateRepo;
  private readonly now: () => number;
  /** Features whose candidates are being started or picked here (one such change at a time per feature). */
  private readonly busyHere = new Set<string>();

  constructor(private readonly o: CandidateServiceOptions) {
    this.repo = new CandidateRepo(o.db);
    this.now = o.now ?? Date.now;
    o.runs.candidateHooks = {
      busy: (root, slug) => {
        const g = this.repo.open(root, slug);
        return g ? `The feature "${slug}" has ${this.repo.candidates(g.id).length} candidates open: pick one (feature pick ${slug} N, or Pick on its page) to deliver it.` : null;
      },
      resumeInterrupted: () => this.resumeInterrupted(),
    };
  }

  private async config(root: string): Promise<FeaturesConfig> {
    const loaded = await loadConfig(root);
    return this.o.trustedConfig ? this.o.trustedConfig(root, loaded) : loaded;
  }

  private async exclusive<T>(root: string, slug: string, fn: () => Promise<T>): Promise<T> {
    const key = `${root}\0${slug}`;
    if (this.busyHere.has(key)) throw new AppError('conflict', `The candidates of "${slug}" are being changed already; try again in a moment.`);
    this.busyHere.add(key);
    try {
      return await featureErrors(fn);
    } finally {
      this.busyHere.delete(key);
    }
  }

  // ---- start --------------------------------------------------------------------------------

  /**
   * Starts the candidates (or, without confirm, says what would start: each one's branch, agent
   * and budget). Refused while the feature runs, has open candidates, or has already run.
   */
  start(o: { projectPath: string; slug: string; candidates: readonly CandidateSpec[]; budget: CandidateBudget; confirm: boolean; /** Called with each candidate's agent session (the CLI sets its approval answers). */ onSession?: (sessionId: string) => void }): Promise<CandidateStartResult> {
    return this.exclusive(o.projectPath, o.slug, async () => {
      const root = o.projectPath;
      if (o.candidates.length < 2 || o.candidates.length > 5) throw new AppError('invalid_input', `A feature is tried by 2 to 5 candidates, not ${o.candidates.length}.`);
      const statePath = activeStatePath(root, o.slug);
      const state = await readState(statePath);
      if (state.status !== 'planned' || state.phases.some((p) => p.status !== 'pending')) {
        throw new AppError('conflict', `Candidates start from an approved plan that has not run yet; "${o.slug}" is ${state.status}${state.phases.some((p) => p.status !== 'pending') ? ' and has phases already run' : ''}. Run it as one run instead.`);
      }
      if (this.repo.open(root, o.slug)) throw new AppError('conflict', `The feature "${o.slug}" already has open candidates; compare them (feature compare ${o.slug}) and pick one.`);
      if (this.o.runs.history(root, o.slug).some((r) => LIVE.includes(r.status))) throw new AppError('conflict', `The feature "${o.slug}" is running or queued; cancel that run first.`);
      const config = await this.config(root);
      const budgets = candidateBudgets(o.budget, o.candidates.length, config.agent.max_budget_usd);
      const chosen = this.o.runs.agentChoice(root, o.slug, state.agent ?? null);
      const plans: CandidatePlanInfo[] = o.candidates.map((c, i) => ({
        index: i + 1,
        branch: candidateBranch(state.git.branch, i + 1),
        worktree: candidateWorktree(o.slug, i + 1),
        executor: c.executor ?? chosen.executor ?? 'builtin',
        profile: c.profile ?? state.agent?.profile ?? null,
        model: c.model ?? state.agent?.model ?? null,
        placement: c.placement ?? null,
        budgetUsd: budgets.each,
      }));
      const answer = { budgetMode: o.budget.mode, totalBudgetUsd: budgets.total, candidates: plans };
      if (!o.confirm) return { started: false, groupId: null, ...answer, runs: [] };

      for (const p of plans) {
        if (await this.o.git.branchExists(root, p.branch)) throw new AppError('conflict', `The branch ${p.branch} already exists (left from earlier candidates?); rename or delete it, then start again.`);
        if (existsSync(join(root, p.worktree))) throw new AppError('conflict', `The folder ${p.worktree} already exists; move it away, then start again.`);
      }
      // The record the candidates copy is on the branch they start from.
      const featureTree = resolve(root, state.git.worktree_path);
      await this.o.git.commit(featureTree, `chore(${o.slug}): start ${plans.length} candidates`, [recordPath(o.slug)], { repository: root });
      const base = await headCommit(featureTree);
      if (!base) throw new AppError('conflict', `The feature's branch ${state.git.branch} has no commit to start candidates from.`);
      const made: CandidatePlanInfo[] = [];
      // A .trees that is a link (made since the feature's worktree was) must not take the candidates elsewhere.
      treesFolder(root);
      try {
        for (const p of plans) {
          await this.o.git.addWorktree(root, join(root, p.worktree), p.branch, base);
          made.push(p);
          const tree = join(root, p.worktree);
          const own: FeatureState = { ...state, git: { ...state.git, worktree_path: p.worktree, branch: p.branch } };
          writeState(join(tree, FEATURES_DIR, o.slug, STATE_FILE), own);
          await this.o.git.commit(tree, `chore(${o.slug}): candidate ${candidateLabel(p.index)}`, [recordPath(o.slug)], { repository: root });
          // Like the feature's worktree: its ignored files copied, its port, its setup commands (dependencies installed).
          const prepared = await this.o.prepare?.(root, tree);
          const failed = prepared?.problem ?? (prepared?.setup && !prepared.setup.ok ? `its setup failed at \`${prepared.setup.failed?.command ?? '?'}\`: ${prepared.setup.failed?.reason ?? 'it did not finish'}` : null);
          if (failed) throw new AppError('unavailable', `Candidate ${candidateLabel(p.index)}'s worktree could not be prepared (${failed}); nothing was started.`);
        }
        // Their setups run side by side; every candidate's run needs its own finished.
        const setups = await Promise.all(made.map(async (p) => ({ p, problem: (await this.o.setupDone?.(join(root, p.worktree), root)) ?? null })));
        const bad = setups.find((x) => x.problem !== null);
        if (bad) throw new AppError('unavailable', `Candidate ${candidateLabel(bad.p.index)}'s worktree could not be prepared (${bad.problem}); nothing was started.`);
      } catch (e) {
        // Nothing ran in them yet: the half-made candidates go, so starting again is not refused.
        for (const p of made) await this.dropWorktree(root, p.worktree, p.branch);
        throw e;
      }
      const group: GroupRow = { id: newGroupId(), projectPath: root, slug: o.slug, baseCommit: base, budgetMode: o.budget.mode, budgetUsd: o.budget.mode === 'each' ? budgets.each : budgets.total, status: 'open', winner: null, judge: null, createdAt: this.now(), closedAt: null };
      try {
        this.repo.insertGroup(
          group,
          plans.map((p) => ({ groupId: group.id, index: p.index, executor: p.executor, profile: p.profile, model: p.model, placement: p.placement, budgetUsd: p.budgetUsd, branch: p.branch, worktree: p.worktree, runIds: [], archivedRef: null })),
        );
      } catch (e) {
        for (const p of made) await this.dropWorktree(root, p.worktree, p.branch);
        // Another Flightdeck process opened candidates of this feature meanwhile (one open group per feature).
        if ((e as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new AppError('conflict', `The feature "${o.slug}" already has open candidates (started by another Flightdeck process).`);
        throw e;
      }
      const runs: FeatureRunInfo[] = [];
      for (const c of this.repo.candidates(group.id)) runs.push(await this.enqueue(group, c, o.onSession));
      return { started: true, groupId: group.id, ...answer, runs };
    });
  }

  private candidateStatePath(root: string, slug: string, c: CandidateRow): string {
    return join(root, c.worktree, FEATURES_DIR, slug, STATE_FILE);
  }

  private async enqueue(g: GroupRow, c: CandidateRow, onSession?: (sessionId: string) => void): Promise<FeatureRunInfo> {
    const { done, ...info } = await this.o.runs.enqueue({
      projectPath: g.projectPath,
      slug: g.slug,
      executor: c.executor,
      ...(c.placement ? { placement: c.placement } : {}),
      ...(onSession ? { onSession } : {}),
      candidate: { statePath: this.candidateStatePath(g.projectPath, g.slug, c), label: candidateLabel(c.index), ...(c.profile ? { profile: c.profile } : {}), ...(c.model ? { model: c.model } : {}), budgetUsd: c.budgetUsd },
    });
    this.repo.addRun(g.id, c.index, info.id);
    // The outcome arrives as run events and in the run's row.
    void done;
    return info;
  }

  /** Best-effort removal of a candidate worktree that holds nothing yet. */
  private async dropWorktree(root: string, worktree: string, branch: string): Promise<void> {
    // Its setup may still run (another candidate failed first): it must not go on in a deleted folder.
    await this.o.stopSetup?.(join(root, worktree));
    await this.o.git.removeWorktree(root, join(root, worktree), { force: true }).catch((e: unknown) => this.o.logger.warn('could not remove a half-made candidate worktree', { worktree, error: e }));
    await this.o.git.deleteBranch(root, branch, { force: true }).catch((e: unknown) => this.o.logger.warn('could not delete a half-made candidate branch', { branch, error: e }));
  }

  /** Candidates whose run was interrupted (the app stopped) are queued again; each resumes where it stopped. */
  async resumeInterrupted(): Promise<FeatureRunInfo[]> {
    const started: FeatureRunInfo[] = [];
    for (const g of this.repo.allOpen()) {
      for (const c of this.repo.candidates(g.id)) {
        const last = c.runIds[c.runIds.length - 1];
        const row = last ? this.repo.runs([last])[0] : undefined;
        if (row && row.status !== 'interrupted') continue;
        if (last && this.o.runs.isLive(last)) continue;
        try {
          started.push(await this.enqueue(g, c));
        } catch (e) {
          // Its worktree or state is gone, or another process runs it: left as it is, said why.
          this.o.logger.info('a candidate was not resumed', { slug: g.slug, candidate: c.index, reason: e instanceof Error ? e.message : String(e) });
        }
      }
    }
    return started;
  }

  /** Cancels the feature's queued and running candidates; how many. */
  cancel(projectPath: string, slug: string): number {
    const g = this.repo.open(projectPath, slug);
    if (!g) return 0;
    let n = 0;
    for (const c of this.repo.candidates(g.id)) {
      const last = c.runIds[c.runIds.length - 1];
      if (last && this.o.runs.isLive(last)) {
        this.o.runs.abort(last, { kind: 'cancel' });
        n++;
      }
    }
    return n;
  }

  // ---- compare ------------------------------------------------------------------------------

  compare(projectPath: string, slug: string): Promise<CandidateGroupInfo | null> {
    return featureErrors(async () => {
      const g = this.repo.latest(projectPath, slug);
      return g ? this.describe(g) : null;
    });
  }

  /** Where a candidate's commits are: its branch while the group is open, its archive ref after. */
  private async headOf(root: string, c: CandidateRow): Promise<string | null> {
    return (c.archivedRef ? await refCommit(root, c.archivedRef) : null) ?? (await refCommit(root, `refs/heads/${c.branch}`));
  }

  /** The candidate's state.yml: in its worktree, or as its last commit holds it once the worktree is gone. */
  private async stateOf(root: string, slug: string, c: CandidateRow, head: string | null): Promise<FeatureState | null> {
    const path = this.candidateStatePath(root, slug, c);
    if (existsSync(path)) return readState(path).catch(() => null);
    if (!head) return null;
    const rel = `${FEATURES_DIR}/${slug}/${STATE_FILE}`;
    const text = await git(['show', `${head}:${rel}`], { cwd: root, maxOutputBytes: 1024 * 1024 }).catch(() => null);
    if (text === null) return null;
    try {
      return parseState(text, rel);
    } catch {
      // A candidate's record made unreadable (its agent wrote it): the comparison shows it without its progress.
      return null;
    }
  }

  private async describe(g: GroupRow): Promise<CandidateGroupInfo> {
    const root = g.projectPath;
    const config = await this.config(root).catch(() => null);
    const checks = config?.checks ?? [];
    const candidates: CandidateComparison[] = [];
    for (const c of this.repo.candidates(g.id)) {
      const head = await this.headOf(root, c);
      const state = await this.stateOf(root, g.slug, c, head);
      const runs = this.repo.runs(c.runIds);
      const last = runs.find((r) => r.id === c.runIds[c.runIds.length - 1]) ?? null;
      const runStatus = (last?.status ?? null) as FeatureRunStatus | null;
      const events = c.runIds.flatMap((id) => {
        try {
          return this.o.runs.events(id).map((e) => e.data);
        } catch {
          // A run whose row is gone (a database restored from before it) has no events to add.
          return [];
        }
      });
      const progress = candidateProgress(events, runStatus, checks);
      const stats = head ? await changeStats(root, g.baseCommit, head) : { files: [], addedFiles: [] };
      const wallMs = runs.reduce((n, r) => (r.startedAt ? n + Math.max(0, (r.endedAt ?? this.now()) - r.startedAt) : n), 0);
      candidates.push({
        index: c.index,
        branch: c.branch,
        worktree: c.worktree,
        executor: c.executor,
        profile: c.profile,
        model: c.model,
        placement: c.placement,
        budgetUsd: c.budgetUsd,
        ...progress,
        runStatus,
        message: last?.message ?? null,
        filesChanged: stats.files.length,
        linesAdded: stats.files.reduce((n, f) => n + f.added, 0),
        linesDeleted: stats.files.reduce((n, f) => n + f.deleted, 0),
        testsAdded: stats.addedFiles.filter(isTestFile),
        inputTokens: state?.total.cost.input_tokens ?? 0,
        outputTokens: state?.total.cost.output_tokens ?? 0,
        costUsd: state?.total.cost_usd ?? 0,
        wallSecs: Math.round(wallMs / 100) / 10,
        head,
        archivedRef: c.archivedRef,
      });
    }
    return { id: g.id, slug: g.slug, status: g.status, baseCommit: g.baseCommit, budgetMode: g.budgetMode, budgetUsd: g.budgetUsd, winner: g.winner, createdAt: g.createdAt, candidates, judge: g.judge };
  }

  /** A candidate's committed change from the start commit, or against another candidate. */
  diff(projectPath: string, slug: string, candidate: number, against?: number): Promise<CandidateDiff> {
    return featureErrors(async () => {
      const g = this.repo.latest(projectPath, slug);
      if (!g) throw new AppError('not_found', `The feature "${slug}" has no candidates.`);
      const rows = this.repo.candidates(g.id);
      const side = async (n: number): Promise<string> => {
        const c = rows.find((r) => r.index === n);
        if (!c) throw new AppError('not_found', `The feature "${slug}" has no candidate ${candidateLabel(n)} (it has ${rows.map((r) => candidateLabel(r.index)).join(', ')}).`);
        const head = await this.headOf(projectPath, c);
        if (!head) throw new AppError('not_found', `The branch of candidate ${candidateLabel(n)} is gone.`);
        return head;
      };
      const to = await side(candidate);
      const from = against !== undefined ? await side(against) : g.baseCommit;
      const stats = await changeStats(projectPath, from, to);
      const d = await diffBetween(projectPath, from, to);
      return { from: against !== undefined ? candidateLabel(against) : 'start', to: candidateLabel(candidate), files: stats.files, text: d.text, truncated: d.truncated };
    });
  }

  // ---- pick ---------------------------------------------------------------------------------

  /**
   * The winner becomes the feature's branch (a fast-forward: the candidates started from its
   * head) and the feature is run, which delivers it; every candidate is archived.
   */
  pick(projectPath: string, slug: string, index: number): Promise<{ group: CandidateGroupInfo; run: FeatureRunInfo | null; message: string }> {
    return this.exclusive(projectPath, slug, async () => {
      const root = projectPath;
      const g = this.repo.open(root, slug);
      if (!g) throw new AppError('not_found', `The feature "${slug}" has no open candidates to pick from.`);
      const rows = this.repo.candidates(g.id);
      const winner = rows.find((r) => r.index === index);
      if (!winner) throw new AppError('not_found', `The feature "${slug}" has no candidate ${candidateLabel(index)} (it has ${rows.map((r) => candidateLabel(r.index)).join(', ')}).`);
      const live = rows.filter((c) => this.repo.runs(c.runIds.slice(-1)).some((r) => LIVE.includes(r.status)));
      if (live.length > 0) throw new AppError('conflict', `Candidate${live.length === 1 ? '' : 's'} ${live.map((c) => candidateLabel(c.index)).join(', ')} ${live.length === 1 ? 'is' : 'are'} still running; wait for ${live.length === 1 ? 'it' : 'them'} or cancel, then pick.`);
      const info = await this.describe(g);
      const chosen = info.candidates.find((c) => c.index === index)!;
      if (chosen.status !== 'finished' || !chosen.head) throw new AppError('conflict', `Candidate ${candidateLabel(index)} did not finish (${chosen.status}${chosen.message ? `: ${chosen.message}` : ''}); pick a finished one.`);

      const statePath = activeStatePath(root, slug);
      // The feature's own record as the candidates started from it: the file may already be the
      // winner's (naming its branch and worktree) when a pick stopped right after the fast-forward.
      const rel = `${FEATURES_DIR}/${slug}/${STATE_FILE}`;
      const own = parseState(await git(['show', `${g.baseCommit}:${rel}`], { cwd: root, maxOutputBytes: 1024 * 1024 }), rel).git;
      const featureTree = resolve(root, own.worktree_path);
      // Anything a candidate left uncommitted is committed on its branch, so its archive holds it.
      for (const c of rows) {
        const tree = join(root, c.worktree);
        if (existsSync(tree) && (await hasChanges(tree, root))) await this.o.git.commit(tree, `chore(${slug}): candidate ${candidateLabel(c.index)} as it was left`, undefined, { repository: root });
      }
      const winnerHead = (await this.headOf(root, winner))!;
      await fastForward(featureTree, root, winnerHead, `candidate ${candidateLabel(index)} (${winner.branch})`);
      // The winner's record names its own branch and worktree: the feature's are put back.
      await updateState(statePath, new Date(this.now()), (s) => ({ ...s, git: own }));
      await this.o.git.commit(featureTree, `chore(${slug}): candidate ${candidateLabel(index)} picked`, [recordPath(slug)], { repository: root });
      await this.archive(g, rows);
      this.repo.close(g.id, 'picked', index, this.now());
      let run: FeatureRunInfo | null = null;
      let message = `Candidate ${candidateLabel(index)} is now ${own.branch}; the candidates' branches are kept under refs/flightdeck/archive/${slug}/${g.id}/.`;
      try {
        const { done, ...started } = await this.o.runs.enqueue({ projectPath: root, slug });
        void done; // The delivery arrives as run events.
        run = started;
        message += ' Delivering it now.';
      } catch (e) {
        message += ` It was not delivered: ${e instanceof Error ? e.message : String(e)} Run the feature to deliver it.`;
      }
      return { group: await this.describe(this.repo.latest(root, slug) ?? g), run, message };
    });
  }

  /**
   * None of them is wanted (all failed, say): every candidate is archived as at a pick and the
   * group closed as discarded; the feature is planned as before and can be run or tried again.
   */
  discard(projectPath: string, slug: string): Promise<CandidateGroupInfo> {
    return this.exclusive(projectPath, slug, async () => {
      const g = this.repo.open(projectPath, slug);
      if (!g) throw new AppError('not_found', `The feature "${slug}" has no open candidates.`);
      const rows = this.repo.candidates(g.id);
      const live = rows.filter((c) => this.repo.runs(c.runIds.slice(-1)).some((r) => LIVE.includes(r.status)));
      if (live.length > 0) throw new AppError('conflict', `Candidate${live.length === 1 ? '' : 's'} ${live.map((c) => candidateLabel(c.index)).join(', ')} ${live.length === 1 ? 'is' : 'are'} still running; cancel first.`);
      for (const c of rows) {
        const tree = join(projectPath, c.worktree);
        if (existsSync(tree) && (await hasChanges(tree, projectPath))) await this.o.git.commit(tree, `chore(${slug}): candidate ${candidateLabel(c.index)} as it was left`, undefined, { repository: projectPath });
      }
      await this.archive(g, rows);
      this.repo.close(g.id, 'discarded', null, this.now());
      return this.describe(this.repo.latest(projectPath, slug) ?? g);
    });
  }

  /** Every candidate's branch kept under its archive ref, then its worktree and branch removed. */
  private async archive(g: GroupRow, rows: readonly CandidateRow[]): Promise<void> {
    const root = g.projectPath;
    for (const c of rows) {
      const head = await refCommit(root, `refs/heads/${c.branch}`);
      if (head) {
        const ref = archiveRef(g.slug, g.id, c.index);
        await keepRef(root, ref, head, `flightdeck: archive candidate ${candidateLabel(c.index)} of ${g.slug}`);
        this.repo.setArchived(g.id, c.index, ref);
      }
      const tree = join(root, c.worktree);
      if (existsSync(tree)) await this.o.git.removeWorktree(root, tree, { force: true });
      if (head) await this.o.git.deleteBranch(root, c.branch, { force: true });
    }
    await this.o.git.pruneWorktrees(root).catch((e: unknown) => this.o.logger.warn('could not prune worktrees after archiving candidates', { error: e }));
  }

  // ---- judge --------------------------------------------------------------------------------

  /** An agent ranks the finished candidates with reasons; its ranking and cost are kept with the group. */
  judge(projectPath: string, slug: string, signal?: AbortSignal): Promise<JudgeRanking> {
    return this.exclusive(projectPath, slug, async () => {
      const root = projectPath;
      const g = this.repo.latest(root, slug);
      if (!g) throw new AppError('not_found', `The feature "${slug}" has no candidates to judge.`);
      const info = await this.describe(g);
      if (info.candidates.some((c) => c.status === 'running' || c.status === 'queued')) throw new AppError('conflict', 'Some candidates are still running; the judge reads finished work.');
      const state = await readState(activeStatePath(root, slug));
      const featureTree = resolve(root, state.git.worktree_path);
      const spec = (name: string) => git(['show', `${g.baseCommit}:${FEATURES_DIR}/${slug}/specs/${name}`], { cwd: root, maxOutputBytes: 512 * 1024 }).catch(() => '(missing)');
      const candidates = [];
      for (const c of info.candidates) {
        const d = c.head ? await diffBetween(root, g.baseCommit, c.head) : { text: '', truncated: false };
        const text = d.text.length > JUDGE_DIFF_CHARS ? d.text.slice(0, JUDGE_DIFF_CHARS) : d.text;
        const issues = Object.entries(c.reviewIssues).filter(([, n]) => n > 0).map(([s, n]) => `${n} ${s}`).join(', ') || 'none';
        candidates.push({ label: candidateLabel(c.index), executor: c.executor, model: c.model, status: c.status, checks: c.checks, issues, files: c.filesChanged, added: c.linesAdded, deleted: c.linesDeleted, tests: c.testsAdded.length, diff: text || '(no changes)', truncated: d.truncated || text.length < d.text.length });
      }
      const templates = projectTemplates(root, [], {});
      const prompt = templates.render('run/judge', { slug, count: candidates.length, design_spec: await spec('design.md'), verification_plan: await spec('verification.md'), candidates });
      const session = this.o.driver.createSession({ root: featureTree, ...(this.o.projectIdOf(root) ? { projectId: this.o.projectIdOf(root)! } : {}), role: 'planner', executor: 'builtin', mode: 'plan', ...(state.agent?.profile ? { profile: state.agent.profile } : {}), ...(state.agent?.model ? { model: state.agent.model } : {}), title: `Judge of ${slug}'s candidates` });
      const labels = info.candidates.map((c) => c.index);
      let report = await this.o.driver.runTurn(session.id, prompt, signal ? { signal } : {});
      let parsed = report.outcome === 'completed' ? parseJudgeAnswer(report.finalText || report.text, labels) : null;
      if (parsed && !parsed.ok) {
        report = await this.o.driver.runTurn(session.id, `Your answer could not be used: ${parsed.reason}. Answer again with only the fenced yaml block, every candidate once.`, signal ? { signal } : {});
        parsed = report.outcome === 'completed' ? parseJudgeAnswer(report.finalText || report.text, labels) : null;
      }
      const cost = this.sessionCost(session.id);
      if (!parsed || !parsed.ok) {
        const why = !parsed ? `its turn ${report.outcome}: ${report.message ?? 'no reason given'}` : parsed.reason;
        throw new AppError('unavailable', `The judge gave no usable ranking (${why}); it cost $${cost.usd.toFixed(4)}. Compare the candidates yourself, or ask again.`);
      }
      const ranking: JudgeRanking = { ...parsed.value, costUsd: cost.usd, inputTokens: cost.inputTokens, outputTokens: cost.outputTokens, at: this.now() };
      this.repo.setJudge(g.id, ranking);
      return ranking;
    });
  }

  private sessionCost(sessionId: string): SessionCost {
    return this.o.db
      .prepare('SELECT COUNT(*) AS calls, COALESCE(SUM(usd), 0) AS usd, COALESCE(SUM(input_tokens), 0) AS inputTokens, COALESCE(SUM(output_tokens), 0) AS outputTokens, COALESCE(MAX(usd), 0) AS maxCallUsd FROM agent_costs WHERE session_id = ?')
      .get(sessionId) as SessionCost;
  }
}
