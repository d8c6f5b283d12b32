import type { Router } from '../bridge/router';
import type { Logger } from '../platform/logger';
import type { ProjectService } from '../projects/project-service';
import { isFeatureError } from './errors';
import { InitProposals } from './init-proposals';
import type { InitResult, PlanningService } from './planning-service';

/** A features failure crosses the bridge as a typed error with its kind, path and line. */
async function bridged<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw isFeatureError(e) ? e.toAppError() : e;
  }
}

export function registerPlanningHandlers(router: Router, planning: PlanningService, projects: Pick<ProjectService, 'get'>, logger?: Logger): void {
  const initOutput = (r: InitResult) => ({ configPath: r.configPath, overviewPath: r.overviewPath, checks: r.checks, gitignoreUpdated: r.gitignoreUpdated, sessionIds: r.sessionIds, notes: r.notes });
  router.handle('features.init', ({ projectId, executor, profile, model }) =>
    bridged(async () => initOutput(await planning.init({ repo: projects.get(projectId).path, projectId, executor, profile, model }))),
  );
  // The app shows what init will write before it writes it.
  const proposals = new InitProposals();
  router.handle('features.init.propose', ({ projectId, executor, profile, model }) =>
    bridged(() => proposals.propose((confirm) => planning.init({ repo: projects.get(projectId).path, projectId, executor, profile, model, confirm }))),
  );
  router.handle('features.setupFiles.offer', ({ projectId, slug }) => bridged(async () => ({ patterns: await planning.setupIgnoreOffer(projects.get(projectId).path, slug) })));
  router.handle('features.setupFiles.answer', ({ projectId, slug, add }) => bridged(async () => ({ added: await planning.answerSetupIgnoreOffer(projects.get(projectId).path, slug, add) })));
  router.handle('features.init.write', ({ proposalId, write }) =>
    bridged(async () => {
      const r = await proposals.decide(proposalId, write);
      return r ? initOutput(r) : null;
    }),
  );
  router.handle('features.plan.start', ({ projectId, slug, executor, profile, model }) =>
    bridged(async () => ({ draft: await planning.startPlan({ repo: projects.get(projectId).path, projectId, slug, executor, profile, model }) })),
  );
  router.handle('features.plan.send', ({ draftId, message }) =>
    bridged(async () => {
      const r = await planning.send(draftId, message);
      return { sessionId: r.sessionId, outcome: r.outcome, text: r.finalText, message: r.message };
    }),
  );
  router.handle('features.plan.list', ({ projectId }) => bridged(async () => ({ drafts: planning.list(projectId) })));
  router.handle('features.plan.get', ({ draftId }) => bridged(async () => planning.get(draftId)));
  router.handle('features.plan.approveDraft', ({ draftId }) => bridged(() => planning.approveDraft(draftId)));
  router.handle('features.plan.requestChanges', ({ draftId, revision, comments, designMd, verificationMd }) =>
    bridged(() => planning.requestChanges(draftId, { revision, comments, designMd, verificationMd })),
  );
  router.handle('features.plan.approve', ({ draftId, revision, designMd, verificationMd, phases, executor, profile, model, agentMode }) =>
    bridged(() => planning.approve(draftId, { revision, designMd, verificationMd, phases, agent: { executor, profile, model, mode: agentMode } })),
  );
  router.handle('features.plan.discard', ({ draftId }) => bridged(async () => ({ draft: await planning.discard(draftId) })));
  router.handle('issues.list', ({ projectId, label, assignee }) => bridged(async () => ({ issues: await planning.listIssues(projects.get(projectId).path, { label, assignee }) })));
  router.handle('features.plan.fromIssue', ({ projectId, issue, slug, executor, profile, model }) =>
    bridged(async () => {
      const started = await planning.startPlanFromIssue({ repo: projects.get(projectId).path, projectId, issue, slug, executor, profile, model });
      // The Planner's answer streams into the draft's session; a failure shows there and in the
      // draft, so nobody waits on it here.
      void planning.send(started.draft.id, started.message).catch((e: unknown) => logger?.warn('the first planning message of a feature from an issue failed', { draftId: started.draft.id, error: e instanceof Error ? e.message : String(e) }));
      const { number, title, url, state, labels, assignees, author } = started.issue;
      return { draft: started.draft, issue: { number, title, url, state, labels, assignees, author } };
    }),
  );
}
