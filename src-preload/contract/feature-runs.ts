/**
 * Feature runs: a planned feature's phases run by a Coder agent in its worktree (development
 * phases, review rounds, verify attempts with real checks, the pull request), several at once up
 * to a limit with a visible queue, resumed after a crash; and the spend budgets that hold for
 * every model call (runs and interactive sessions alike).
 *
 * Run events are appended to the event log under the run's id before they are published, so a
 * view can be rebuilt from `featureRuns.events` after a restart.
 */
import { z } from 'zod';
import { event, request } from './define';
import { ContainerPlacement } from './containers';
import { ProjectId } from './projects';
import { FeatureSlug } from './feature-slug';

/** The rule itself (lowercase letters, digits, single hyphens, ≤ 64) is checked in main with its message. */
const Slug = FeatureSlug;

export const FeatureRunId = z.string().regex(/^frun-[a-z0-9]{6,40}$/, 'not a feature run id');
export type FeatureRunId = z.infer<typeof FeatureRunId>;

export const RunExecutor = z.enum(['builtin', 'claude-code']);
export type RunExecutor = z.infer<typeof RunExecutor>;

/**
 * Where a run's agent session works: on the host (the default), or in a Docker container with
 * the containers' own placement fields (docs/containers.md); the image defaults to the agent
 * image. Strict, so a misspelt field in state.yml is an error rather than silently ignored.
 */
export const RunPlacement = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('host') }).strict(),
  ContainerPlacement.extend({ kind: z.literal('container'), image: ContainerPlacement.shape.image.optional() }).strict(),
]);
export type RunPlacement = z.infer<typeof RunPlacement>;

export const ReviewSeverity = z.enum(['critical', 'major', 'minor', 'info']);
export type ReviewSeverity = z.infer<typeof ReviewSeverity>;

export const ReviewIssue = z.object({
  severity: ReviewSeverity,
  file: z.string(),
  line: z.number().int().positive().optional(),
  description: z.string(),
});
export type ReviewIssue = z.infer<typeof ReviewIssue>;

/** One configured check run in the worktree: its terminal can be opened while it runs and after. */
export const CheckOutcome = z.object({
  command: z.string(),
  /** null when a signal or a timeout ended it. */
  exitCode: z.number().int().nullable(),
  passed: z.boolean(),
  /** The end of what it printed (enough to see why it failed). */
  output: z.string(),
  terminalId: z.string().nullable(),
  durationMs: z.number().nonnegative(),
});
export type CheckOutcome = z.infer<typeof CheckOutcome>;

export const VerifyItem = z.object({ item: z.string(), result: z.enum(['pass', 'fail']), note: z.string().optional() });
export type VerifyItem = z.infer<typeof VerifyItem>;

export const PhaseStats = z.object({
  turns: z.number().int().nonnegative(),
  costUsd: z.number().nonnegative(),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  durationSecs: z.number().nonnegative(),
});
export type PhaseStats = z.infer<typeof PhaseStats>;

export const RunPhaseInfo = z.object({
  name: z.string(),
  kind: z.enum(['dev', 'quality', 'pr']),
  status: z.enum(['pending', 'running', 'completed', 'failed']),
});

/** How a run ended: waiting = an approval nobody could answer stopped it (resume continues). */
export const RunOutcome = z.enum(['completed', 'failed', 'cancelled', 'waiting', 'interrupted']);
export type RunOutcome = z.infer<typeof RunOutcome>;

/** Where the finished work went: a PR, a pushed branch with its compare page, or the local repository only. */
export const Delivery = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('pr'), url: z.string(), number: z.number().int().positive().nullable(), title: z.string() }),
  z.object({ kind: z.literal('compare'), url: z.string().nullable(), remote: z.string() }),
  z.object({ kind: z.literal('local') }),
]);
export type Delivery = z.infer<typeof Delivery>;

/** The run events (RunStarting … RunFinished), plus Queued for the visible queue. */
export const RunEventData = z.discriminatedUnion('type', [
  z.object({ type: z.literal('Queued'), position: z.number().int().positive() }),
  z.object({
    type: z.literal('RunStarting'),
    phases: z.array(RunPhaseInfo),
    /** The first phase this run executes (later than 0 when resuming). */
    startIndex: z.number().int().nonnegative(),
    executor: RunExecutor,
    resumed: z.boolean(),
  }),
  z.object({ type: z.literal('PhaseStarting'), name: z.string(), index: z.number().int().nonnegative(), resumed: z.boolean() }),
  z.object({
    type: z.literal('PhaseCompleted'),
    name: z.string(),
    index: z.number().int().nonnegative(),
    success: z.boolean(),
    stats: PhaseStats,
    /** The commit made after the phase (git.auto_commit), when there was anything to commit. */
    commit: z.string().nullable(),
    message: z.string().nullable(),
  }),
  z.object({
    type: z.literal('ReviewRound'),
    round: z.number().int().positive(),
    issues: z.array(ReviewIssue),
    /** false when the reviewer's answer had no readable `issues:` block (after one reminder). */
    parsed: z.boolean(),
  }),
  z.object({
    type: z.literal('VerifyAttempt'),
    attempt: z.number().int().positive(),
    checks: z.array(CheckOutcome),
    /** What the agent answered after walking the verification plan (null when unreadable). */
    agentResult: z.enum(['pass', 'fail']).nullable(),
    items: z.array(VerifyItem),
    result: z.enum(['pass', 'fail']),
  }),
  z.object({ type: z.literal('CreatingPr') }),
  z.object({ type: z.literal('PrCreated'), url: z.string().nullable(), delivery: Delivery }),
  z.object({
    type: z.literal('RunFinished'),
    success: z.boolean(),
    outcome: RunOutcome,
    message: z.string().nullable(),
    totals: PhaseStats,
    delivery: Delivery.nullable(),
  }),
  /** A budget's warning level was reached (the run goes on) or its maximum stopped a model call. */
  z.object({ type: z.literal('BudgetNotice'), level: z.enum(['warning', 'exceeded']), message: z.string() }),
  /** Something the run did differently from what its files say, and why (state.yml's agent settings not used). */
  z.object({ type: z.literal('Notice'), message: z.string() }),
]);
export type RunEventData = z.infer<typeof RunEventData>;

export const FeatureRunEvent = z.object({
  runId: FeatureRunId,
  projectPath: z.string(),
  slug: z.string(),
  seq: z.number().int().positive(),
  ts: z.number().int(),
  data: RunEventData,
  /** The best-of-N candidate whose run this is (c1 …); absent for a run of the feature itself. */
  candidate: z.string().regex(/^c[1-9]$/).optional(),
});
export type FeatureRunEvent = z.infer<typeof FeatureRunEvent>;

/** cancelling: a cancel was asked from another process; the process running it stops it within a second. */
export const FeatureRunStatus = z.enum(['queued', 'running', 'cancelling', 'completed', 'failed', 'cancelled', 'waiting', 'interrupted']);
export type FeatureRunStatus = z.infer<typeof FeatureRunStatus>;

export const FeatureRunInfo = z.object({
  id: FeatureRunId,
  projectPath: z.string(),
  slug: z.string(),
  executor: RunExecutor,
  status: FeatureRunStatus,
  /** 1-based place in the queue while queued. */
  position: z.number().int().positive().nullable(),
  phase: z.string().nullable(),
  message: z.string().nullable(),
  startedAt: z.number().int().nullable(),
  endedAt: z.number().int().nullable(),
  queuedAt: z.number().int(),
  /** The best-of-N candidate this run is (c1 …); absent for a run of the feature itself. */
  candidate: z.string().regex(/^c[1-9]$/).optional(),
});
export type FeatureRunInfo = z.infer<typeof FeatureRunInfo>;

export const MergeResult = z.object({
  merged: z.boolean(),
  method: z.enum(['merge', 'squash']),
  base: z.string(),
  commit: z.string().nullable(),
  message: z.string(),
});
export type MergeResult = z.infer<typeof MergeResult>;

export const featureRunRequests = {
  'featureRuns.start': request(
    z.object({ projectId: ProjectId, slug: Slug, executor: RunExecutor.optional(), placement: RunPlacement.optional() }).strict(),
    FeatureRunInfo,
    'Run (or resume) a planned or in-progress feature; queued when the parallel limit is reached. A placement overrides the one in state.yml and the project config.',
  ),
  'featureRuns.defaultPlacement': request(
    z.object({ projectId: ProjectId, slug: Slug }).strict(),
    z.object({ placement: RunPlacement, from: z.array(z.enum(['feature', 'project'])) }),
    "Where a run of the feature works unless its start says otherwise: state.yml's agent.placement over the project config's (field by field between containers), else on the host; `from` names the files that said so.",
  ),
  'featureRuns.cancel': request(z.object({ projectId: ProjectId, slug: Slug }).strict(), z.object({ cancelled: z.boolean() }), 'Cancel a queued or running feature run; the worktree and state stay consistent and a later run resumes.'),
  'featureRuns.list': request(z.object({}).strict(), z.object({ runs: z.array(FeatureRunInfo), limit: z.number().int().positive() }), 'The queued and running feature runs (and the latest finished ones).'),
  'featureRuns.events': request(
    z.object({ runId: FeatureRunId, fromSeq: z.number().int().positive().default(1) }).strict(),
    z.object({ events: z.array(FeatureRunEvent) }),
    'The stored events of one run, to rebuild its view after a restart.',
  ),
  'featureRuns.history': request(z.object({ projectId: ProjectId, slug: Slug }).strict(), z.object({ runs: z.array(FeatureRunInfo) }), 'Every run of one feature, newest first.'),
  'featureRuns.merge': request(
    z.object({ projectId: ProjectId, slug: Slug, squash: z.boolean().default(false), confirm: z.boolean() }).strict(),
    MergeResult,
    'Merge a locally completed feature into its base (merge or squash). Without confirm it only says what would happen.',
  ),
  'featureRuns.push': request(
    z.object({ projectId: ProjectId, slug: Slug }).strict(),
    z.object({
      remote: z.string(),
      branch: z.string(),
      pr: z.object({ url: z.string(), number: z.number().int().nullable(), existing: z.boolean() }).nullable(),
      /** Where to open the pull request by hand (no gh, or gh failed); null when the remote has no known web page. */
      compareUrl: z.string().nullable(),
      /** Why no pull request was opened with gh. */
      note: z.string().nullable(),
    }),
    "Push the feature's branch to its remote and open (or find) its pull request with gh, else give the compare URL. Refused while it runs, once merged, or without a remote.",
  ),
  'featureRuns.settings.get': request(z.object({}).strict(), z.object({ maxParallel: z.number().int().positive() }), 'How many features run at once.'),
  'featureRuns.settings.update': request(z.object({ maxParallel: z.number().int().min(1).max(32) }).strict(), z.object({ maxParallel: z.number().int().positive() }), 'Change how many features run at once.'),
} as const;

export const featureRunEvents = {
  'featureRuns.event': event(FeatureRunEvent, 'A persisted event of a feature run (RunStarting … RunFinished).'),
  'featureRuns.changed': event(z.object({ runs: z.array(FeatureRunInfo), limit: z.number().int().positive() }), 'The queue or a run status changed.'),
} as const;
