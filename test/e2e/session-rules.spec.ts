import { test, expect } from '@playwright/test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startModelServer, type ModelServer } from '../fixtures/model-server/index';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage } from './poms/session';
import { makeRepo } from '../support/temp';

let host: RunningHost;
let model: ModelServer;
let repo: { path: string; cleanup(): void };

const bash = (command: string) => [{ type: 'tool_use' as const, name: 'bash', input: { command } }];

test.beforeAll(async () => {
  model = await startModelServer({
    script: [
      { match: { userPattern: 'tee twice' }, blocks: bash('tee one.txt <<< first-run') },
      { match: { userPattern: 'first-run' }, blocks: bash('tee two.txt <<< second-run') },
      { match: { userPattern: 'second-run' }, blocks: [{ type: 'text', text: 'Both files written.' }] },
      { match: { userPattern: 'tee again' }, blocks: bash('tee three.txt <<< third-run') },
      { match: { userPattern: 'denied' }, blocks: [{ type: 'text', text: 'Left three.txt alone.' }] },
    ],
  });
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' } });
  repo = makeRepo('fd-e2e-rules-');
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
});

test('"Always" remembers a family: the next call names the rule on its card; the rule is listed, removed, and the call asks again', async ({ page }) => {
  const board = new BoardPage(page);
  await board.open(host.url);
  const name = await board.addProject(repo.path);
  const session = new SessionPage(page);
  await session.startFromProject(name);

  const empty = await session.openRules();
  await expect(empty).toContainText('Nothing yet');

  await session.send('tee twice');
  await expect(session.approval).toBeVisible();
  await expect(session.approval).toContainText('tee *');
  await session.approveForSession();
  await expect(session.transcript).toContainText('Both files written.', { timeout: 30_000 });
  // The second call ran on the rule, and its card says which.
  await expect(session.lastCard('bash').getByTestId('tool-session-rule')).toHaveText('Approved for this session by the rule "tee *".');
  expect(readFileSync(join(repo.path, 'two.txt'), 'utf8')).toBe('second-run\n');

  const panel = await session.openRules();
  await expect(panel.getByTestId('session-rule')).toHaveCount(1);
  await expect(panel.getByTestId('session-rule')).toContainText('tee *');
  await page.screenshot({ path: 'test-results/session-rules.png' });
  await panel.getByTestId('session-rule-remove').click();
  await expect(panel.getByTestId('session-rule')).toHaveCount(0);
  await expect(panel).toContainText('Nothing yet');
  await page.getByTestId('session-rules-toggle').click();

  await session.send('tee again');
  await expect(session.approval).toBeVisible();
  await session.deny('not now');
  await expect(session.transcript).toContainText('Left three.txt alone.', { timeout: 30_000 });
  expect(existsSync(join(repo.path, 'three.txt'))).toBe(false);
});
