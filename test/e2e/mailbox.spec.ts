import { test, expect } from '@playwright/test';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { parseCommandFile } from '../../src-main/mailbox/command-file';
import { ensureTestImage } from '../support/container-image';
import { startModelServer, type ModelServer, type Script } from '../fixtures/model-server/index';
import { missionTemplate } from '../../src-main/mailbox/mission';
import { startHost, type RunningHost } from './support/host';
import { dismissToasts } from './support/toasts';
import { BoardPage } from './poms/board';
import { MailboxPage } from './poms/mailbox';
import { makeRepo } from '../support/temp';

const ADR = ['# ADR-0001: Greet in plain text', '', '## 上下文', 'The greeting needs a format.', '', '## 失败的尝试', 'JSON was too heavy.', '', '## 最终决策', 'A plain text file.', '', '## 后果', 'Nothing else reads it.', ''].join('\n');
const mission = missionTemplate(new Date('2026-02-22T00:00:00Z'), 'zh').replace('| [模块名] | 未开始 | 0% | - | - |', '| greeting | 完成 | 100% | 2026-02-22 | hello.txt |').replace('- [ ] [待完成任务 1]', '- [ ] translate the greeting');
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
    // The container task: one command in the container, then the answer.
    { match: { userPattern: 'CONTAINER-TASK' }, blocks: [{ type: 'tool_use' as const, name: 'bash', input: { command: 'echo in-container > where.txt' } }] },
    { match: { userPattern: 'where.txt' }, blocks: [{ type: 'text', text: 'Wrote where.txt in the container.' }] },
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
  // No mission yet: it can be created from either template before any task.
  await mb.tab('mission');
  await expect(page.getByTestId('mission-empty')).toBeVisible();
  await expect(page.getByTestId('mission-template')).toHaveValue('en');
  await page.getByTestId('mission-template').selectOption('zh');
  await page.getByTestId('mission-create').click();
  await expect(page.getByTestId('mission').getByRole('heading', { name: '实施进度追踪' })).toBeVisible();
  expect(readFileSync(join(repo.path, '.trees', 'mailbox', 'AGENT_MISSION.md'), 'utf8')).toContain('## 下一步指令 (Next Steps)');
  await mb.createTask('GREETING-TASK: write hello.txt with a greeting, and record why in an ADR');

  // The form switches to the reports, which show the task running, then its report.
  await expect(page.getByTestId('mailbox-running')).toContainText('Running: task-', { timeout: 30_000 });
  await page.screenshot({ path: 'test-results/mailbox-running.png', fullPage: true });
  await expect(mb.reportRows).toHaveCount(1, { timeout: 90_000 });
  await expect(mb.reportRows.first()).toContainText('Success');
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

  // A report is a page of its own, with its address, its facts and links to its session, commit and command file.
  const commandId = (await mb.reportRows.first().getAttribute('data-command-id'))!;
  await mb.reportRows.first().click();
  await expect(page).toHaveURL(new RegExp(`#/mailbox/[^/]+/${commandId}$`));
  await expect(mb.reportRows).toHaveCount(0);
  await expect(page.getByTestId('report-title')).toContainText('GREETING-TASK');
  await expect(mb.reportDetail.getByRole('heading', { name: '执行任务总结报告' })).toBeVisible();
  await expect(mb.reportDetail.getByRole('cell', { name: 'hello.txt' })).toBeVisible();
  await expect(mb.reportDetail).toContainText('progress and next steps were updated');
  // The front matter is the page's facts, not a line of text in the report.
  const links = page.getByTestId('report-links');
  await expect(links.getByText('Tags', { exact: true })).toBeVisible();
  await expect(links).toContainText('greeting');
  await expect(mb.reportDetail.locator('.badge[data-status="SUCCESS"]')).toHaveText('Success');
  await expect(links.getByText('Commit', { exact: true })).toBeVisible();
  await expect(links.getByText('Command file', { exact: true })).toBeVisible();
  const sessionLink = page.getByTestId('report-transcript');
  await expect(sessionLink).toHaveText(/^ses-/);
  await expect(sessionLink).toBeEnabled();
  await page.getByTestId('report-command').click();
  await expect(page.getByTestId('report-extra')).toContainText('command_type: new');
  await expect(page.getByTestId('report-extra')).toContainText('GREETING-TASK');
  await page.getByTestId('report-log').click();
  await expect(page.getByTestId('report-extra')).toContainText('reports written (SUCCESS)');
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: 'test-results/mailbox-report.png', fullPage: true });
  await page.setViewportSize({ width: 700, height: 900 });
  const [scrollW, clientW] = await page.locator('.main').evaluate((el) => [el.scrollWidth, el.clientWidth]);
  expect(scrollW).toBeLessThanOrEqual(clientW!);
  await page.screenshot({ path: 'test-results/mailbox-report-700.png', fullPage: true });
  await page.setViewportSize({ width: 1440, height: 900 });
  // Reloading the address shows the same report; the back link returns to the project's reports.
  await page.reload();
  await expect(mb.reportDetail).toHaveAttribute('data-command-id', commandId);
  await page.getByTestId('report-back').click();
  await expect(mb.reportRows).toHaveCount(1);
  await mb.reportRows.first().click();

  // The report leads to the agent session's transcript.
  const sessionId = (await sessionLink.textContent())!;
  await sessionLink.click();
  await expect(page.getByTestId('session-view')).toBeVisible();
  await expect(page.getByTestId('session-view')).toContainText('GREETING-TASK');
  await expect(page).toHaveURL(new RegExp(`#/session/${sessionId}$`));
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

test('a task placed in a container: its engine, image, limits and network typed into the form reach the command file and the container', async ({ page }) => {
  test.setTimeout(240_000);
  const image = ensureTestImage();
  const repo2 = makeRepo('fd-e2e-mailbox-ctr-');
  const docker = new Docker({ socketPath: '/var/run/docker.sock' });
  let sessionId: string | undefined;
  try {
    // The narrow window the app supports: every container field must fit it.
    await page.setViewportSize({ width: 700, height: 800 });
    const board = new BoardPage(page);
    await board.open(host.url);
    const project = await board.addProject(repo2.path);
    const mb = new MailboxPage(page);
    await mb.open();
    await mb.chooseProject(project);
    await mb.tab('task');

    // Everything from the keyboard.
    await page.getByTestId('task-text').focus();
    await page.keyboard.type('CONTAINER-TASK: write where.txt');
    await expect(page.getByTestId('task-form')).not.toContainText('任务描述 /');
    await expect(page.getByTestId('task-headings')).toHaveValue('en');
    await page.getByTestId('task-placement').focus();
    await page.keyboard.press('ArrowDown');
    await expect(page.getByTestId('task-placement')).toHaveValue('container');
    const fields = page.getByTestId('task-form').getByTestId('container-fields');
    await expect(fields.getByTestId('ctr-engine')).toHaveValue('local');
    await expect(fields.getByTestId('ctr-engine-help')).toContainText('NVIDIA runtime: no');
    await fields.getByTestId('ctr-image').focus();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type(image);
    await fields.getByTestId('ctr-memory').focus();
    await page.keyboard.type('2m');
    await expect(fields.getByTestId('ctr-memory-help')).toHaveText('At least 6 MiB (the engine refuses less).');
    await expect(page.getByTestId('task-submit')).toBeDisabled();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('256m');
    await expect(fields.getByTestId('ctr-memory-help')).toHaveText('Default 8 GiB');
    await fields.getByTestId('ctr-cpus').focus();
    await page.keyboard.type('1');
    await fields.getByTestId('ctr-pids').focus();
    await page.keyboard.type('8');
    await expect(fields.getByTestId('ctr-pids-help')).toHaveText('From 16 to 4194304 processes.');
    await page.keyboard.type('0');
    await fields.getByTestId('ctr-network').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect(fields.getByTestId('ctr-network')).toHaveValue('none');
    await expect(page.getByTestId('task-submit')).toBeEnabled();

    // Nothing of the form is out of the 700 px window or scrolls sideways.
    const box = (await page.getByTestId('task-form').boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(700);
    const [scroll, client] = await page.locator('.main').evaluate((el) => [el.scrollWidth, el.clientWidth]);
    expect(scroll).toBeLessThanOrEqual(client!);
    expect(await page.getByTestId('task-form').evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await dismissToasts(page);
    await page.screenshot({ path: 'test-results/mailbox-task-container-700.png', fullPage: true });
    // The whole form at the same width (the view scrolls inside the window, so a taller one shows it all).
    await page.setViewportSize({ width: 700, height: 1150 });
    await page.screenshot({ path: 'test-results/mailbox-task-container.png', fullPage: true });

    await page.getByTestId('task-submit').focus();
    await page.keyboard.press('Enter');
    await expect(mb.reportRows.filter({ hasText: 'CONTAINER-TASK' })).toHaveCount(1, { timeout: 120_000 });
    await expect(mb.reportRows.filter({ hasText: 'CONTAINER-TASK' })).toContainText('Success');

    // The command file the form wrote holds every setting.
    const boxes = readdirSync(join(host.dataDir, 'mailboxes')).map((d) => join(host.dataDir, 'mailboxes', d));
    const processed = boxes.flatMap((b) => (existsSync(join(b, 'commands/processed')) ? readdirSync(join(b, 'commands/processed')).map((n) => join(b, 'commands/processed', n)) : []));
    const file = processed.find((f) => readFileSync(f, 'utf8').includes('CONTAINER-TASK'))!;
    expect(file).toBeDefined();
    // English section headings by default (the Chinese template is a choice in the form); the text as typed.
    expect(readFileSync(file, 'utf8')).toContain('\n## Task\n\nCONTAINER-TASK: write where.txt\n');
    const parsed = parseCommandFile(readFileSync(file));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.command).toMatchObject({ placement: 'container', containerEngine: 'local', image, memoryBytes: 256 * 1024 ** 2, cpus: 1, pids: 80, network: 'none', gpus: { kind: 'count', count: 0 } });
    expect(readFileSync(file, 'utf8')).toContain('\nmemory: 256m\ncpus: 1\npids: 80\nnetwork: none\n');
    expect(readFileSync(join(repo2.path, '.trees', 'mailbox', 'where.txt'), 'utf8')).toBe('in-container\n');

    // And the session's container has them.
    const report = readFileSync(join(file, '../../../reports/pending', `report-${parsed.command.id}.md`), 'utf8');
    sessionId = /^session_id: "([^"]+)"$/m.exec(report)![1]!;
    const [c] = await docker.listContainers({ all: true, filters: { label: [`dev.flightdeck.session=${sessionId}`] } });
    expect(c).toBeDefined();
    const hc = (await docker.getContainer(c!.Id).inspect()).HostConfig;
    expect({ Memory: hc.Memory, NanoCpus: hc.NanoCpus, PidsLimit: hc.PidsLimit, NetworkMode: hc.NetworkMode }).toEqual({ Memory: 256 * 1024 ** 2, NanoCpus: 1e9, PidsLimit: 80, NetworkMode: 'none' });
  } finally {
    if (sessionId) for (const c of await docker.listContainers({ all: true, filters: { label: [`dev.flightdeck.session=${sessionId}`] } })) await docker.getContainer(c.Id).remove({ force: true });
    repo2.cleanup();
  }
});
