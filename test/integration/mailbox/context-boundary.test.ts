/**
 * Issue 20 §2.5: a workspace's `.context/*.md`, `.clauderc` and AGENT_MISSION.md are read only
 * as regular files inside the workspace, and the Context tab never writes through a `.context`
 * symlink. The workspace is written by the agent (and the repository's author): a link there
 * would send any file of the user's to the model, or write Flightdeck's files wherever it points.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { contextFolders, loadContext } from '../../../src-main/mailbox/context';
import { readClaudercPrompt, readMission } from '../../../src-main/mailbox/mission';
import { startTestApp } from '../../support/app';
import { makeRepo, tempDir } from '../../support/temp';

const SECRET = 'SECRET-CREDENTIALS-7731';
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function dirs(): { workspace: string; mailbox: string; home: string } {
  const ws = tempDir('fd-ctx-ws-');
  const box = tempDir('fd-ctx-box-');
  const home = tempDir('fd-ctx-home-');
  cleanups.push(ws.cleanup, box.cleanup, home.cleanup);
  writeFileSync(join(home.path, 'credentials'), `${SECRET}\n`);
  mkdirSync(join(home.path, 'notes'));
  writeFileSync(join(home.path, 'notes', 'keys.md'), `# keys\n${SECRET}\n`);
  return { workspace: ws.path, mailbox: box.path, home: home.path };
}

describe('mailbox context files stay inside the workspace', () => {
  it('a .context/*.md symlink is left out with a warning naming it; regular files beside it are used', () => {
    const d = dirs();
    mkdirSync(join(d.workspace, '.context'));
    writeFileSync(join(d.workspace, '.context', 'style.md'), 'Use tabs.\n');
    symlinkSync(join(d.home, 'credentials'), join(d.workspace, '.context', 'notes.md'));
    const c = loadContext(contextFolders({ globalDir: null, root: d.mailbox, workspace: d.workspace, taskId: null }));
    expect(c.text).toContain('Use tabs.');
    expect(c.text).not.toContain(SECRET);
    expect(c.files.map((f) => f.name)).toEqual(['style.md']);
    expect(c.warnings.join('\n')).toContain(`${join(d.workspace, '.context', 'notes.md')} is a symbolic link`);
  });

  it('a .context folder that is a symlink is not read at all (not replaced by the mailbox folder either)', () => {
    const d = dirs();
    symlinkSync(join(d.home, 'notes'), join(d.workspace, '.context'));
    const folders = contextFolders({ globalDir: null, root: d.mailbox, workspace: d.workspace, taskId: null });
    expect(folders.project).toBe(join(d.workspace, '.context'));
    const c = loadContext(folders);
    expect(c.text).toBe('');
    expect(c.warnings.join('\n')).toContain(`${join(d.workspace, '.context')} is a symbolic link; its files are not read`);
  });

  it('a .clauderc or AGENT_MISSION.md symlink is not used, with a warning naming it', () => {
    const d = dirs();
    writeFileSync(join(d.home, 'rc.json'), JSON.stringify({ systemPrompt: SECRET }));
    symlinkSync(join(d.home, 'rc.json'), join(d.workspace, '.clauderc'));
    const rc = readClaudercPrompt(d.workspace);
    expect(rc.prompt).toBeNull();
    expect(rc.warning).toContain(`${join(d.workspace, '.clauderc')} is a symbolic link`);
    symlinkSync(join(d.home, 'credentials'), join(d.workspace, 'AGENT_MISSION.md'));
    expect(readMission(d.workspace)).toBeNull();
    // A regular .clauderc is still used.
    const ok = dirs();
    writeFileSync(join(ok.workspace, '.clauderc'), JSON.stringify({ systemPrompt: 'Be brief.' }));
    expect(readClaudercPrompt(ok.workspace)).toEqual({ prompt: 'Be brief.', warning: null });
  });

  it('the Context tab (mailbox.context.save) refuses to write through a .context symlink, naming it, and lists no linked file', async () => {
    const repo = makeRepo('fd-ctx-repo-');
    const home = tempDir('fd-ctx-home-');
    const started = await startTestApp();
    cleanups.push(repo.cleanup, home.cleanup, started.cleanup);
    const app = started.app;
    const project = await app.projects.add(repo.path);
    const m = app.mailbox.resolve({ projectId: project.id });
    mkdirSync(m.workspace!, { recursive: true });
    symlinkSync(home.path, join(m.workspace!, '.context'));
    const r = await app.router.dispatch('mailbox.context.save', { projectId: project.id, layer: 'project', name: 'planted.md', text: 'written through the link' }, { origin: 'test', connectionId: 'ctx-test' });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.message).toContain(`${join(m.workspace!, '.context')} is a symbolic link`);
    expect(existsSync(join(home.path, 'planted.md'))).toBe(false);
    writeFileSync(join(home.path, 'keys.md'), SECRET);
    const listed = await app.router.dispatch('mailbox.context.list', { projectId: project.id }, { origin: 'test', connectionId: 'ctx-test' });
    expect(listed.ok).toBe(true);
    expect(JSON.stringify(listed.ok && listed.value)).not.toContain(SECRET);
    expect(readFileSync(join(home.path, 'keys.md'), 'utf8')).toBe(SECRET);
  });

  it('an ADR that is a symlink is listed by name but never read or shown; a huge report is read only in part', async () => {
    const repo = makeRepo('fd-ctx-adr-repo-');
    const home = tempDir('fd-ctx-adr-home-');
    const started = await startTestApp();
    cleanups.push(repo.cleanup, home.cleanup, started.cleanup);
    const app = started.app;
    const project = await app.projects.add(repo.path);
    const m = app.mailbox.resolve({ projectId: project.id });
    mkdirSync(join(m.workspace, 'docs', 'decisions'), { recursive: true });
    writeFileSync(join(home.path, 'id_rsa'), `# ADR-0001: ${SECRET}\n`);
    symlinkSync(join(home.path, 'id_rsa'), join(m.workspace, 'docs', 'decisions', 'ADR-0001-keys.md'));
    const listed = app.mailbox.listAdrs([{ projectId: project.id }]);
    expect(listed.map((a) => a.number)).toEqual([1]);
    expect(JSON.stringify(listed)).not.toContain(SECRET);
    expect(() => app.mailbox.adrText(project.id, 1)).toThrow(/ADR-0001 is not shown: .* is a symbolic link/);
    // A report of 100 MB (sparse): listed from its head, shown by its tail, never read whole.
    mkdirSync(join(m.root, 'reports', 'pending'), { recursive: true });
    const report = join(m.root, 'reports', 'pending', 'report-task-1.md');
    writeFileSync(report, '---\nsession_id: "s"\nreport_date: "2026-02-22T10:00:00Z"\nstatus: "SUCCESS"\ntags: []\n---\n\n- **原始指令**: big one\n');
    truncateSync(report, 100 * 1024 * 1024);
    const reports = app.mailbox.listReports([{ projectId: project.id }]);
    expect(reports.map((r) => [r.title, r.status])).toEqual([['big one', 'SUCCESS']]);
  });
});
