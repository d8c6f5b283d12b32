/**
 * A project's mailbox through the app's MailboxService: the default root in the data folder,
 * the agent working in the project's folder, a task written the way the UI writes it, and the
 * watcher resumed after a restart of a long-lived host.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeRepo } from '../../support/temp';
import { mailboxHarness, readReport, until, type MailboxHarness } from './support';

describe('project mailboxes in the app', () => {
  let h: MailboxHarness;
  const repo = makeRepo('fd-mbx-project-');
  afterEach(async () => {
    await h?.cleanup();
  });

  it('writes a task into <data>/mailboxes/<project>, runs it in the project folder, and resumes watching after a restart', async () => {
    h = await mailboxHarness([
      { match: { userPattern: 'TASK-PROJECT' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'from-mailbox.txt', content: 'hi\n' } }] },
      { match: { userPattern: 'Created from-mailbox.txt' }, blocks: [{ type: 'text', text: 'ok' }] },
      { match: { userPattern: 'TASK-AFTER-RESTART' }, blocks: [{ type: 'text', text: 'after restart' }] },
    ]);
    const project = await h.app.projects.add(repo.path);
    const svc = h.app.mailbox;
    const m = svc.resolve({ projectId: project.id });
    expect(m.root).toBe(join(h.dataDir, 'mailboxes', project.id));
    expect(m.workspace).toBe(project.path);

    const t = svc.writeTask({ projectId: project.id }, { commandType: 'new', task: 'TASK-PROJECT: write from-mailbox.txt' });
    expect(readFileSync(t.file, 'utf8')).toContain(`project: ${project.id}`);
    svc.watch({ projectId: project.id });
    expect(svc.settings().watched).toEqual([project.id]);
    await until(() => existsSync(join(m.root, 'commands/processed', `${t.id}.md`)), 'the task processed');
    expect(readFileSync(join(repo.path, 'from-mailbox.txt'), 'utf8')).toBe('hi\n');
    const report = readReport(join(m.root, 'reports/pending', `detailed-report-${t.id}.md`), true);
    // The project is a git repository: the file list and the status come from git.
    expect(report.text).toContain('| from-mailbox.txt | 创建 |');
    expect(report.text).toContain('?? from-mailbox.txt');
    expect(svc.listReports().map((r) => r.commandId)).toEqual([t.id]);
    expect(svc.status(project.id)).toMatchObject({ watching: true, pending: 0, running: [] });

    // Restart: the task written while no watcher runs is taken once the host resumes its watchers.
    await h.restartApp();
    const t2 = h.app.mailbox.writeTask({ projectId: project.id }, { commandType: 'new', task: 'TASK-AFTER-RESTART' });
    expect(h.app.mailbox.isWatching({ projectId: project.id })).toBe(false);
    h.app.mailbox.resumeWatchers();
    expect(h.app.mailbox.isWatching({ projectId: project.id })).toBe(true);
    await until(() => existsSync(join(m.root, 'commands/processed', `${t2.id}.md`)), 'the task after the restart processed');
    await h.app.mailbox.unwatch({ projectId: project.id });
    expect(h.app.mailbox.settings().watched).toEqual([]);
    repo.cleanup();
  }, 120_000);
});
