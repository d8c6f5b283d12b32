import { z } from 'zod';
import { request } from './define';
import { ProfileName } from './agents';
import { FeatureExecutor, PlanDraft } from './features';
import { ProjectId } from './projects';

/** Bounded here; the slug rule itself (lowercase letters, digits, single hyphens) is checked in main with its message. */
const FeatureSlug = z.string().min(1).max(200);

/** An issue of the forge the project's origin is on (GitHub, through `gh`). */
export const ForgeIssue = z.object({
  number: z.number().int().positive(),
  title: z.string(),
  url: z.string(),
  state: z.string(),
  labels: z.array(z.string()),
  assignees: z.array(z.string()),
  author: z.string().nullable(),
});
export type ForgeIssue = z.infer<typeof ForgeIssue>;

/** An issue with what planning reads from it: its text and its discussion. */
export const ForgeIssueDetail = ForgeIssue.extend({
  body: z.string(),
  comments: z.array(z.object({ author: z.string().nullable(), body: z.string() })),
});
export type ForgeIssueDetail = z.infer<typeof ForgeIssueDetail>;

/** The issue a feature was planned from, as the feature records it (`.flightdeck/<slug>/issue.yml`). */
export const FeatureIssueRef = z.object({ number: z.number().int().positive(), url: z.string(), title: z.string() });
export type FeatureIssueRef = z.infer<typeof FeatureIssueRef>;

/** An issue named as the user types it: its number (`12`, `#12`) or its URL. */
export const IssueRef = z
  .string()
  .trim()
  .regex(/^(#?\d{1,9}|https?:\/\/\S+\/issues\/\d{1,9}\/?)$/, 'an issue number (12) or its URL (https://github.com/owner/repo/issues/12)');

export const issueRequests = {
  'issues.list': request(
    z
      .object({
        projectId: ProjectId,
        label: z.string().trim().min(1).max(100).optional(),
        assignee: z.string().trim().min(1).max(100).optional(),
      })
      .strict(),
    z.object({ issues: z.array(ForgeIssue) }),
    "The project's open issues on its forge (gh issue list), newest first, filtered by label or assignee. Refused with how to enable it when gh is missing or not logged in.",
  ),
  'features.plan.fromIssue': request(
    z
      .object({
        projectId: ProjectId,
        issue: IssueRef,
        /** The feature's slug; made from the issue's title when absent. */
        slug: FeatureSlug.optional(),
        executor: FeatureExecutor.default('builtin'),
        profile: ProfileName.optional(),
        model: z.string().trim().min(1).max(200).optional(),
      })
      .strict(),
    z.object({ draft: PlanDraft, issue: ForgeIssue }),
    "Start planning a feature from an issue: its title, body and comments are the Planner's first message (sent in the background; the answer streams into the draft's session), and the feature records the issue (the PR closes it).",
  ),
} as const;
