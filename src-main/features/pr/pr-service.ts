/**
 * The pull request loop: once a feature's run delivered a PR with gh, Flightdeck follows it while
 * the app runs. Each look asks gh for the PR (state, review decision, reviews), its checks and,
 * when a review asks for changes, its line comments (./pr-forge.ts), and ./pr-model.ts decides:
 * a failed check or a "changes requested" review becomes a fix round — the failed jobs' log
 * tails and the comments, anchored, sent by a feature run that starts at review (as diff comments
 * are, ../run/fix-round.ts), which pushes the branch again — up to `pr.max_fix_rounds`, then the
 * feature waits for the user with the reason. Green and approved: Ready to merge, merged by gh
 * when `pr.auto_merge` names a method. A merge on the forge is noticed and recorded.
 *
 * Looks back off while nothing changes; everything the loop knows is in SQLite (./pr-repo.ts),
 * so a restart — or a host killed mid-round — goes on where it stood.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AppError, type FeatureRunEvent } from '../../../src-preload/contract';
import type { EventHub } from '../../bridge/event-hub';
import type { EntryDraft } from '../../inbox/inbox-model';
import type { InboxEntry } from '../../../src-preload/contract';
import { readFileInsideAsync } from '../../platform/contained-path';
import type { Logger } from '../../platform/logger';
import type { Database } from '../../store/db';
import { TREES_DIR } from '../../worktrees/worktree-manager';
import { defaultConfig, loadConfig, recordPath, type FeaturesConfig } from '../config';
import { DefaultGitOps, type GitOps } from '../git-ops';
import { activeStatePath } from '../scanner';
import { readState, updateState } from '../state';
import type { MergeMethod, PrForge } from './pr-forge';
import { decide, nextPollDelay, prFixRoundText, quoteOf, roundSummary, runIdOf, type PrCheck, type PrDecision, type PrLineComment, type PrReview, type PrView } from './pr-model';
import { PrRepo, type FollowRow, type FollowStatus, type PrEventRow, type RoundRow } from './pr-repo';

/** The first look after a change comes soon: CI usually starts within seconds of a push. */
export const PR_POLL_MIN_MS = 30_000;
/** A PR nobody touches is looked at every five minutes: GitHub's rate limit is 5,000 calls an hour, shared with the user's gh. */
export const PR_POLL_MAX_MS = 5 * 60_000;
/** How often due looks are started; a look itself takes a few gh calls. */
const TICK_MS = 1_000;
/** A quoted file of a line comment: source files, not data dumps. */
const MAX_QUOTED_FILE_BYTES = 1024 * 1024;
/** Failed runs whose logs are read in one round: each is one gh call and a few KiB of prompt. */
const MAX_LOGS_PER_ROUND = 5;

/** Statuses under which the PR is looked at; a fixing feature is its run's until it ends. */
const LOOKED_AT: ReadonlySet<FollowStatus> = new Set(['watching', 'needs_review', 'ready', 'needs_input']);

export interface PrRuns {
  /** Queues a run of the feature, its review and verify reopened first unless it is in progress already (a run that died); its id. */
  startFix(repoRoot: string, slug: string, o: { reopen: boolean }): Promise<string>;
  /** Whether a run of the feature is queued or running in a live process. */
  isLive(repoRoot: string, slug: string): boolean;
}

export interface PrFollowOptions {
  db: Database;
  hub: EventHub;
  logger: Logger;
  forge: PrForge;
  /** Records the merge in the feature's worktree; absent: the app's git. */
  git?: GitOps;
  runs: PrRuns;
  inbox?: { add(d: EntryDraft): unknown; settle(done: (e: InboxEntry) => boolean): void };
  projectIdOf?: (repoPath: string) => string | null;
  /**
   * The repository's config with what it may not decide while untrusted put back to the
   * defaults (pr.auto_merge off: a repository cannot have an agent's PR merged unasked).
   * Absent: every repository is untrusted.
   */
  trustedConfig?: (repoRoot: string, config: FeaturesConfig) => Promise<FeaturesConfig>;
  pollMinMs?: number;
  pollMaxMs?: number;
  tickMs?: number;
  now?: () => number;
}

/** What a feature run asks of the loop: the round waiting to be sent, and what became of it. */
export interface PrFixRound {
  pending(): { round: number; text: string } | null;
  markSent(round: number): void;
  markFixed(round: number): void;
}

export interface PrStatusView {
  follow: (Omit<FollowRow, 'nextPollAt' | 'idlePolls' | 'repoRoot'> & { nextPollAt: number | null }) | null;
  rounds: Array<Omit<RoundRow, 'prompt' | 'repoRoot' | 'slug'>>;
  events: PrEventRow[];
  maxFixRounds: number;
  autoMerge: 'off' | MergeMethod;
  gh: { ready: boolean; message: string | null };
}

export const GH_PR_LOOP_MESSAGE =
  'With the GitHub CLI (gh) installed and logged in, Flightdeck opens a pull request when a feature is delivered and follows it: a failing check or a review asking for changes becomes a fix round by the agent, the branch is pushed again, and a green, approved PR is shown Ready to merge (or merged, with pr.auto_merge). Install gh from https://cli.github.com and run "gh auth login" in a terminal.';

type Key = string;
const keyOf = (root: string, slug: string): Key => `${root}\0${slug}`;

export class PrFollowService {
  readonly repo: PrRepo;
  /** How often PRs are looked at (tests shorten it before start). */
  timing: { pollMinMs: number; pollMaxMs: number; tickMs: number };
  private readonly git: GitOps;
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<Key>();
  private disposed = false;
  private off: (() => void) | null = null;
  private ghCache: { at: number; value: { ready: boolean; message: string | null } } | null = null;

  constructor(private readonly o: PrFollowOptions) {
    this.repo = new PrRepo(o.db);
    this.git = o.git ?? new DefaultGitOps();
    this.timing = { pollMinMs: o.pollMinMs ?? PR_POLL_MIN_MS, pollMaxMs: o.pollMaxMs ?? PR_POLL_MAX_MS, tickMs: o.tickMs ?? TICK_MS };
  }

  /** The config the loop goes by: the main checkout's, as far as the repository is trusted. */
  private async config(repoRoot: string): Promise<FeaturesConfig> {
    const raw = await loadConfig(repoRoot).catch(() => defaultConfig());
    if (this.o.trustedConfig) return this.o.trustedConfig(repoRoot, raw).catch(() => ({ ...raw, pr: { ...raw.pr, auto_merge: 'off' as const } }));
    return { ...raw, pr: { ...raw.pr, auto_merge: 'off' } };
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  private get pollMin(): number {
    return this.timing.pollMinMs;
  }

  private get pollMax(): number {
    return this.timing.pollMaxMs;
  }

  /** Listens for delivered runs (every process records a PR its runs opened; a long-lived host follows it). */
  attach(): void {
    if (this.off) return;
    this.off = this.o.hub.subscribe((e) => {
      if (e.topic !== 'featureRuns.event') return;
      const ev = e.payload as FeatureRunEvent;
      if (ev.data.type !== 'RunFinished') return;
      this.onRunFinished(ev).catch((err: unknown) => this.o.logger.warn('pull request loop: a finished run was not taken up', { slug: ev.slug, error: err }));
    });
  }

  /** Long-lived hosts only: looks at the followed PRs from now on and takes up rounds a killed host left. */
  start(): void {
    this.attach();
    if (this.timer || this.disposed) return;
    this.timer = setInterval(() => this.tick(), this.timing.tickMs);
    this.timer.unref?.();
    void this.recover();
  }

  dispose(): void {
    this.disposed = true;
    this.off?.();
    if (this.timer) clearInterval(this.timer);
  }

  // ---- the loop's steps -------------------------------------------------------------------------

  /**
   * Rounds a host killed mid-loop left: a round recorded but whose run never started (killed
   * between the two), or whose run died with it and is not being resumed; a round whose run
   * ended before its end was taken up. Runs already resumed by the run queue are left to it.
   */
  async recover(): Promise<void> {
    for (const f of this.repo.all()) {
      if (f.status !== 'fixing' || this.disposed) continue;
      try {
        await this.takeUpRound(f);
      } catch (e) {
        this.o.logger.warn('pull request loop: a round left by a stopped Flightdeck was not taken up', { slug: f.slug, error: e });
      }
    }
  }

  private async takeUpRound(f: FollowRow): Promise<void> {
    if (this.o.runs.isLive(f.repoRoot, f.slug)) return;
    const state = await readState(activeStatePath(f.repoRoot, f.slug));
    const round = this.repo.lastRound(f.repoRoot, f.slug);
    if (!round) return this.setStatus(f, 'watching', null);
    if (round.status === 'fixed' && state.status === 'completed') return this.roundDone(f, round);
    if (round.status === 'failed') return;
    // Still to send (pending) or sent by a run that died: a run of the feature takes it (again).
    const runId = await this.o.runs.startFix(f.repoRoot, f.slug, { reopen: state.status !== 'in_progress' });
    this.repo.setRound(f.repoRoot, f.slug, round.round, { runId });
    this.changed(f);
  }

  private tick(): void {
    if (this.disposed) return;
    const now = this.now();
    for (const f of this.repo.all()) {
      if (!LOOKED_AT.has(f.status) || f.nextPollAt > now) continue;
      void this.look(f.repoRoot, f.slug);
    }
  }

  /** One look at the PR and what follows from it; never two at once for a feature. */
  async look(repoRoot: string, slug: string): Promise<void> {
    const key = keyOf(repoRoot, slug);
    if (this.inFlight.has(key) || this.disposed) return;
    this.inFlight.add(key);
    try {
      const f = this.repo.get(repoRoot, slug);
      if (f && LOOKED_AT.has(f.status)) await this.lookAt(f);
    } catch (e) {
      this.o.logger.warn('pull request loop: a look failed', { slug, error: e });
      const f = this.repo.get(repoRoot, slug);
      if (f) this.repo.update(repoRoot, slug, { reason: e instanceof Error ? e.message : String(e), nextPollAt: this.now() + this.pollMax }, this.now());
    } finally {
      this.inFlight.delete(key);
    }
  }

  /**
   * Where gh runs: the main checkout Flightdeck recorded, whose remote names the repository. Never
   * the feature's worktree: its .git file is the agent's to rewrite, and gh would then look up
   * (and merge) PR numbers of whatever repository it pointed at.
   */
  private cwdOf(f: { repoRoot: string }): string {
    return f.repoRoot;
  }

  /** The feature's worktree, where a line comment's lines are quoted from (as the agent left them). */
  private treeOf(f: { repoRoot: string; slug: string }): string {
    return join(f.repoRoot, TREES_DIR, f.slug);
  }

  /** A PR whose head is not the feature's branch is not the feature's (the number came from the agent's answer). */
  private foreignPr(f: FollowRow, pr: PrView): string | null {
    const fix = `it is not followed or merged. Follow the right one with feature pr ${f.slug} --follow after fixing state.yml's pr, or merge by hand.`;
    if (pr.headRef !== f.branch) return `Pull request #${f.number} merges ${pr.headRef || 'an unnamed branch'}, not the feature's branch ${f.branch}: ${fix}`;
    // A fork can name a branch like ours; its PR is someone else's code.
    if (pr.crossRepository) return `Pull request #${f.number} merges ${pr.headRef} from another repository (a fork), not the feature's branch: ${fix}`;
    return null;
  }

  private async lookAt(f: FollowRow): Promise<void> {
    const cwd = this.cwdOf(f);
    const view = await this.o.forge.view(cwd, f.number);
    if (this.disposed) return;
    if (!view.ok) return this.unreachable(f, view.message);
    const pr = view.value;
    const foreign = this.foreignPr(f, pr);
    if (foreign) {
      if (f.status !== 'needs_input') this.repo.addEvent(f.repoRoot, f.slug, { kind: 'needs_input', message: foreign }, this.now());
      this.repo.update(f.repoRoot, f.slug, { nextPollAt: this.now() + this.pollMax }, this.now());
      return this.setStatus(f, 'needs_input', foreign);
    }
    const checks = pr.state === 'OPEN' ? await this.o.forge.checks(cwd, f.number, pr.headSha) : { ok: true as const, value: [] as PrCheck[] };
    if (this.disposed) return;
    if (!checks.ok) return this.unreachable(f, checks.message);
    const seenSet = this.repo.seen(f.repoRoot, f.slug);
    const seen = { has: (kind: string, id: string) => seenSet.has(`${kind}\0${id}`) };
    const asksChanges = pr.reviews.some((r) => r.state === 'CHANGES_REQUESTED' && !seen.has('review', r.id));
    let comments: PrLineComment[] = [];
    if (asksChanges) {
      const c = await this.o.forge.lineComments(cwd, f.number);
      if (this.disposed) return;
      // Without its line comments a review still carries its summary; the round goes on.
      if (c.ok) comments = c.value;
      else this.o.logger.warn('pull request loop: line comments unreadable', { slug: f.slug, error: c.message });
    }
    const config = await this.config(f.repoRoot);
    const rounds = this.repo.rounds(f.repoRoot, f.slug).length;
    const decision = decide({ pr, checks: checks.value, comments }, seen, rounds, config.pr.max_fix_rounds);
    this.recordObservations(f, pr, checks.value, seenSet);
    const fingerprint = JSON.stringify([pr.state, pr.reviewDecision, pr.headSha, checks.value.map((c) => [c.id, c.bucket]), pr.reviews.map((r) => r.id), decision.kind]);
    const changed = fingerprint !== f.reviewState;
    const idle = changed ? 0 : f.idlePolls + 1;
    this.repo.update(f.repoRoot, f.slug, { checks: checks.value, reviewState: fingerprint, idlePolls: idle, nextPollAt: this.now() + nextPollDelay(idle, this.pollMin, this.pollMax), reason: f.status === 'needs_input' ? f.reason : null }, this.now());
    await this.act(this.repo.get(f.repoRoot, f.slug) ?? f, decision, pr, config.pr.auto_merge);
    if (changed) this.changed(f);
  }

  /** Checks that changed outcome and reviews not shown before go on the timeline. */
  private recordObservations(f: FollowRow, pr: PrView, checks: readonly PrCheck[], seen: ReadonlySet<string>): void {
    const now = this.now();
    const before = new Map(f.checks.map((c) => [c.id, c.bucket]));
    const ended = checks.filter((c) => c.bucket !== 'pending' && before.get(c.id) !== c.bucket);
    if (ended.length > 0 && !checks.some((c) => c.bucket === 'pending')) {
      const failed = checks.filter((c) => c.bucket === 'fail');
      this.repo.addEvent(f.repoRoot, f.slug, { kind: 'checks', message: failed.length > 0 ? `Checks failed: ${failed.map((c) => c.name).join(', ')} (${checks.length - failed.length} of ${checks.length} passed)` : `Checks passed (${checks.length})` }, now);
    }
    const fresh = pr.reviews.filter((r) => r.state !== 'PENDING' && !seen.has(`reviewed\0${r.id}`));
    for (const r of fresh) {
      const what = r.state === 'APPROVED' ? 'approved' : r.state === 'CHANGES_REQUESTED' ? 'requested changes' : r.state === 'DISMISSED' ? 'review dismissed' : 'commented';
      this.repo.addEvent(f.repoRoot, f.slug, { kind: 'review', message: `${r.author} ${what}${r.body.trim() ? `: ${r.body.trim().slice(0, 200)}` : ''}` }, now);
    }
    this.repo.markSeen(f.repoRoot, f.slug, fresh.map((r) => ({ kind: 'reviewed' as 'review', id: r.id })), null);
  }

  private async act(f: FollowRow, d: PrDecision, pr: PrView, autoMerge: 'off' | MergeMethod): Promise<void> {
    switch (d.kind) {
      case 'merged':
        return this.recordMerged(f, `Merged on GitHub (#${f.number}); the worktree can be cleaned (feature clean).`);
      case 'closed':
        this.repo.addEvent(f.repoRoot, f.slug, { kind: 'closed', message: `Pull request #${f.number} was closed without merging.` }, this.now());
        return this.setStatus(f, 'closed', 'The pull request was closed on GitHub.');
      case 'wait':
        if (f.status === 'needs_input') return;
        return this.setStatus(f, 'watching', d.why);
      case 'needs_review':
        // Needs input means the user has the PR: "Follow again" hands it back to the loop.
        if (f.status === 'needs_input') return;
        if (f.status !== 'needs_review') this.inbox({ kind: 'needs_input', title: `Needs your review: ${f.slug}`, body: `${d.why} ${f.url}` }, f);
        return this.setStatus(f, 'needs_review', d.why);
      case 'ready':
        // A refused auto-merge (or anything else the user was asked about) is not tried again on every look.
        if (f.status === 'needs_input') return;
        if (f.status !== 'ready') {
          this.repo.addEvent(f.repoRoot, f.slug, { kind: 'ready', message: `Checks pass${pr.reviewDecision === 'APPROVED' ? ' and the pull request is approved' : ''}: ready to merge.` }, this.now());
          this.inbox({ kind: 'finished', title: `Ready to merge: ${f.slug}`, body: f.url }, f);
        }
        this.setStatus(f, 'ready', null);
        // Only the commit whose checks were just seen green: a push since then waits for its own checks.
        if (autoMerge !== 'off') await this.merge(f.repoRoot, f.slug, autoMerge, 'auto', pr.headSha);
        return;
      case 'give_up': {
        if (f.status === 'needs_input') return;
        const seen = [...d.checks.map((c) => ({ kind: 'check' as const, id: c.id })), ...d.reviews.map((r) => ({ kind: 'review' as const, id: r.id })), ...d.comments.map((c) => ({ kind: 'comment' as const, id: c.id }))];
        this.repo.markSeen(f.repoRoot, f.slug, seen, null);
        this.repo.addEvent(f.repoRoot, f.slug, { kind: 'needs_input', message: d.reason }, this.now());
        this.inbox({ kind: 'needs_input', title: `Pull request needs you: ${f.slug}`, body: d.reason }, f);
        return this.setStatus(f, 'needs_input', d.reason);
      }
      case 'fix':
        if (f.status === 'needs_input') return;
        return this.startRound(f, d.checks, d.reviews, d.comments, pr);
    }
  }

  private async startRound(f: FollowRow, checks: PrCheck[], reviews: PrReview[], comments: PrLineComment[], pr: PrView): Promise<void> {
    const cwd = this.cwdOf(f);
    const logs = new Map<string, string | null>();
    for (const c of checks) {
      const run = runIdOf(c.link);
      if (!run || logs.has(run) || logs.size >= MAX_LOGS_PER_ROUND) continue;
      const log = await this.o.forge.failedLog(cwd, run);
      logs.set(run, log.ok ? log.value : null);
    }
    const tree = this.treeOf(f);
    const quoted = await Promise.all(comments.map(async (c) => ({ comment: c, quote: quoteOf(c, await this.fileAt(tree, c.path)) })));
    const config = await this.config(f.repoRoot);
    const round = this.repo.rounds(f.repoRoot, f.slug).length + 1;
    const text = prFixRoundText({ number: f.number, url: pr.url || f.url, round, maxRounds: config.pr.max_fix_rounds, checks: checks.map((c) => ({ check: c, log: logs.get(runIdOf(c.link) ?? '') ?? null })), reviews, comments: quoted });
    const summary = roundSummary(checks, reviews, comments.length);
    const state = await readState(activeStatePath(f.repoRoot, f.slug));
    const kind = checks.length > 0 && reviews.length > 0 ? 'both' : checks.length > 0 ? 'checks' : 'review';
    this.repo.startRound(
      {
        repoRoot: f.repoRoot,
        slug: f.slug,
        round,
        kind,
        summary,
        prompt: text,
        costBefore: state.total.cost_usd,
        seen: [...checks.map((c) => ({ kind: 'check' as const, id: c.id })), ...reviews.map((r) => ({ kind: 'review' as const, id: r.id })), ...comments.map((c) => ({ kind: 'comment' as const, id: c.id }))],
      },
      this.now(),
    );
    this.inbox({ kind: 'failed', title: `${kind === 'review' ? 'Changes requested' : 'Checks failed'}, fixing: ${f.slug}`, body: `Fix round ${round}: ${summary}` }, f);
    this.changed(f);
    try {
      const runId = await this.o.runs.startFix(f.repoRoot, f.slug, { reopen: true });
      this.repo.setRound(f.repoRoot, f.slug, round, { runId });
    } catch (e) {
      const why = `Fix round ${round} could not start: ${e instanceof Error ? e.message : String(e)}`;
      this.repo.setRound(f.repoRoot, f.slug, round, { status: 'failed', endedAt: this.now() });
      this.repo.addEvent(f.repoRoot, f.slug, { kind: 'needs_input', message: why, round }, this.now());
      this.inbox({ kind: 'needs_input', title: `Pull request needs you: ${f.slug}`, body: why }, f);
      this.setStatus(f, 'needs_input', why);
    }
    this.changed(f);
  }

  private async fileAt(cwd: string, path: string): Promise<string | null> {
    try {
      return (await readFileInsideAsync(cwd, join(cwd, path), { maxBytes: MAX_QUOTED_FILE_BYTES, what: 'commented file' })).toString('utf8');
    } catch {
      // A path out of the worktree, a link, a deleted file: the comment is quoted from GitHub's diff hunk instead.
      return null;
    }
  }

  private unreachable(f: FollowRow, message: string): void {
    const idle = f.idlePolls + 1;
    this.repo.update(f.repoRoot, f.slug, { reason: message, idlePolls: idle, nextPollAt: this.now() + nextPollDelay(idle, this.pollMin, this.pollMax) }, this.now());
    if (f.reason !== message) this.changed(f);
  }

  private setStatus(f: FollowRow, status: FollowStatus, reason: string | null): void {
    const cur = this.repo.get(f.repoRoot, f.slug);
    if (cur && cur.status === status && cur.reason === reason) return;
    this.repo.update(f.repoRoot, f.slug, { status, reason }, this.now());
    this.changed(f);
  }

  // ---- runs -------------------------------------------------------------------------------------

  /** A run of a feature ended: a delivered PR is followed from now on; a fix round's run ends its round. */
  async onRunFinished(ev: FeatureRunEvent): Promise<void> {
    const d = ev.data;
    if (d.type !== 'RunFinished' || this.disposed) return;
    const f = this.repo.get(ev.projectPath, ev.slug);
    if (f && f.status === 'fixing') {
      const round = this.repo.lastRound(f.repoRoot, f.slug);
      if (!round) return this.setStatus(f, 'watching', null);
      if (d.outcome === 'completed') return this.roundDone(f, round);
      // Stopped by a shutdown: the run queue resumes it at the next start, and the round with it.
      if (d.outcome === 'interrupted') return;
      const why = `Fix round ${round.round} did not finish (${d.outcome}): ${d.message ?? 'no reason given'}`;
      this.repo.setRound(f.repoRoot, f.slug, round.round, { status: 'failed', endedAt: this.now() });
      this.repo.addEvent(f.repoRoot, f.slug, { kind: 'needs_input', message: why, round: round.round }, this.now());
      this.inbox({ kind: 'needs_input', title: `Pull request needs you: ${f.slug}`, body: why }, f);
      return this.setStatus(f, 'needs_input', why);
    }
    if (f && f.status === 'stopped') {
      const round = this.repo.lastRound(f.repoRoot, f.slug);
      if (round && round.runId === ev.runId && round.endedAt === null) {
        // The round's run ended after the user stopped following: recorded, and the PR stays unfollowed.
        if (d.outcome === 'interrupted') return; // Resumed at the next start, and ended then.
        this.repo.setRound(f.repoRoot, f.slug, round.round, { status: d.outcome === 'completed' ? 'fixed' : 'failed', endedAt: this.now() });
        this.repo.addEvent(f.repoRoot, f.slug, { kind: 'note', message: `Fix round ${round.round} ${d.outcome === 'completed' ? 'pushed' : `did not finish (${d.outcome})`}; the pull request is not followed (stopped by the user).`, round: round.round }, this.now());
        return this.changed(f);
      }
    }
    if (d.outcome !== 'completed' || d.delivery?.kind !== 'pr' || d.delivery.number === null) return;
    const state = await readState(activeStatePath(ev.projectPath, ev.slug));
    const { created } = this.repo.upsert({ repoRoot: ev.projectPath, slug: ev.slug, number: d.delivery.number, url: d.delivery.url, branch: state.git.branch }, this.now());
    if (created) {
      this.repo.addEvent(ev.projectPath, ev.slug, { kind: 'opened', message: `Pull request #${d.delivery.number} opened: ${d.delivery.url}` }, this.now());
      this.changed({ repoRoot: ev.projectPath, slug: ev.slug });
    } else if (f && f.status !== 'merged') {
      // Run again by the user after the loop stopped: it is followed again.
      this.repo.update(ev.projectPath, ev.slug, { status: 'watching', reason: null, idlePolls: 0, nextPollAt: this.now() }, this.now());
      this.changed(f);
    }
  }

  private async roundDone(f: FollowRow, round: RoundRow): Promise<void> {
    const state = await readState(activeStatePath(f.repoRoot, f.slug)).catch(() => null);
    const cost = state ? Math.max(0, state.total.cost_usd - round.costBefore) : null;
    this.repo.setRound(f.repoRoot, f.slug, round.round, { status: 'fixed', endedAt: this.now(), ...(cost !== null ? { costUsd: cost } : {}) });
    this.repo.addEvent(f.repoRoot, f.slug, { kind: 'round_done', message: `Fix round ${round.round} pushed; waiting for the checks and reviews of the new commit.`, round: round.round, costUsd: cost }, this.now());
    this.repo.update(f.repoRoot, f.slug, { status: 'watching', reason: null, idlePolls: 0, nextPollAt: this.now() + this.pollMin }, this.now());
    this.changed(f);
  }

  /** What a feature run asks of the loop (see ../run/feature-runner.ts). */
  fixRound(repoRoot: string, slug: string): PrFixRound {
    return {
      pending: () => {
        const r = this.repo.openRound(repoRoot, slug);
        return r ? { round: r.round, text: r.prompt } : null;
      },
      markSent: (round) => this.repo.setRound(repoRoot, slug, round, { status: 'sent' }),
      markFixed: (round) => this.repo.setRound(repoRoot, slug, round, { status: 'fixed' }),
    };
  }

  // ---- the user's requests ----------------------------------------------------------------------

  /** Follows the PR recorded in the feature's state.yml (delivered before the loop existed, or stopped). */
  async follow(repoRoot: string, slug: string): Promise<void> {
    const state = await readState(activeStatePath(repoRoot, slug));
    if (!state.pr) throw new AppError('conflict', `The feature "${slug}" has no pull request to follow: deliver it with gh first (its run opens one when gh is installed and logged in).`);
    if (state.status === 'merged') throw new AppError('conflict', `The feature "${slug}" is merged.`);
    const { created } = this.repo.upsert({ repoRoot, slug, number: state.pr.number, url: state.pr.url, branch: state.git.branch }, this.now());
    if (created) this.repo.addEvent(repoRoot, slug, { kind: 'opened', message: `Following pull request #${state.pr.number}: ${state.pr.url}` }, this.now());
    else this.repo.update(repoRoot, slug, { status: 'watching', reason: null, idlePolls: 0, nextPollAt: this.now() }, this.now());
    this.changed({ repoRoot, slug });
  }

  /** Stops following (a round already running finishes; no new one starts). */
  stop(repoRoot: string, slug: string): void {
    const f = this.repo.get(repoRoot, slug);
    if (!f) throw new AppError('not_found', `Flightdeck is not following a pull request of "${slug}".`);
    if (f.status === 'merged' || f.status === 'closed') return;
    this.repo.update(repoRoot, slug, { status: 'stopped', reason: 'Stopped by the user; Follow takes it up again.' }, this.now());
    this.repo.addEvent(repoRoot, slug, { kind: 'note', message: 'Following stopped by the user.' }, this.now());
    this.changed(f);
  }

  /** Merges the PR with gh (`gh pr merge --<method>`) and records the feature merged. */
  async merge(repoRoot: string, slug: string, method: MergeMethod, by: 'user' | 'auto' = 'user', checkedHead?: string): Promise<{ merged: boolean; message: string }> {
    const f = this.repo.get(repoRoot, slug);
    if (!f) throw new AppError('not_found', `Flightdeck is not following a pull request of "${slug}"; merge it on GitHub, or locally with feature merge.`);
    if (f.status === 'merged') return { merged: true, message: `Pull request #${f.number} is merged already.` };
    if (f.status === 'fixing' || this.o.runs.isLive(repoRoot, slug)) throw new AppError('conflict', `The feature "${slug}" is being fixed; merge it when its round has been pushed and checked.`);
    const view = await this.o.forge.view(this.cwdOf(f), f.number);
    const foreign = view.ok ? this.foreignPr(f, view.value) : null;
    if (foreign) throw new AppError('conflict', foreign);
    const matchHead = by === 'auto' ? checkedHead ?? '' : undefined;
    const r: Awaited<ReturnType<PrForge['merge']>> =
      matchHead !== undefined && !/^[0-9a-f]{40,64}$/.test(matchHead)
        ? { ok: false, reason: 'failed', message: `gh named no head commit of pull request #${f.number} to merge` }
        : await this.o.forge.merge(this.cwdOf(f), f.number, method, matchHead);
    if (!r.ok) {
      const message = r.reason === 'not_installed' ? GH_PR_LOOP_MESSAGE : r.message;
      this.repo.addEvent(repoRoot, slug, { kind: 'note', message: `Merge (${method}) refused: ${message}` }, this.now());
      this.changed(f);
      if (by === 'auto') {
        this.inbox({ kind: 'needs_input', title: `Pull request needs you: ${slug}`, body: `pr.auto_merge could not merge: ${message}` }, f);
        this.setStatus(f, 'needs_input', `pr.auto_merge could not merge: ${message}`);
        return { merged: false, message };
      }
      throw new AppError('unavailable', `Could not merge pull request #${f.number}: ${message}`);
    }
    await this.recordMerged(f, `Merged (${method}) with gh${by === 'auto' ? ' (pr.auto_merge)' : ''}.`);
    return { merged: true, message: `Merged pull request #${f.number} (${method}).` };
  }

  /** The feature moves to Merged: its state.yml says so (committed on its branch), the loop ends. */
  private async recordMerged(f: FollowRow, message: string): Promise<void> {
    this.repo.addEvent(f.repoRoot, f.slug, { kind: 'merged', message }, this.now());
    this.repo.update(f.repoRoot, f.slug, { status: 'merged', reason: null }, this.now());
    this.changed(f);
    const tree = this.treeOf(f);
    if (!existsSync(tree)) return;
    try {
      await updateState(activeStatePath(f.repoRoot, f.slug), new Date(this.now()), (s) => ({ ...s, status: 'merged' }));
      await this.git.commit(tree, `chore(${f.slug}): merged on GitHub (#${f.number})`, [recordPath(f.slug)], { repository: f.repoRoot });
    } catch (e) {
      // The PR is merged whatever the local record says; clean finds it merged through gh.
      this.o.logger.warn('pull request loop: the merged state was not recorded in state.yml', { slug: f.slug, error: e });
    }
  }

  async status(repoRoot: string, slug: string): Promise<PrStatusView> {
    const f = this.repo.get(repoRoot, slug);
    const config = await this.config(repoRoot);
    return {
      follow: f ? { slug: f.slug, number: f.number, url: f.url, branch: f.branch, status: f.status, reason: f.reason, checks: f.checks, reviewState: null, createdAt: f.createdAt, updatedAt: f.updatedAt, nextPollAt: LOOKED_AT.has(f.status) ? f.nextPollAt : null } : null,
      rounds: this.repo.rounds(repoRoot, slug).map(({ prompt: _p, repoRoot: _r, slug: _s, ...r }) => r),
      events: this.repo.events(repoRoot, slug),
      maxFixRounds: config.pr.max_fix_rounds,
      autoMerge: config.pr.auto_merge,
      gh: await this.ghReady(repoRoot),
    };
  }

  /** Whether gh can follow PRs here: installed and logged in (asked at most once a minute). */
  async ghReady(cwd: string): Promise<{ ready: boolean; message: string | null }> {
    if (this.ghCache && this.now() - this.ghCache.at < 60_000) return this.ghCache.value;
    let value: { ready: boolean; message: string | null };
    if (!this.o.forge.available()) value = { ready: false, message: `gh is not installed. ${GH_PR_LOOP_MESSAGE}` };
    else {
      const auth = await this.o.forge.authStatus(cwd);
      value = auth.ok ? { ready: true, message: null } : { ready: false, message: `gh is not logged in (${auth.message}). ${GH_PR_LOOP_MESSAGE}` };
    }
    this.ghCache = { at: this.now(), value };
    return value;
  }

  // ---- notices ----------------------------------------------------------------------------------

  private inbox(d: { kind: EntryDraft['kind']; title: string; body: string }, f: { repoRoot: string; slug: string }): void {
    this.o.inbox?.add({ ...d, target: { kind: 'feature', projectId: this.o.projectIdOf?.(f.repoRoot) ?? null, projectPath: f.repoRoot, slug: f.slug } });
  }

  private changed(f: { repoRoot: string; slug: string }): void {
    if (this.disposed) return;
    this.o.hub.publish('features.pr.changed', { projectPath: f.repoRoot, slug: f.slug });
  }
}
