import { test, expect } from '@playwright/test';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startModelServer, type ModelServer, type Script } from '../fixtures/model-server/index';
import { missionTemplate } from '../../src-main/mailbox/mission';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { MailboxPage } from './poms/mailbox';
import { makeRepo } from '../support/temp';

const ADR = ['# ADR-0001: Greet in plain text', '', '## 上下文', 'The greeting needs a format.', '', '## 失败的尝试', 'JSON was too heavy.', '', '## 最终决策', 'A plain text file.', '', '## 后果', 'Nothing else reads it.', ''].join('\n');
const mission = missionTemplate(new Date('2026-02-22T00:00:00Z')).replace('| [模块名] | 未开始 | 0% | - | - |', '| greeting | 完成 | 100% | 2026-02-22 | hello.txt |').replace('- [ ] [待完成任务 1]', '- [ ] translate the greeting');
const write = (path: string, content: string, userPattern: string) => ({ match: { userPattern }, blocks: [{ type: 'tool_use' as const, name: 'write', input: { path, content } }] });

let host: RunningHost;
let model: ModelServer;
let repo: { path: string; cleanup(): void };

test.beforeAll(async () => {
  const script: Script = [
    // The first answer is held back a moment, so the task is seen running.
    { ...write('hello.txt', 'Hello from the mailbox\n', 'GREETING-TASK'), fault: { kind: 'stall' as const, ms: 3_000 } },
    write('docs/decisions/ADR-0001-greet-in-plain-text.md', ADR, 'Created hello.txt'),
    write('AGENT_MISSION.md', mission, 'Created docs/decisions/ADR-0001'),
    {
      match: { userPattern: 'Overwrote AGENT_MISSION.md' },
      blocks: [{ type: 'text', text: 'Wrote the greeting.\n```json\n{"summary":"Wrote hello.txt with a greeting and recorded ADR-0001.","features":["hello.txt"],"decisions":[{"decision":"plain text","reason":"simple"}],"progress":"greeting 100%","next_steps":["translate the greeting"],"tags":["greeting","e2e"]}\n```' }],
    },
  ];
  model = await startModelServer({ script });
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' } });
  repo = makeRepo('fd-e2e-mailbox-');
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
});

test('create a task from the UI, watch it run, read its report, follow it to the transcript, open the ADR and the mission', async ({ page }) => {
  test.setTimeout(180_000);
  const board = new BoardPage(page);
  await board.open(host.url);
  const project = await board.addProject(repo.path);

  const mb = new MailboxPage(page);
  await mb.open();
  await mb.chooseProject(project);
  await mb.createTask('GREETING-TASK: write hello.txt with a greeting, and record why in an ADR');

  // The form switches to the reports, which show the task running, then its report.
  await expect(page.getByTestId('mailbox-running')).toContainText('Running: task-', { timeout: 30_000 });
  await page.screenshot({ path: 'test-results/mailbox-running.png', fullPage: true });
  await expect(mb.reportRows).toHaveCount(1, { timeout: 90_000 });
  await expect(mb.reportRows.first()).toContainText('SUCCESS');
  await expect(mb.reportRows.first()).toContainText('GREETING-TASK');
  await expect(page.getByTestId('mailbox-running')).toHaveCount(0);
  expect(readdirSync(join(host.dataDir, 'mailboxes')).length).toBe(1);
  // The agent worked in the mailbox's worktree, never in the user's checkout.
  expect(existsSync(join(repo.path, '.trees', 'mailbox', 'hello.txt'))).toBe(true);
  expect(existsSync(join(repo.path, 'hello.txt'))).toBe(false);
  await page.screenshot({ path: 'test-results/mailbox-reports.png', fullPage: true });

  // Filters and full-text search: words from inside the report narrow the list, others empty it.
  await page.getByTestId('reports-search').fill('recorded ADR-0001');
  await expect(mb.reportRows).toHaveCount(1);
  await page.getByTestId('reports-search').fill('no such words anywhere');
  await expect(mb.reportRows).toHaveCount(0);
  await page.getByTestId('reports-search').fill('');
  await page.getByTestId('reports-status').selectOption('FAILED');
  await expect(mb.reportRows).toHaveCount(0);
  await page.getByTestId('reports-status').selectOption('');
  await page.getByTestId('reports-tag').selectOption('greeting');
  await expect(mb.reportRows).toHaveCount(1);

  await mb.reportRows.first().click();
  await expect(mb.reportDetail.getByRole('heading', { name: '执行任务总结报告' })).toBeVisible();
  await expect(mb.reportDetail.getByRole('cell', { name: 'hello.txt' })).toBeVisible();
  await expect(mb.reportDetail).toContainText('progress and next steps were updated');
  await page.getByTestId('report-command').click();
  await expect(page.getByTestId('report-extra')).toContainText('command_type: new');
  await page.getByTestId('report-log').click();
  await expect(page.getByTestId('report-extra')).toContainText('reports written (SUCCESS)');
  await page.screenshot({ path: 'test-results/mailbox-report.png', fullPage: true });

  // The report leads to the agent session's transcript.
  await page.getByTestId('report-transcript').click();
  await expect(page.getByTestId('session-view')).toBeVisible();
  await expect(page.getByTestId('session-view')).toContainText('GREETING-TASK');
  await expect(page).toHaveURL(/#\/session\/ses-/);
  await page.screenshot({ path: 'test-results/mailbox-transcript.png', fullPage: true });

  // The ADR timeline and the ADR itself.
  await mb.open();
  await mb.tab('adrs');
  await expect(mb.adrRows).toHaveCount(1);
  await expect(mb.adrRows.first()).toContainText('ADR-0001');
  await mb.adrRows.first().click();
  await expect(mb.adrDetail.getByRole('heading', { name: 'ADR-0001: Greet in plain text' })).toBeVisible();
  await expect(mb.adrDetail).toContainText('A plain text file.');
  await page.screenshot({ path: 'test-results/mailbox-adr.png', fullPage: true });

  // The mission, rendered with its progress table.
  await mb.chooseProject(project);
  await mb.tab('mission');
  await expect(page.getByTestId('mission').getByRole('cell', { name: 'greeting' })).toBeVisible();
  await page.screenshot({ path: 'test-results/mailbox-mission.png', fullPage: true });

  // Context: a project file written from the UI shows in the composed prompt, with its size.
  await mb.tab('context');
  await page.getByTestId('context-files').getByRole('button', { name: '+ file' }).nth(1).click();
  await page.getByTestId('context-editor').fill('---\ntitle: Greeting style\npriority: 5\n---\nGreet politely.\n');
  await page.getByTestId('context-save').click();
  await expect(page.getByTestId('context-preview')).toContainText('## Project context: Greeting style');
  await expect(page.getByTestId('context-size')).toContainText('bytes');
  await page.screenshot({ path: 'test-results/mailbox-context.png', fullPage: true });
});
