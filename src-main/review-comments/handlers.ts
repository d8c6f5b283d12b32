import { AppError } from '../../src-preload/contract';
import type { Router } from '../bridge/router';
import type { ProjectService } from '../projects/project-service';
import type { WorktreeManager } from '../worktrees/worktree-manager';
import { validateSlug } from '../worktrees/worktree-model';
import type { ReviewCommentService } from './comment-service';

/** The feature page's diff comments: add, list, reopen, delete (sending them is a feature run). */
export function registerReviewCommentHandlers(
  router: Router,
  comments: ReviewCommentService,
  projects: Pick<ProjectService, 'get'>,
  worktrees: Pick<WorktreeManager, 'repoRoot'>,
  /** Starts the fix round: the feature's review and verify opened again and a run queued; its id. */
  startFix: (repoRoot: string, slug: string) => Promise<string>,
): void {
  const root = async (projectId: string, slug: string) => {
    validateSlug(slug);
    return worktrees.repoRoot(projects.get(projectId).path);
  };
  router.handle('features.comments.list', async ({ projectId, slug }) => ({ comments: comments.list(await root(projectId, slug), slug) }));
  router.handle('features.comments.add', async ({ projectId, slug, file, lineStart, lineEnd, body }) => ({ comment: await comments.add({ repoRoot: await root(projectId, slug), slug, file, lineStart, lineEnd, body }) }));
  router.handle('features.comments.send', async ({ projectId, slug }) => {
    const repoRoot = await root(projectId, slug);
    const open = comments.list(repoRoot, slug, 'open');
    if (open.length === 0) throw new AppError('conflict', `There are no open comments on ${slug} to send.`);
    return { sent: open.length, runId: await startFix(repoRoot, slug) };
  });
  router.handle('comments.reopen', ({ id }) => ({ comment: comments.reopen(id) }));
  router.handle('comments.remove', ({ id }) => {
    comments.remove(id);
    return {};
  });
}

/** What the session comments need of the agent service: where a session works, whether it is busy, and sending it input. */
export interface CommentedSessions {
  getSession(id: string): { root: string; status: string };
  submit(sessionId: string, input: string): { outcome: 'started' | 'queued' };
}

/** A session's Changes view comments: add, list (judged once the session is idle), send as one message. */
export function registerSessionCommentHandlers(router: Router, comments: ReviewCommentService, sessions: CommentedSessions): void {
  const idle = (status: string) => status !== 'running' && status !== 'awaiting_approval';
  router.handle('sessions.comments.list', async ({ sessionId }) => ({ comments: await comments.listForSession(sessionId, { idle: idle(sessions.getSession(sessionId).status) }) }));
  router.handle('sessions.comments.add', async ({ sessionId, file, lineStart, lineEnd, body }) => ({
    comment: await comments.addForSession({ sessionId, root: sessions.getSession(sessionId).root, file, lineStart, lineEnd, body }),
  }));
  router.handle('sessions.comments.send', ({ sessionId }) => {
    sessions.getSession(sessionId);
    const open = comments.openCount(sessionId);
    const text = comments.takeForSession(sessionId);
    if (text === null) throw new AppError('conflict', 'There are no open comments on this session to send.');
    try {
      // As typed input is: a turn now, or queued behind the running one; never dropped.
      return { sent: open, outcome: sessions.submit(sessionId, text).outcome };
    } catch (e) {
      comments.unsendSession(sessionId);
      throw e;
    }
  });
}
