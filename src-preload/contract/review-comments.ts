import { z } from 'zod';
import { request } from './define';
import { SessionId } from './agents';
import { ProjectId } from './projects';

/** open: not yet sent, or sent and left as it was; sent: in a fix round now; addressed: its lines changed; outdated: its lines are gone. */
export const ReviewCommentStatus = z.enum(['open', 'sent', 'addressed', 'outdated']);
export type ReviewCommentStatus = z.infer<typeof ReviewCommentStatus>;

export const ReviewComment = z.object({
  id: z.string(),
  /** The feature's slug; empty for a session's comment. */
  slug: z.string(),
  /** The agent session whose changes it is on; null for a feature's comment. */
  sessionId: z.string().nullable(),
  /** Relative to the feature's worktree, with forward slashes. */
  file: z.string(),
  lineStart: z.number().int().positive(),
  lineEnd: z.number().int().positive(),
  /** The lines as they were when the comment was made. */
  quote: z.string(),
  body: z.string(),
  /** The commit the comment was made on. */
  revision: z.string(),
  status: ReviewCommentStatus,
  /** The commit the fix round started from, once sent. */
  sentRevision: z.string().nullable(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});
export type ReviewComment = z.infer<typeof ReviewComment>;

/** A path inside the worktree as git names it: relative, no `..` part, no NUL. */
const RepoPath = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => !p.startsWith('/') && !/^[A-Za-z]:/.test(p) && !p.split(/[\\/]/).includes('..') && !p.includes('\0'), 'a path inside the worktree, relative to it');
/** Bounded here; the slug rule itself is checked in main with its message. */
const Slug = z.string().min(1).max(200);

export const reviewCommentRequests = {
  'features.comments.list': request(z.object({ projectId: ProjectId, slug: Slug }).strict(), z.object({ comments: z.array(ReviewComment) }), "A feature's review comments, oldest first."),
  'features.comments.add': request(
    z
      .object({
        projectId: ProjectId,
        slug: Slug,
        file: RepoPath,
        lineStart: z.number().int().positive(),
        lineEnd: z.number().int().positive(),
        body: z.string().trim().min(1).max(20_000),
      })
      .strict()
      .refine((c) => c.lineEnd >= c.lineStart, 'the range ends before it starts'),
    z.object({ comment: ReviewComment }),
    "A comment on lines of a file of the feature's branch (as committed): the lines are quoted from that commit.",
  ),
  'comments.reopen': request(z.object({ id: z.string().min(1).max(100) }).strict(), z.object({ comment: ReviewComment }), 'Marks an addressed or outdated comment open again, to be sent in the next fix round.'),
  'features.comments.send': request(
    z.object({ projectId: ProjectId, slug: Slug }).strict(),
    z.object({ sent: z.number().int().nonnegative(), runId: z.string() }),
    "Send the open comments to the agent: one fix round in a new run of the feature, then review and verify again. Refused when none are open or the feature runs.",
  ),
  'comments.remove': request(z.object({ id: z.string().min(1).max(100) }).strict(), z.object({}), 'Deletes a comment that was not sent yet.'),
  'sessions.comments.list': request(
    z.object({ sessionId: SessionId }).strict(),
    z.object({ comments: z.array(ReviewComment) }),
    "A session's comments on its changes, oldest first; those sent are judged on its folder once it is idle.",
  ),
  'sessions.comments.add': request(
    z
      .object({ sessionId: SessionId, file: RepoPath, lineStart: z.number().int().positive(), lineEnd: z.number().int().positive(), body: z.string().trim().min(1).max(20_000) })
      .strict()
      .refine((c) => c.lineEnd >= c.lineStart, 'the range ends before it starts'),
    z.object({ comment: ReviewComment }),
    "A comment on lines of a file as the session's folder holds it now.",
  ),
  'sessions.comments.send': request(
    z.object({ sessionId: SessionId }).strict(),
    z.object({ sent: z.number().int().nonnegative(), outcome: z.enum(['started', 'queued']) }),
    "Sends the session's open comments to its agent as one message (a turn now, or queued behind the running one, as typed input is). Refused when none are open.",
  ),
} as const;
