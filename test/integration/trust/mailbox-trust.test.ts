/**
 * Workspace trust for the mailbox: a project's `.context/*.md` and `.clauderc` are the
 * repository's instructions to the model. Untrusted, a task's model request carries neither (the
 * report says why); once the repository is trusted, both are sent. Real services, real SQLite,
 * the scripted model server; the processor asks the app's trust service as MailboxService wires it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commandText, dropCommand, mailboxHarness, until, type MailboxHarness } from '../mailbox/support';
import { gitIn, makeRepo } from '../../support/temp';
import { trustRepository } from '../../support/trust';

let h: MailboxHarness | null = null;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await h?.cleanup();
  h = null;
  for (const c of cleanups.splice(0)) c();
});

const RULE = 'CONTEXT-RULE-5521';
const PROMPT = 'CLAUDERC-PROMPT-8830';

describe('mailbox .context/ and .clauderc under workspace trust', () => {
  it('untrusted: neither reaches the model and the report says so; trusted: both do', async () => {
    h = await mailboxHarness([{ match: { userPattern: 'TASK-' }, blocks: [{ type: 'text', text: 'Done.' }] }]);
    const repo = makeRepo('fd-mbx-trust-');
    cleanups.push(repo.cleanup);
    mkdirSync(join(repo.path, '.context'));
    writeFileSync(join(repo.path, '.context', 'rules.md'), `# Rules\n\n${RULE}\n`);
    writeFileSync(join(repo.path, '.clauderc'), JSON.stringify({ systemPrompt: PROMPT }));
    gitIn(repo.path, 'add', '.');
    gitIn(repo.path, 'commit', '-q', '-m', 'instructions for agents');
    const app = h.app;
    const p = h.processor({ workspace: repo.path, workspaceFilesTrusted: (ws) => app.trust.mailboxFilesTrusted(repo.path, ws) });
    p.start();
    const sent = (task: string) => {
      const r = h!.server.mainRequests().find((q) => q.userText?.includes(task));
      return r ? JSON.stringify(r.body) : null;
    };

    dropCommand(h.root, 'one.md', commandText({ id: 'task-one', task: 'TASK-ONE' }));
    await until(() => existsSync(join(h!.root, 'commands/processed/one.md')), 'one.md processed', 90_000);
    const first = await until(() => sent('TASK-ONE'), 'the first request');
    expect(first).not.toContain(RULE);
    expect(first).not.toContain(PROMPT);
    expect(readFileSync(join(h.root, 'reports/pending/detailed-report-task-one.md'), 'utf8')).toContain('The repository is untrusted: its .context/ and .clauderc were not read');

    await trustRepository(app, repo.path);
    dropCommand(h.root, 'two.md', commandText({ id: 'task-two', task: 'TASK-TWO' }));
    await until(() => existsSync(join(h!.root, 'commands/processed/two.md')), 'two.md processed', 90_000);
    const second = await until(() => sent('TASK-TWO'), 'the second request');
    expect(second).toContain(RULE);
    expect(second).toContain(PROMPT);
  }, 180_000);
});
