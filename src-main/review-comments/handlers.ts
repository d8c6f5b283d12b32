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
  router.handle('features.comments.reopen', ({ id }) => ({ comment: comments.reopen(id) }));
  router.handle('features.comments.remove', ({ id }) => {
    comments.remove(id);
    return {};
  });
}
