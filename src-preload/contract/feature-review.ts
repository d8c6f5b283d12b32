/**
 * Reviewing a feature: its branch's diff against its base (file by file, uncommitted work
 * included) and what model calls cost per day. Read-only.
 */
import { z } from 'zod';
import { request } from './define';
import { ChangeSet } from './changes';
import { ProjectId } from './projects';
import { FeatureSlug } from './feature-slug';

/** The rule itself is checked in main, with its message. */
const Slug = FeatureSlug;

export const FeatureDiff = z.object({
  slug: z.string(),
  branch: z.string(),
  base: z.string(),
  mergeBase: z.string().nullable(),
  changes: ChangeSet,
});
export type FeatureDiff = z.infer<typeof FeatureDiff>;

export const SpendDay = z.object({
  day: z.string(),
  usd: z.number().nonnegative(),
  calls: z.number().int().nonnegative(),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
});
export type SpendDay = z.infer<typeof SpendDay>;

export const ProjectTimelineFeature = z.object({
  slug: z.string(),
  status: z.string(),
  phases: z.array(z.object({ name: z.string(), status: z.string(), startedAt: z.string().nullable(), completedAt: z.string().nullable(), costUsd: z.number() })),
});
export type ProjectTimelineFeature = z.infer<typeof ProjectTimelineFeature>;

export const featureReviewRequests = {
  'featureReview.projectTimeline': request(
    z.object({ projectId: ProjectId }).strict(),
    z.object({ features: z.array(ProjectTimelineFeature), problems: z.array(z.string()) }),
    "Every feature of a project with its phases' times and costs (the project's timeline).",
  ),
  'featureReview.diff': request(z.object({ projectId: ProjectId, slug: Slug }).strict(), FeatureDiff, "A feature branch's changes against the point where it left its base, uncommitted work included."),
  'featureReview.spend': request(
    z
      .object({
        days: z.number().int().min(1).max(366).default(30),
        /** Minutes east of UTC (the negation of the browser's getTimezoneOffset()). */
        tzOffsetMinutes: z.number().int().min(-14 * 60).max(14 * 60).default(0),
        projectId: ProjectId.optional(),
      })
      .strict(),
    z.object({ days: z.array(SpendDay) }),
    'Model spend per calendar day, across projects or for one.',
  ),
} as const;
