import { test, expect } from '@playwright/test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startModelServer, type ModelServer } from '../fixtures/model-server/index';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage } from './poms/session';
import { gitIn, makeRepo } from '../support/temp';

let host: RunningHost;
let model: ModelServer;
let repo: { path: string; cleanup(): void };

test.beforeAll(async () => {
  model = await startModelServer({ script: [] });
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' } });
  repo = makeRepo('fd-e2e-config-');
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
});

test('settings in effect name their file; /model offers to ignore the new .coder/config.json; a ! card shows stderr apart', async ({ page }) => {
  mkdirSync(join(repo.path, '.flightdeck'));
  writeFileSync(join(repo.path, '.flightdeck/config.yml'), 'workflow:\n  max_verify_attempts: 4\n  auto_verify_after_edit: true\n');
  gitIn(repo.path, 'add', '.');
  gitIn(repo.path, 'commit', '-q', '-m', 'config');
  const board = new BoardPage(page);
  await board.open(host.url);
  const name = await board.addProject(repo.path);
  const session = new SessionPage(page);
  await session.startFromProject(name);

  // /model writes .coder/config.json, says it is new and untracked, and offers a button to ignore it.
  await session.send('/model e2e-model-9');
  const result = session.transcript.getByTestId('command-result').last();
  await expect(result).toContainText('is a new file in this git repository');
  await result.getByTestId('command-action').click();
  await expect(session.transcript.getByTestId('command-result').last()).toContainText('Added .coder/ to');
  expect(readFileSync(join(repo.path, '.gitignore'), 'utf8')).toBe('/.coder/\n');

  // Where each value comes from: .coder/config.json over .flightdeck/config.yml, else the default.
  writeFileSync(join(repo.path, '.coder/config.json'), JSON.stringify({ model: 'e2e-model-9', workflow: { max_verify_attempts: 1 } }));
  await page.getByTestId('effective-config-toggle').click();
  const panel = page.getByTestId('effective-config');
  await expect(panel.locator('[data-key="workflow.max_verify_attempts"]')).toHaveAttribute('data-source', '.coder/config.json');
  await expect(panel.locator('[data-key="workflow.max_verify_attempts"]')).toContainText('1');
  await expect(panel.locator('[data-key="workflow.auto_verify_after_edit"]')).toHaveAttribute('data-source', '.flightdeck/config.yml');
  await expect(panel.locator('[data-key="workflow.verify_command"]')).toHaveAttribute('data-source', 'default');
  await expect(panel.locator('[data-key="agent.model"]')).toContainText('e2e-model-9');
  await page.screenshot({ path: 'test-results/effective-config.png' });
  await page.getByTestId('effective-config-toggle').click();

  // A ! command's card shows stdout and stderr apart once it ends.
  await session.send("!sh -c 'echo to-stdout; echo to-stderr >&2; exit 3'");
  await expect(session.approval).toBeVisible();
  await session.approveOnce();
  const card = session.lastCard('bash');
  await expect(card.getByTestId('tool-stderr')).toHaveText('to-stderr\n', { timeout: 30_000 });
  await expect(card.getByTestId('tool-stdout')).toHaveText('to-stdout\n');
  await expect(card).toContainText('exit 3');
});
