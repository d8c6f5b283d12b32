/**
 * Sessions in worktrees: where a new session works (a new worktree of the project, or the
 * project's checkout itself), and what the user does with a session's worktree from the session
 * (commit, merge into the base locally, push and open a pull request, discard — archived first).
 */
import { z } from 'zod';
import { request } from './define';
import { AgentMode, ProfileName, SandboxMode, Session, SessionId } from './agents';
import { ProjectId } from './projects';
import { SessionWorktreeRef, WorktreeArchive, WorktreeSetup } from './worktrees';

/** The slug rule itself lives in src-main/worktrees/worktree-model.ts (with its message); this only bounds the input. */
const Slug = z.string().min(1).max(200);
/** Files listed by name in a warning; the rest are counted. */
export const LISTED_FILES_MAX = 20;

/** `worktree`: a new worktree and branch from the base; `checkout`: the project's folder itself (the only choice outside git). */
export const SessionPlacement = z.enum(['worktree', 'checkout']);
export type SessionPlacement = z.infer<typeof SessionPlacement>;

/** What the new-session dialog offers for a folder. */
export const PlacementProbe = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('git'),
    /** The main checkout. */
    root: z.string(),
    /** The branch the checkout has checked out (null when detached). */
    currentBranch: z.string().nullable(),
    /** Where a new worktree's branch starts (from `git.base_branch`, `auto` resolved); null when none was found. */
    base: z.string().nullable(),
    branchPrefix: z.string(),
    /** A free worktree name to propose. */
    suggestedSlug: z.string(),
    /** The checkout's uncommitted and untracked files (a session "in the checkout" works among them). */
    dirtyCount: z.number().int().nonnegative(),
    dirtyFiles: z.array(z.string()).max(LISTED_FILES_MAX),
    /** A problem that rules out a new worktree (a config that does not parse, no base branch); null when there is none. */
    worktreeProblem: z.string().nullable(),
  }),
  z.object({ kind: z.literal('folder'), root: z.string(), reason: z.string() }),
]);
export type PlacementProbe = z.infer<typeof PlacementProbe>;

export const SessionWorktreeStatus = z.object({
  worktree: SessionWorktreeRef,
  /** `discarded`: archived and removed (restorable); `missing`: its folder vanished outside Flightdeck. */
  state: z.enum(['active', 'missing', 'discarded']),
  aheadOfBase: z.number().int().nonnegative(),
  behindBase: z.number().int().nonnegative(),
  changed: z.number().int().nonnegative(),
  untracked: z.number().int().nonnegative(),
  files: z.array(z.string()).max(LISTED_FILES_MAX),
  upstream: z.string().nullable(),
  aheadOfUpstream: z.number().int().nonnegative().nullable(),
  behindUpstream: z.number().int().nonnegative().nullable(),
  /** origin's URL, or null when the repository has no `origin`. */
  remote: z.string().nullable(),
  /** Whether the GitHub CLI is on PATH (a push then opens the pull request with it). */
  ghAvailable: z.boolean(),
  lastCommit: z.object({ sha: z.string(), subject: z.string() }).nullable(),
  /** The worktree's setup (null: none ran): a session may start while it still runs. */
  setup: WorktreeSetup.nullable().optional(),
});
export type SessionWorktreeStatus = z.infer<typeof SessionWorktreeStatus>;

export const MergeStrategy = z.enum(['merge', 'squash']);
export type MergeStrategy = z.infer<typeof MergeStrategy>;

const BySession = z.object({ sessionId: SessionId }).strict();

export const sessionWorktreeRequests = {
  'sessionWorktrees.probe': request(
    z.object({ projectId: ProjectId }).strict(),
    PlacementProbe,
    'Where a new session in this project can work: a new worktree (default in a git repository) or the checkout (with its uncommitted files), or only the folder outside git.',
  ),
  'sessionWorktrees.start': request(
    z
      .object({
        projectId: ProjectId,
        placement: SessionPlacement,
        /** The worktree's name (folder and branch suffix); a free one is chosen when absent. */
        slug: Slug.optional(),
        title: z.string().trim().min(1).max(200).optional(),
        mode: AgentMode.optional(),
        profile: ProfileName.optional(),
        sandbox: SandboxMode.optional(),
      })
      .strict(),
    Session,
    'Start a session in a new worktree of the project (branch <branch_prefix>/<slug> from the base) or in its checkout.',
  ),
  'sessionWorktrees.status': request(BySession, SessionWorktreeStatus.nullable(), "A session's worktree: branch, ahead/behind, uncommitted files, remote (null for a session in a checkout)."),
  'sessionWorktrees.commit': request(
    z.object({ sessionId: SessionId, message: z.string().trim().min(1).max(10_000) }).strict(),
    z.object({ sha: z.string(), subject: z.string(), files: z.number().int().nonnegative() }),
    "Commit every change in the session's worktree (untracked files included). Refused when there is nothing to commit.",
  ),
  'sessionWorktrees.merge': request(
    z.object({ sessionId: SessionId, strategy: MergeStrategy }).strict(),
    z.object({ commit: z.string(), base: z.string(), strategy: MergeStrategy, commits: z.number().int().nonnegative(), updatedCheckout: z.string().nullable() }),
    "Merge (or squash) the session's branch into its base locally. Refused, with nothing changed, when it would conflict, when the worktree has uncommitted changes, or when the checkout holding the base is dirty.",
  ),
  'sessionWorktrees.push': request(
    z.object({ sessionId: SessionId }).strict(),
    z.object({
      remote: z.string(),
      branch: z.string(),
      pr: z.object({ url: z.string(), number: z.number().int().nullable(), existing: z.boolean() }).nullable(),
      /** Where to open the pull request by hand (no gh, or gh failed); null when the remote has no known web page. */
      compareUrl: z.string().nullable(),
      /** Why no pull request was opened with gh (not installed, or its error). */
      note: z.string().nullable(),
    }),
    "Push the session's branch to origin and open a pull request with gh, else give the compare URL. Refused when there is no origin.",
  ),
  'sessionWorktrees.discardPreview': request(BySession, z.object({ lines: z.array(z.string()) }), 'What discarding the worktree would lose (files, commit subjects); it is archived first either way.'),
  'sessionWorktrees.discard': request(
    z.object({ sessionId: SessionId, force: z.boolean().default(false) }).strict(),
    z.object({ archive: WorktreeArchive, branchDeleted: z.boolean(), saved: z.array(z.string()) }),
    "Archive the session's worktree under refs/flightdeck/archive/… and remove it. Refused (conflict, naming files and commits) when work would be lost and force is not set.",
  ),
  'sessionWorktrees.restore': request(BySession, z.object({ path: z.string(), branch: z.string().nullable(), archiveRef: z.string(), reappliedDirty: z.boolean() }), "Bring a discarded session worktree back from its newest archive, uncommitted work included."),
  'sessionWorktrees.fork': request(
    z.object({ sessionId: SessionId, turn: z.number().int().min(0).max(1_000_000) }).strict(),
    z.object({ session: Session, turn: z.number().int(), messages: z.number().int(), files: z.array(z.string()) }),
    "Fork a session at a chat turn (0 = before the first): a new session in a new worktree with that turn's files and the conversation up to it. The original is not touched.",
  ),
} as const;
