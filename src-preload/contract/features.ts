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
import { FeatureSlug } from './feature-slug';
import { AgentMode, ProfileName, SessionId } from './agents';

/** The rule itself (lowercase letters, digits, single hyphens, ≤ 64) is checked in main with its message. */

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
  /**
   * The documents exactly as the user reviewed them when asking for this revision, their own edits
   * included (null when they did not edit `basedOn`'s): what the diff of this revision is shown against.
   */
  reviewed: z.object({ designMd: z.string(), verificationMd: z.string() }).nullable().default(null),
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
    /** yolo by default: a feature run works unattended (inside the sandbox, the hard floor and the Coder's guard). */
    agentMode: AgentMode.default('yolo'),
  })
  .strict();

// ---- list, status, clean -------------------------------------------------------------------

export const FeatureStatusName = z.enum(['planned', 'in_progress', 'completed', 'failed', 'merged']);
export type FeatureStatusName = z.infer<typeof FeatureStatusName>;

/** A state file that could not be used: its kind (state, yaml, io…), the message with `path:line:` in front. */
export const FeatureProblem = z.object({
  kind: z.string(),
  message: z.string(),
  path: z.string().nullable(),
  line: z.number().int().nullable(),
});
export type FeatureProblem = z.infer<typeof FeatureProblem>;

/** One feature as listed: from its state file (`active`: in its worktree; `merged`: the record on the main checkout). */
export const FeatureSummary = z.object({
  projectId: z.string().nullable(),
  repoRoot: z.string(),
  slug: z.string(),
  /** Null when no good copy of the state file was ever read (only `problem` is known). */
  source: z.enum(['active', 'merged']).nullable(),
  status: FeatureStatusName.nullable(),
  branch: z.string().nullable(),
  baseBranch: z.string().nullable(),
  worktreePath: z.string().nullable(),
  turns: z.number(),
  costUsd: z.number(),
  /**
   * The phase state.yml's current_phase points at — running or next to run, or the one that
   * failed — for the board's cards; null when every phase is done or no state was ever read.
   */
  currentPhase: z
    .object({
      name: z.string(),
      index: z.number().int().nonnegative(),
      count: z.number().int().nonnegative(),
      status: z.enum(['pending', 'running', 'completed', 'failed']),
      startedAt: z.string().nullable(),
    })
    .nullable(),
  /** The issue the feature was planned from (`.flightdeck/<slug>/issue.yml`), for a link on its card. */
  issue: z.object({ number: z.number().int().positive(), url: z.string(), title: z.string() }).nullable().optional(),
  createdAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
  statePath: z.string().nullable(),
  /** The state file fails to parse now: what is shown is its last good content. */
  problem: FeatureProblem.nullable(),
});
export type FeatureSummary = z.infer<typeof FeatureSummary>;

/**
 * A feature as `features.list` carries it: without what its project already says (`projectId`,
 * `repoRoot`) or what only the host reads (`statePath`). A third of each entry, and a listing of
 * 1,000 features is half a megabyte: checked, sent and parsed on every board load.
 */
export const ListedFeature = FeatureSummary.omit({ projectId: true, repoRoot: true, statePath: true });
export type ListedFeature = z.infer<typeof ListedFeature>;

export const ProjectFeatures = z.object({
  projectId: z.string().nullable(),
  name: z.string(),
  repoRoot: z.string(),
  features: z.array(ListedFeature),
  /** Problems of the feature folders themselves (a state file's problem is on its feature). */
  problems: z.array(FeatureProblem),
  /** The project could not be read at all (folder moved, no longer a repository). */
  error: z.string().nullable(),
  /**
   * Asked with `indexedOnly`: the index cannot answer for the project without a reconcile (its
   * first, one under way, a change waiting for one) or it failed, so it comes back without
   * features (`features` and `problems` empty); ask for it alone to wait (or to hear why).
   */
  indexing: z.literal(true).optional(),
});
export type ProjectFeatures = z.infer<typeof ProjectFeatures>;

const TokenCount = z.object({ input_tokens: z.number(), output_tokens: z.number() });

export const FeaturePhaseView = z.object({
  name: z.string(),
  kind: z.enum(['dev', 'quality']),
  status: z.enum(['pending', 'running', 'completed', 'failed']),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  turns: z.number(),
  cost_usd: z.number(),
  cost: TokenCount,
  duration_secs: z.number(),
});
export type FeaturePhaseView = z.infer<typeof FeaturePhaseView>;

/** The state file's content as status shows it (the file's own schema lives in main). */
export const FeatureStateView = z.object({
  feature: z.object({ slug: z.string(), created_at: z.string(), updated_at: z.string() }),
  status: FeatureStatusName,
  current_phase: z.number().int(),
  git: z.object({ worktree_path: z.string(), branch: z.string(), base_branch: z.string() }),
  phases: z.array(FeaturePhaseView),
  pr: z.object({ url: z.string(), number: z.number().int(), title: z.string() }).nullable(),
  total: z.object({ turns: z.number(), cost_usd: z.number(), duration_secs: z.number(), cost: TokenCount }),
});
export type FeatureStateView = z.infer<typeof FeatureStateView>;

export const FeatureGitInfo = z.object({
  worktreePath: z.string(),
  missing: z.boolean(),
  branch: z.string().nullable(),
  base: z.string(),
  aheadOfBase: z.number().int(),
  behindBase: z.number().int(),
  upstream: z.string().nullable(),
  aheadOfUpstream: z.number().int().nullable(),
  behindUpstream: z.number().int().nullable(),
  dirty: z.boolean(),
  changed: z.array(z.string()),
  untracked: z.array(z.string()),
  lastCommit: z.object({ sha: z.string(), subject: z.string(), date: z.string() }).nullable(),
  diskBytes: z.number(),
});
export type FeatureGitInfo = z.infer<typeof FeatureGitInfo>;

export const FeatureDetail = z.object({
  feature: FeatureSummary,
  state: FeatureStateView.nullable(),
  git: FeatureGitInfo.nullable(),
  /** Why an active feature has no git details (git knows no such worktree). */
  gitProblem: z.string().nullable(),
  tokens: TokenCount,
});
export type FeatureDetail = z.infer<typeof FeatureDetail>;

const PrView = z.object({ number: z.number().int(), state: z.enum(['OPEN', 'CLOSED', 'MERGED']), url: z.string(), title: z.string() });

export const CleanReport = z.object({
  repoRoot: z.string(),
  /** Judged by PR state through gh; false: by local merge detection (squash and rebase merges included). */
  usedGh: z.boolean(),
  dryRun: z.boolean(),
  candidates: z.array(
    z.object({
      slug: z.string(),
      branch: z.string(),
      reason: z.enum(['pr_merged', 'pr_closed', 'merged_locally']),
      pr: PrView.nullable(),
      method: z.enum(['ancestry', 'patch-id', 'tree', 'squash-patch-id']).nullable(),
      diskBytes: z.number(),
    }),
  ),
  skipped: z.array(z.object({ slug: z.string(), why: z.string() })),
  removed: z.array(z.object({ slug: z.string(), archiveRef: z.string(), branchDeleted: z.boolean(), reclaimedBytes: z.number(), historyPath: z.string().nullable() })),
  failed: z.array(z.object({ slug: z.string(), message: z.string() })),
  reclaimedBytes: z.number(),
  /** What clean could not do but went on without (origin did not answer the fetch). */
  notes: z.array(z.string()).optional(),
});
export type CleanReport = z.infer<typeof CleanReport>;

const InitInput = z.object({ projectId: ProjectId, executor: FeatureExecutor.default('builtin'), profile: ProfileName.optional(), model: z.string().trim().min(1).max(200).optional() }).strict();
const InitOutput = z.object({
  configPath: z.string(),
  overviewPath: z.string(),
  checks: z.array(z.string()),
  gitignoreUpdated: z.boolean(),
  /** The Planner's analysis session and the Coder's setup session (viewable like any session). */
  sessionIds: z.array(SessionId),
  /** What was not taken from the model and why (its proposal unusable, a check dropped). */
  notes: z.array(z.string()),
});

export const featureRequests = {
  'features.init': request(InitInput, InitOutput, 'Initialize the project for features: .flightdeck/config.yml (validated), overview.md and the .trees/ ignore entry. Refused when a config exists.'),
  'features.init.propose': request(
    InitInput,
    z.object({ proposalId: z.string(), files: z.array(z.object({ path: z.string(), text: z.string() })) }),
    'Init in two steps: the agents analyse the repository and the files init would write come back; nothing is written until features.init.write.',
  ),
  'features.setupFiles.offer': request(
    z.object({ projectId: ProjectId, slug: FeatureSlug }).strict(),
    z.object({ patterns: z.array(z.string()) }),
    "The .gitignore rules for what the feature worktree's setup created and the repository does not ignore (node_modules, a build folder), unless offered before.",
  ),
  'features.setupFiles.answer': request(
    z.object({ projectId: ProjectId, slug: FeatureSlug, add: z.boolean() }).strict(),
    z.object({ added: z.array(z.string()) }),
    'Adds the offered rules to .gitignore (add: true) or declines them; the offer is not made again.',
  ),
  'features.init.write': request(
    z.object({ proposalId: z.string().min(1).max(100), write: z.boolean() }).strict(),
    InitOutput.nullable(),
    'Writes the proposed init files (write: true), or drops them (null).',
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
  'features.list': request(
    z.object({ projectId: ProjectId.optional(), indexedOnly: z.boolean().optional() }).strict(),
    z.object({ projects: z.array(ProjectFeatures) }),
    'Active and merged features of one project or of every project (status, branch, turns, cost), reconciled with their state files first. With indexedOnly, a project the index cannot answer for without a reconcile (or that fails) answers at once, marked indexing, without features.',
  ),
  'features.status': request(
    z.object({ projectId: ProjectId, slug: FeatureSlug }).strict(),
    FeatureDetail,
    "One feature in detail: git (branch, ahead/behind, dirty, last commit), phases with turns, cost and duration, totals and tokens.",
  ),
  'features.clean': request(
    z
      .object({
        projectId: ProjectId,
        /** True: only list the candidates. False: remove them (archived first), which needs confirm. */
        dryRun: z.boolean().default(true),
        confirm: z.boolean().default(false),
        /** Remove only these (the candidates the user saw); default all candidates. */
        slugs: z.array(FeatureSlug).max(500).optional(),
      })
      .strict()
      .refine((v) => v.dryRun || v.confirm, { message: 'removing worktrees needs confirm: true (or dryRun: true to only list them)', path: ['confirm'] }),
    CleanReport,
    'Features whose PR is merged or closed (gh), or whose branch is merged locally: listed, or removed (worktree archived first, branch deleted, merged history kept).',
  ),
} as const;

export const featureEvents = {
  'features.changed': event(z.object({ projectId: z.string().nullable(), repoRoot: z.string() }), "A project's features changed (a state file was written, added, removed or broke): lists re-read."),
  'features.plan.changed': event(z.object({ draft: PlanDraft }), 'A plan draft changed (status, new revision, error).'),
} as const;
