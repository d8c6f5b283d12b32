/**
 * The pull request loop of a feature delivered with gh: where it stands (checks, reviews, fix
 * rounds with their cost, the PR's events for the timeline), whether gh can follow PRs here and
 * what it would do otherwise, and the user's merge, stop and follow.
 */
import { z } from 'zod';
import { event, request } from './define';
import { ProjectId } from './projects';
import { FeatureSlug } from './feature-slug';

export const PrFollowStatus = z.enum(['watching', 'fixing', 'needs_review', 'ready', 'needs_input', 'merged', 'closed', 'stopped']);
export type PrFollowStatus = z.infer<typeof PrFollowStatus>;

export const PrMergeMethod = z.enum(['squash', 'merge', 'rebase']);
export type PrMergeMethod = z.infer<typeof PrMergeMethod>;

export const PrCheckView = z.object({
  id: z.string(),
  name: z.string(),
  workflow: z.string(),
  bucket: z.enum(['pass', 'fail', 'pending', 'skipping', 'cancel']),
  link: z.string(),
});

export const PrRoundView = z.object({
  round: z.number().int().positive(),
  /** pending: waiting for its run; sent: the agent has it; fixed: pushed; failed: its run did not finish. */
  status: z.enum(['pending', 'sent', 'fixed', 'failed']),
  kind: z.enum(['checks', 'review', 'both']),
  summary: z.string(),
  runId: z.string().nullable(),
  costBefore: z.number(),
  /** What the round's run cost (null until it ends). */
  costUsd: z.number().nullable(),
  startedAt: z.number().int(),
  endedAt: z.number().int().nullable(),
});
export type PrRoundView = z.infer<typeof PrRoundView>;

export const PrEventView = z.object({
  id: z.number().int(),
  ts: z.number().int(),
  kind: z.enum(['opened', 'checks', 'review', 'fix_round', 'round_done', 'needs_input', 'ready', 'merged', 'closed', 'note']),
  message: z.string(),
  round: z.number().int().nullable(),
  costUsd: z.number().nullable(),
});
export type PrEventView = z.infer<typeof PrEventView>;

export const PrStatus = z.object({
  follow: z
    .object({
      slug: z.string(),
      number: z.number().int().positive(),
      url: z.string(),
      branch: z.string(),
      status: PrFollowStatus,
      /** Why it stands there (waiting for checks, the reason it needs the user, gh's error). */
      reason: z.string().nullable(),
      checks: z.array(PrCheckView),
      createdAt: z.number().int(),
      updatedAt: z.number().int(),
      /** When it is looked at next; null when it is not (fixing, merged, closed, stopped). */
      nextPollAt: z.number().int().nullable(),
    })
    .nullable(),
  rounds: z.array(PrRoundView),
  events: z.array(PrEventView),
  maxFixRounds: z.number().int().nonnegative(),
  autoMerge: z.enum(['off', 'squash', 'merge', 'rebase']),
  /** Whether gh is installed and logged in; otherwise what the loop would do and how to enable it. */
  gh: z.object({ ready: z.boolean(), message: z.string().nullable() }),
});
export type PrStatus = z.infer<typeof PrStatus>;

const Target = z.object({ projectId: ProjectId, slug: FeatureSlug }).strict();

/** One followed PR as the board shows it. */
export const PrBoardEntry = z.object({ projectPath: z.string(), slug: z.string(), number: z.number().int().positive(), status: PrFollowStatus, reason: z.string().nullable() });
export type PrBoardEntry = z.infer<typeof PrBoardEntry>;

export const pullRequestRequests = {
  'features.pr.list': request(z.object({}).strict(), z.object({ prs: z.array(PrBoardEntry) }), 'Every followed pull request with where its loop stands (the board places its feature by it).'),
  'features.pr.status': request(Target, PrStatus, "Where the feature's pull request loop stands: checks, reviews, fix rounds with their cost, events, and whether gh can follow it."),
  'features.pr.merge': request(Target.extend({ method: PrMergeMethod }).strict(), z.object({ merged: z.boolean(), message: z.string() }), 'Merge the feature\'s pull request with gh (gh pr merge --squash|--merge|--rebase); the feature moves to Merged.'),
  'features.pr.follow': request(Target.extend({ follow: z.boolean() }).strict(), PrStatus, "Follow the feature's pull request (again), or stop following it."),
} as const;

export const pullRequestEvents = {
  'features.pr.changed': event(z.object({ projectPath: z.string(), slug: z.string() }), "A feature's pull request loop moved (a look, a round, a merge): ask its status again."),
} as const;
