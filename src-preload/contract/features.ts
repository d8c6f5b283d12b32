/**
 * Features: project init, the planning chat with the Planner, the plan-approval screen's
 * drafts and revisions, and finalize (worktree + branch + specs + state, one commit).
 *
 * The planning chat is an ordinary agent session (role Planner): its text streams through the
 * existing session events (`agents.*`), so the session views show it as they show any chat. A
 * plan draft and its revisions live in the app's data until approval; nothing is written to the
 * repository before `features.plan.approve`.
 */
import { z } from 'zod';
import { event, request } from './define';
import { ProjectId } from './projects';
import { AgentMode, ProfileName, SessionId } from './agents';

/** The rule itself (lowercase letters, digits, single hyphens, ≤ 64) is checked in main with its message. */
const FeatureSlug = z.string().min(1).max(200);

export const PlanDraftId = z.string().regex(/^plan-[a-z0-9]{6,40}$/, 'not a plan draft id');
export type PlanDraftId = z.infer<typeof PlanDraftId>;

/** Who plays the agent roles: the built-in loop or the Claude Code CLI. */
export const FeatureExecutor = z.enum(['builtin', 'claude-code']);
export type FeatureExecutor = z.infer<typeof FeatureExecutor>;

/** Bounded like every other document the app takes: a design spec is text, not a dump. */
const MAX_DOC_CHARS = 400_000;
const Doc = z.string().max(MAX_DOC_CHARS, `at most ${MAX_DOC_CHARS} characters`);

/** A development phase as extracted from `### Phase N: <title>` under `## Development Phases`. */
export const PlanPhase = z.object({
  /** The heading's text after "Phase N:", as the user wrote it. */
  title: z.string(),
  /** The phase's name in state.yml: the title in kebab-case (e.g. "type-definitions"). */
  name: z.string(),
});
export type PlanPhase = z.infer<typeof PlanPhase>;

export const PlanDocKind = z.enum(['design', 'verification']);
export type PlanDocKind = z.infer<typeof PlanDocKind>;

/** A review comment: on the whole plan, or anchored to a selected passage of one document. */
export const PlanComment = z
  .object({
    anchor: z
      .object({
        doc: PlanDocKind,
        /** The selected passage, verbatim. */
        quote: z.string().min(1).max(4000),
        /** Character offset of the passage in that revision's document (disambiguates repeats). */
        offset: z.number().int().nonnegative(),
      })
      .strict()
      .optional(),
    text: z.string().trim().min(1, 'a comment needs text').max(8000),
  })
  .strict();
export type PlanComment = z.infer<typeof PlanComment>;

export const PlanRevision = z.object({
  /** 1, 2, …: every `/approve` or request for changes produces the next one. */
  number: z.number().int().positive(),
  designMd: z.string(),
  verificationMd: z.string(),
  phases: z.array(PlanPhase),
  /** False when the design spec has no `## Development Phases` with `### Phase N: …` sections (never guessed). */
  phasesFound: z.boolean(),
  /** The revision the user reviewed when asking for this one (null for the first). */
  basedOn: z.number().int().positive().nullable(),
  /** The comments that produced this revision (empty for the first). */
  comments: z.array(PlanComment),
  createdAt: z.number().int(),
});
export type PlanRevision = z.infer<typeof PlanRevision>;

/** discussing: chatting; review: a revision awaits approval; generating: the Planner is writing one. */
export const PlanDraftStatus = z.enum(['discussing', 'generating', 'review', 'approved', 'discarded']);
export type PlanDraftStatus = z.infer<typeof PlanDraftStatus>;

export const PlanDraft = z.object({
  id: PlanDraftId,
  projectId: ProjectId,
  slug: z.string(),
  /** The Planner's agent session: the chat, streamed like any session. */
  sessionId: SessionId,
  executor: FeatureExecutor,
  status: PlanDraftStatus,
  /** Number of the newest revision; null before the first `/approve`. */
  revision: z.number().int().positive().nullable(),
  /** Why the last generation failed (cleared by the next success). */
  error: z.string().nullable(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});
export type PlanDraft = z.infer<typeof PlanDraft>;

export const FinalizedFeature = z.object({
  slug: z.string(),
  worktreePath: z.string(),
  branch: z.string(),
  baseBranch: z.string(),
  /** The commit `feat(<slug>): initialize planning artifacts`. */
  commit: z.string(),
  statePath: z.string(),
  phases: z.array(z.string()),
});
export type FinalizedFeature = z.infer<typeof FinalizedFeature>;

/** How the approved feature will be run: stored in its state.yml. */
export const FeatureRunChoice = z
  .object({
    executor: FeatureExecutor,
    profile: ProfileName.nullable().default(null),
    model: z.string().trim().min(1).max(200).nullable().default(null),
    agentMode: AgentMode.default('auto-edit'),
  })
  .strict();

export const featureRequests = {
  'features.init': request(
    z.object({ projectId: ProjectId, executor: FeatureExecutor.default('builtin'), profile: ProfileName.optional(), model: z.string().trim().min(1).max(200).optional() }).strict(),
    z.object({
      configPath: z.string(),
      overviewPath: z.string(),
      checks: z.array(z.string()),
      gitignoreUpdated: z.boolean(),
      /** The Planner's analysis session and the Coder's setup session (viewable like any session). */
      sessionIds: z.array(SessionId),
      /** What was not taken from the model and why (its proposal unusable, a check dropped). */
      notes: z.array(z.string()),
    }),
    'Initialize the project for features: .flightdeck/config.yml (validated), overview.md and the .trees/ ignore entry. Refused when a config exists.',
  ),
  'features.plan.start': request(
    z
      .object({
        projectId: ProjectId,
        slug: FeatureSlug,
        executor: FeatureExecutor.default('builtin'),
        profile: ProfileName.optional(),
        model: z.string().trim().min(1).max(200).optional(),
      })
      .strict(),
    z.object({ draft: PlanDraft }),
    'Start planning a feature: a draft and its Planner chat session. Refused when the slug is invalid or the feature or worktree exists.',
  ),
  'features.plan.send': request(
    z.object({ draftId: PlanDraftId, message: z.string().trim().min(1).max(100_000) }).strict(),
    z.object({ sessionId: SessionId, outcome: z.string(), text: z.string(), message: z.string().nullable() }),
    "Send one chat message to the Planner and wait for its answer (streamed meanwhile as session events).",
  ),
  'features.plan.list': request(
    z.object({ projectId: ProjectId.optional() }).strict(),
    z.object({ drafts: z.array(PlanDraft) }),
    'Open plan drafts (not approved, not discarded), newest first.',
  ),
  'features.plan.get': request(
    z.object({ draftId: PlanDraftId }).strict(),
    z.object({ draft: PlanDraft, current: PlanRevision.nullable(), previous: PlanRevision.nullable() }),
    'A draft with its newest revision and the revision the user reviewed before it (for the diff).',
  ),
  'features.plan.approveDraft': request(
    z.object({ draftId: PlanDraftId }).strict(),
    z.object({ draft: PlanDraft, revision: PlanRevision }),
    '/approve: the Planner writes the design spec and the verification plan from the chat; the phases are extracted. Produces the next revision.',
  ),
  'features.plan.requestChanges': request(
    z
      .object({
        draftId: PlanDraftId,
        /** The revision the comments are about (refused when it is not the newest). */
        revision: z.number().int().positive(),
        comments: z.array(PlanComment).min(1, 'request changes needs at least one comment').max(200),
        /** The documents as the user edited them on the approval screen, when edited. */
        designMd: Doc.optional(),
        verificationMd: Doc.optional(),
      })
      .strict(),
    z.object({ draft: PlanDraft, revision: PlanRevision }),
    'Send the comments to the Planner as structured feedback; it produces the next revision.',
  ),
  'features.plan.approve': request(
    z
      .object({
        draftId: PlanDraftId,
        /** The revision approved (refused when a newer one exists: every revision is approved on its own). */
        revision: z.number().int().positive(),
        designMd: Doc,
        verificationMd: Doc,
        /** The development phases as edited/reordered on the approval screen (titles). */
        phases: z.array(z.string().trim().min(1).max(200)).max(100),
      })
      .extend(FeatureRunChoice.shape)
      .strict(),
    z.object({ draft: PlanDraft, feature: FinalizedFeature }),
    'Approve and finalize: worktree and branch, specs/design.md, specs/verification.md, state.yml, one commit; the feature is then planned.',
  ),
  'features.plan.discard': request(
    z.object({ draftId: PlanDraftId }).strict(),
    z.object({ draft: PlanDraft }),
    'Discard a plan draft; nothing was written to the repository.',
  ),
} as const;

export const featureEvents = {
  'features.plan.changed': event(z.object({ draft: PlanDraft }), 'A plan draft changed (status, new revision, error).'),
} as const;
