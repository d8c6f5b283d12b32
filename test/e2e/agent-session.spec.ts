import { test, expect } from '@playwright/test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startModelServer, type ModelServer } from '../fixtures/model-server/index';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage } from './poms/session';
import { TerminalsPage } from './poms/terminals';
import { makeRepo } from '../support/temp';

let host: RunningHost;
let model: ModelServer;
let repo: { path: string; cleanup(): void };

test.beforeAll(async () => {
  model = await startModelServer({
    script: [
      { match: { userPattern: 'create hello.txt' }, blocks: [{ type: 'text', text: 'I will create the file.' }, { type: 'tool_use', name: 'write', input: { path: 'hello.txt', content: 'Hello from the agent\n' } }] },
      { match: { userPattern: 'Created hello.txt' }, blocks: [{ type: 'text', text: 'Created **hello.txt** for you.' }] },
      { match: { userPattern: 'create deny.txt' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'deny.txt', content: 'should never exist\n' } }] },
      { match: { userPattern: 'Not allowed in this repository' }, blocks: [{ type: 'text', text: 'Understood, I left deny.txt alone.' }] },
    ],
  });
  host = await startHost({
    env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' },
  });
  repo = makeRepo('fd-e2e-agent-');
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
});

test('an agent asks to write a file; approving writes it, denying leaves it absent and tells the model why', async ({ page }) => {
  const board = new BoardPage(page);
  await board.open(host.url);
  const name = await board.addProject(repo.path);

  const session = new SessionPage(page);
  await session.startFromProject(name);
  await session.send('Please create hello.txt with a greeting');

  // The approval dialog shows the diff the write would apply.
  await expect(session.approval).toBeVisible();
  await expect(session.approval.getByTestId('approval-summary')).toContainText('hello.txt');
  await expect(session.approval.getByTestId('approval-diff')).toContainText('+Hello from the agent');
  expect(existsSync(join(repo.path, 'hello.txt'))).toBe(false);
  await page.screenshot({ path: 'test-results/approval-dialog.png' });
  // A pending approval survives a reload of the UI.
  await page.reload();
  await expect(session.approval).toBeVisible();
  await expect(session.approval.getByTestId('approval-diff')).toContainText('+Hello from the agent');
  await session.approveOnce();

  await expect(session.transcript).toContainText('Created hello.txt for you.');
  await session.waitIdle();
  expect(readFileSync(join(repo.path, 'hello.txt'), 'utf8')).toBe('Hello from the agent\n');
  await expect(session.transcript.getByTestId('tool-card').first()).toContainText('hello.txt');
  await page.screenshot({ path: 'test-results/agent-session.png' });

  // Denied: the file stays absent and the reason reaches the model.
  await session.send('Now create deny.txt please');
  await expect(session.approval).toBeVisible();
  await session.deny('Not allowed in this repository');
  await expect(session.transcript).toContainText('Understood, I left deny.txt alone.');
  await session.waitIdle();
  expect(existsSync(join(repo.path, 'deny.txt'))).toBe(false);
  const sawReason = model.mainRequests().some((r) => JSON.stringify(r.body).includes('Not allowed in this repository'));
  expect(sawReason).toBe(true);

  // The transcript is rebuilt from the event log after a reload.
  await page.reload();
  await expect(session.transcript).toContainText('Created hello.txt for you.');
  await expect(session.transcript).toContainText('Understood, I left deny.txt alone.');

  // An address naming a session that does not exist says so, with a way back.
  await page.goto(`${host.origin}/#/session/ses-doesnotexist1`);
  await expect(page.getByTestId('missing')).toContainText('Session not found');
  await page.getByTestId('missing').getByRole('button', { name: 'Back to the board' }).click();
  await expect(page.getByTestId('add-project')).toBeVisible();
});

test("a ! command runs in a terminal the user can open from its tool card", async ({ page }) => {
  const name = repo.path.split('/').pop()!;
  const board = new BoardPage(page);
  const terminals = new TerminalsPage(page);
  await board.open(host.url);
  await terminals.useCompatibleRendering();
  const session = new SessionPage(page);
  await session.startFromProject(name);
  await session.send('!echo flight-$((6*7)) && ls');
  const card = session.transcript.getByTestId('tool-card').last();
  await expect(card.getByTestId('tool-output')).toContainText('flight-42');
  await expect(card.getByTestId('tool-output')).toContainText('hello.txt');
  await session.waitIdle();
  await card.getByTestId('open-tool-terminal').click();
  await expect(terminals.view).toBeVisible();
  const pane = terminals.panes.filter({ hasText: 'flight-42' });
  await expect(pane).toHaveCount(1);
  await expect(pane).toContainText('Exited with code 0');
  await page.screenshot({ path: 'test-results/agent-command-terminal.png' });
});
