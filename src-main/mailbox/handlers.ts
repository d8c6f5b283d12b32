import type { Router } from '../bridge/router';
import type { EventHub } from '../bridge/event-hub';
import type { MailboxService, ReportSummary as ServiceReport } from './mailbox-service';

function summary(r: ServiceReport) {
  return { projectId: r.projectId, projectName: r.projectName, commandId: r.commandId, sessionId: r.sessionId, status: r.status, tags: r.tags, reportDate: r.reportDate, title: r.title, commit: r.commit, hasCommandFile: r.commandFile !== null };
}

export function registerMailboxHandlers(router: Router, mailbox: MailboxService, hub: EventHub): void {
  mailbox.onChange((m, e) => {
    hub.publish('mailbox.changed', {
      projectId: m.projectId,
      kind: e.kind,
      commandId: e.kind === 'rejected' ? null : e.commandId,
      file: e.file,
      status: e.kind === 'finished' ? e.status : null,
    });
  });
  router.handle('mailbox.status', ({ projectId }) => mailbox.status(projectId));
  router.handle('mailbox.watch', async ({ projectId, on }) => {
    if (on) mailbox.watch({ projectId });
    else await mailbox.unwatch({ projectId });
    return mailbox.status(projectId);
  });
  router.handle('mailbox.task.create', ({ projectId, commandType, sessionId, task, constraints, expectedOutput, headings, placement, container }) => {
    const r = mailbox.writeTask({ projectId }, { commandType, task, headings: headings ?? 'en', ...(sessionId ? { sessionId } : {}), ...(constraints ? { constraints } : {}), ...(expectedOutput ? { expectedOutput } : {}), ...(placement ? { placement } : {}), ...(container ? { container } : {}) });
    // A task written from the app is meant to run: make sure the project's mailbox is watched.
    mailbox.watch({ projectId });
    return { commandId: r.id, file: r.file };
  });
  router.handle('mailbox.reports.list', (f) => {
    const r = mailbox.searchReports(f);
    return { reports: r.reports.map(summary), tags: r.tags };
  });
  router.handle('mailbox.reports.get', async ({ projectId, commandId }) => {
    const d = await mailbox.report(projectId, commandId);
    return { ...d, summary: summary(d.summary) };
  });
  router.handle('mailbox.adrs.list', ({ projectId }) => ({
    adrs: mailbox.listAdrs(projectId ? [{ projectId }] : undefined).map((a) => ({ projectId: a.projectId, projectName: a.projectName, number: a.number, title: a.title, modifiedAt: a.modifiedAt })),
  }));
  router.handle('mailbox.adrs.get', ({ projectId, number }) => ({ text: mailbox.adrText(projectId, number) }));
  router.handle('mailbox.mission.get', ({ projectId }) => ({ text: mailbox.mission(projectId) }));
  router.handle('mailbox.mission.create', async ({ projectId, language }) => ({ text: await mailbox.createMission(projectId, language) }));
  router.handle('mailbox.context.list', ({ projectId, taskId }) => {
    const c = mailbox.context(projectId, taskId ?? null);
    return {
      files: c.files.map((f) => ({ layer: f.layer, name: f.name, title: f.title, priority: f.priority, tags: f.tags, enabled: f.enabled, text: f.text, warnings: f.warnings })),
      composed: c.composed,
      bytes: c.bytes,
      folders: { global: c.folders.global, project: c.folders.project, task: c.folders.task },
    };
  });
  router.handle('mailbox.context.save', ({ projectId, layer, taskId, name, text }) => {
    mailbox.saveContext(projectId, layer, taskId ?? null, name, text);
    return { ok: true as const };
  });
}
