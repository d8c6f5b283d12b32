/**
 * A project's mailbox through the app's MailboxService: the default root in the data folder,
 * the agent working in the mailbox's own worktree of the project (never the user's checkout), a
 * task written the way the UI writes it, and the watcher resumed after a restart of a long-lived host.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { listSessionFiles } from '../../../src-main/mailbox/session-file';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitIn, makeRepo } from '../../support/temp';
import { mailboxHarness, readReport, until, type MailboxHarness } from './support';

describe('project mailboxes in the app', () => {
  let h: MailboxHarness;
  const repo = makeRepo('fd-mbx-project-');
  afterEach(async () => {
    await h?.cleanup();
  });

  it('writes a task into <data>/mailboxes/<project>, runs it in the mailbox worktree (not the checkout), reuses that worktree, and resumes watching after a restart', async () => {
    h = await mailboxHarness([
      { match: { userPattern: 'TASK-PROJECT' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'from-mailbox.txt', content: 'hi\n' } }] },
      { match: { userPattern: 'Created from-mailbox.txt' }, blocks: [{ type: 'text', text: 'ok' }] },
      { match: { userPattern: 'TASK-AFTER-RESTART' }, blocks: [{ type: 'text', text: 'after restart' }] },
    ]);
    const project = await h.app.projects.add(repo.path);
    const svc = h.app.mailbox;
    const m = svc.resolve({ projectId: project.id });
    expect(m.root).toBe(join(h.dataDir, 'mailboxes', project.id));
    expect(m.workspace).toBe(join(project.path, '.trees', 'mailbox'));
    // Created on first use, not before.
    expect(existsSync(m.workspace)).toBe(false);
    const checkout = gitIn(repo.path, 'status', '--porcelain');

    const t = svc.writeTask({ projectId: project.id }, { commandType: 'new', task: 'TASK-PROJECT: write from-mailbox.txt' });
    expect(readFileSync(t.file, 'utf8')).toContain(`project: ${project.id}`);
    svc.watch({ projectId: project.id });
    expect(svc.settings().watched).toEqual([project.id]);
    await until(() => existsSync(join(m.root, 'commands/processed', `${t.id}.md`)), 'the task processed');
    // The agent wrote into the worktree on branch feature/mailbox; the user's checkout is untouched
    // (the .trees/ ignore entry went to .git/info/exclude, not .gitignore).
    expect(readFileSync(join(m.workspace, 'from-mailbox.txt'), 'utf8')).toBe('hi\n');
    expect(existsSync(join(repo.path, 'from-mailbox.txt'))).toBe(false);
    expect(gitIn(repo.path, 'status', '--porcelain')).toBe(checkout);
    expect(gitIn(m.workspace, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('feature/mailbox');
    expect(existsSync(join(m.workspace, 'AGENT_MISSION.md'))).toBe(true);
    // The session file and the report name the worktree as the workspace.
    const sessionFiles = listSessionFiles(m.root).sessions;
    expect(sessionFiles.map((x) => x.workspace)).toEqual([m.workspace]);
    const report = readReport(join(m.root, 'reports/pending', `detailed-report-${t.id}.md`), true);
    expect(report.text).toContain(m.workspace);
    // The worktree is a git checkout: the file list and the status come from git.
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
    // The second task reused the same worktree: its first task's files are still there, one worktree only.
    expect(listSessionFiles(m.root).sessions.map((x) => x.workspace)).toEqual([m.workspace, m.workspace]);
    expect(readFileSync(join(m.workspace, 'from-mailbox.txt'), 'utf8')).toBe('hi\n');
    expect(gitIn(repo.path, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(2);
    expect(gitIn(repo.path, 'worktree', 'list')).toContain(realpathSync(m.workspace));
    await h.app.mailbox.unwatch({ projectId: project.id });
    expect(h.app.mailbox.settings().watched).toEqual([]);
    repo.cleanup();
  }, 120_000);

  it('a folder in the way of the mailbox worktree: the task fails naming it, nothing else is touched', async () => {
    h = await mailboxHarness([]);
    const other = makeRepo('fd-mbx-blocked-');
    try {
      const project = await h.app.projects.add(other.path);
      const svc = h.app.mailbox;
      const m = svc.resolve({ projectId: project.id });
      mkdirSync(m.workspace, { recursive: true });
      writeFileSync(join(m.workspace, 'mine.txt'), 'the user\'s file\n');
      const t = svc.writeTask({ projectId: project.id }, { commandType: 'new', task: 'TASK-BLOCKED' });
      svc.watch({ projectId: project.id });
      await until(() => existsSync(join(m.root, 'commands/processed', `${t.id}.md`)), 'the task processed');
      const report = readReport(join(m.root, 'reports/pending', `report-${t.id}.md`), false);
      expect(report.fm.status).toBe('FAILED');
      expect(report.text).toContain('could not be prepared');
      expect(report.text).toContain('already exists and is not a worktree');
      expect(readdirSync(m.workspace)).toEqual(['mine.txt']);
      expect(h.server.mainRequests()).toHaveLength(0);
      await svc.unwatch({ projectId: project.id });
    } finally {
      other.cleanup();
    }
  }, 120_000);

  it('creates a project’s AGENT_MISSION.md from the chosen template before any task (the worktree made for it), and keeps an existing one', async () => {
    h = await mailboxHarness([]);
    const r1 = makeRepo('fd-mbx-mission-en-');
    const r2 = makeRepo('fd-mbx-mission-zh-');
    try {
      const en = await h.app.projects.add(r1.path);
      const zh = await h.app.projects.add(r2.path);
      const checkout = gitIn(r1.path, 'status', '--porcelain');
      expect(h.app.mailbox.mission(en.id)).toBeNull();
      const text = await h.app.mailbox.createMission(en.id, 'en');
      expect(text).toContain('\n## Next Steps\n');
      expect(readFileSync(join(r1.path, '.trees/mailbox/AGENT_MISSION.md'), 'utf8')).toBe(text);
      expect(gitIn(r1.path, 'status', '--porcelain')).toBe(checkout);
      expect(await h.app.mailbox.createMission(zh.id, 'zh')).toContain('\n## 下一步指令 (Next Steps)\n');
      // An existing mission is never replaced.
      writeFileSync(join(r1.path, '.trees/mailbox/AGENT_MISSION.md'), '# mine\n');
      expect(await h.app.mailbox.createMission(en.id, 'zh')).toBe('# mine\n');
    } finally {
      r1.cleanup();
      r2.cleanup();
    }
  });
});
