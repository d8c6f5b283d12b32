/**
 * Best-of-N: one approved plan run by 2–5 candidates at once (each its own worktree and branch
 * `feature/<slug>--c<N>`, its own executor, model or profile, placement and budget), compared on
 * evidence (checks, review issues, size of the change, tests added, tokens, cost, time), ranked
 * by an optional judge agent, and one picked: it becomes the feature's branch and is delivered;
 * the others are archived (their branches kept under refs/flightdeck/archive/).
 */
import { z } from 'zod';
import { request } from './define';
import { ProjectId } from './projects';
import { FeatureSlug } from './feature-slug';
import { FeatureRunInfo, FeatureRunStatus, ReviewSeverity, RunExecutor, RunPlacement } from './feature-runs';

/** Fewer than two is a plain run; more than five costs more than a comparison can use. */
export const MIN_CANDIDATES = 2;
export const MAX_CANDIDATES = 5;

export const CandidateIndex = z.number().int().min(1).max(MAX_CANDIDATES);

/** Names a provider profile or a model: what settings call them, never a path or a flag. */
const AgentName = z.string().min(1).max(200).regex(/^[^\s-][^\s]*$/, 'a name without spaces that does not start with "-"');

export const CandidateSpec = z
  .object({
    executor: RunExecutor.optional(),
    profile: AgentName.optional(),
    model: AgentName.optional(),
    placement: RunPlacement.optional(),
  })
  .strict();
export type CandidateSpec = z.infer<typeof CandidateSpec>;

/** The feature's run budget (agent.max_budget_usd) split evenly, or a budget for each candidate. */
export const CandidateBudget = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('split'), totalUsd: z.number().positive().max(100_000).optional() }).strict(),
  z.object({ mode: z.literal('each'), usd: z.number().positive().max(100_000) }).strict(),
]);
export type CandidateBudget = z.infer<typeof CandidateBudget>;

export const CandidateStartInput = z
  .object({
    projectId: ProjectId,
    slug: FeatureSlug,
    candidates: z.array(CandidateSpec).min(MIN_CANDIDATES).max(MAX_CANDIDATES),
    budget: CandidateBudget.default({ mode: 'split' }),
    /** False: only say what would start (the budget per candidate), start nothing. */
    confirm: z.boolean().default(true),
  })
  .strict();

export const CandidatePlanInfo = z.object({
  index: CandidateIndex,
  branch: z.string(),
  worktree: z.string(),
  executor: RunExecutor,
  profile: z.string().nullable(),
  model: z.string().nullable(),
  placement: RunPlacement.nullable(),
  budgetUsd: z.number(),
});
export type CandidatePlanInfo = z.infer<typeof CandidatePlanInfo>;

export const CandidateStartResult = z.object({
  started: z.boolean(),
  groupId: z.string().nullable(),
  budgetMode: z.enum(['split', 'each']),
  /** The whole the candidates may spend together. */
  totalBudgetUsd: z.number(),
  candidates: z.array(CandidatePlanInfo),
  runs: z.array(FeatureRunInfo),
});
export type CandidateStartResult = z.infer<typeof CandidateStartResult>;

export const CheckVerdict = z.enum(['passed', 'failed', 'not_run']);

/** Where a candidate stands: running (or queued), finished (every phase completed), failed, stopped (cancelled or interrupted). */
export const CandidateStatus = z.enum(['queued', 'running', 'finished', 'failed', 'stopped']);
export type CandidateStatus = z.infer<typeof CandidateStatus>;

export const CandidateComparison = CandidatePlanInfo.extend({
  status: CandidateStatus,
  /** Its latest run's status and message (why it failed). */
  runStatus: FeatureRunStatus.nullable(),
  message: z.string().nullable(),
  phase: z.string().nullable(),
  phasesDone: z.number().int().nonnegative(),
  phasesTotal: z.number().int().nonnegative(),
  /** Each verify check of the last attempt. */
  checks: z.array(z.object({ command: z.string(), verdict: CheckVerdict })),
  verifyAttempts: z.number().int().nonnegative(),
  /** The last readable review round's issues, by severity. */
  reviewIssues: z.record(ReviewSeverity, z.number().int().nonnegative()),
  filesChanged: z.number().int().nonnegative(),
  linesAdded: z.number().int().nonnegative(),
  linesDeleted: z.number().int().nonnegative(),
  /** Test files the candidate added (by name: *.test.*, *_test.*, test_*.py, under test/ or tests/). */
  testsAdded: z.array(z.string()),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  costUsd: z.number().nonnegative(),
  /** From its first run's start to its last run's end (now while running). */
  wallSecs: z.number().nonnegative(),
  head: z.string().nullable(),
  archivedRef: z.string().nullable(),
});
export type CandidateComparison = z.infer<typeof CandidateComparison>;

export const JudgeRanking = z.object({
  ranking: z.array(z.object({ candidate: CandidateIndex, reason: z.string() })),
  summary: z.string(),
  costUsd: z.number().nonnegative(),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  at: z.number(),
});
export type JudgeRanking = z.infer<typeof JudgeRanking>;

export const CandidateGroupInfo = z.object({
  id: z.string(),
  slug: FeatureSlug,
  status: z.enum(['open', 'picked', 'discarded']),
  baseCommit: z.string(),
  budgetMode: z.enum(['split', 'each']),
  budgetUsd: z.number(),
  winner: CandidateIndex.nullable(),
  createdAt: z.number(),
  candidates: z.array(CandidateComparison),
  judge: JudgeRanking.nullable(),
});
export type CandidateGroupInfo = z.infer<typeof CandidateGroupInfo>;

export const CandidateDiff = z.object({
  /** The first side: a candidate, or the start commit when only one is asked for. */
  from: z.string(),
  to: z.string(),
  files: z.array(z.object({ path: z.string(), added: z.number().int().nonnegative(), deleted: z.number().int().nonnegative() })),
  text: z.string(),
  truncated: z.boolean(),
});
export type CandidateDiff = z.infer<typeof CandidateDiff>;

const FeatureRef = { projectId: ProjectId, slug: FeatureSlug };

export const featureCandidateRequests = {
  'featureCandidates.start': request(CandidateStartInput, CandidateStartResult, 'Run 2–5 candidates of the approved plan, each in its own worktree and branch; without confirm, only what would start (the budget of each).'),
  'featureCandidates.compare': request(z.object(FeatureRef).strict(), z.object({ group: CandidateGroupInfo.nullable() }), "The feature's latest candidates compared (while they run too); null when it has none."),
  'featureCandidates.diff': request(
    z.object({ ...FeatureRef, candidate: CandidateIndex, against: CandidateIndex.optional() }).strict(),
    CandidateDiff,
    "A candidate's change from the start commit, or the difference between two candidates (against → candidate).",
  ),
  'featureCandidates.judge': request(z.object(FeatureRef).strict(), JudgeRanking, 'An agent reads the plan, the verification plan, the diffs and the check results of the candidates and ranks them with reasons.'),
  'featureCandidates.pick': request(
    z.object({ ...FeatureRef, candidate: CandidateIndex }).strict(),
    z.object({ group: CandidateGroupInfo, run: FeatureRunInfo.nullable(), message: z.string() }),
    "Make a finished candidate the feature's branch and deliver it; the others are archived (refs kept) and every candidate worktree removed.",
  ),
  'featureCandidates.discard': request(z.object(FeatureRef).strict(), z.object({ group: CandidateGroupInfo }), 'Pick none: every candidate archived (refs kept) and its worktree removed; the feature stays planned.'),
  'featureCandidates.cancel': request(z.object(FeatureRef).strict(), z.object({ cancelled: z.number().int().nonnegative() }), "Cancel the feature's running candidates (each resumes when started again)."),
} as const;
