import { test, expect } from '@playwright/test';
import { startModelServer, type ModelServer } from '../fixtures/model-server/index';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage } from './poms/session';
import { makeRepo } from '../support/temp';
import { holdAnswers } from './support/held-answers';

/**
 * Settings → Budgets as a person uses it: a warning above the maximum is refused in the form,
 * a saved maximum survives a reload and stops the next model call of an ordinary session with
 * a message naming the spend, and raising it lets the same session go on.
 */

let host: RunningHost;
let model: ModelServer;
let repo: { path: string; cleanup(): void };

test.beforeAll(async () => {
  model = await startModelServer({ script: [{ match: { userPattern: 'say hello' }, blocks: [{ type: 'text', text: 'Hello within budget.' }] }] });
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' } });
  repo = makeRepo('fd-e2e-budgets-');
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
});

test('a daily maximum set in Settings stops model calls until it is raised', async ({ page }) => {
  test.setTimeout(120_000);
  const board = new BoardPage(page);
  await board.open(host.url);
  const name = await board.addProject(repo.path);

  await page.getByTestId('nav-settings').click();
  const panel = page.getByTestId('budgets-panel');
  await panel.scrollIntoViewIfNeeded();
  // A warning above the maximum: explained, and the form cannot be saved.
  await page.getByTestId('budget-global-warn').fill('5');
  await page.getByTestId('budget-global-max').fill('2');
  await expect(page.getByTestId('budget-global-problem')).toHaveText(/above the maximum/);
  await expect(page.getByTestId('budgets-save')).toBeDisabled();
  // Nothing may be spent today: the maximum is 0.
  await page.getByTestId('budget-global-warn').fill('');
  await page.getByTestId('budget-global-max').fill('0');
  await page.getByTestId('max-parallel').fill('2');
  await page.getByTestId('budgets-save').click();
  await expect(page.getByText('Budgets saved')).toBeVisible();
  await expect(page.getByTestId('budget-uses')).toContainText('maximum reached');
  await panel.screenshot({ path: 'test-results/budgets-settings.png' });
  await page.reload();
  await expect(page.getByTestId('budget-global-max')).toHaveValue('0');
  await expect(page.getByTestId('max-parallel')).toHaveValue('2');

  // An ordinary session's call is refused with the spend named; nothing reached the model.
  const session = new SessionPage(page);
  await session.startFromProject(name);
  await session.send('Please say hello');
  await expect(session.transcript).toContainText(/budget/i);
  await session.waitIdle();
  expect(model.mainRequests()).toHaveLength(0);

  // Raised (no limit): the same session goes on.
  await page.getByTestId('nav-settings').click();
  await page.getByTestId('budget-global-max').fill('');
  await page.getByTestId('budgets-save').click();
  await expect(page.getByText('Budgets saved')).toBeVisible();
  await page.goBack();
  await session.send('Please say hello again');
  await expect(session.transcript).toContainText('Hello within budget.');
});

test('the budget and parallel-run fields take input only once the saved values arrived: a slow host does not replace what was typed', async ({ page }) => {
  // The host's answers to budgets.get and featureRuns.settings.get held back until released.
  const answers = await holdAnswers(page, ['budgets.get', 'featureRuns.settings.get'], { armed: true });
  const board = new BoardPage(page);
  await board.open(host.url);
  await page.getByTestId('nav-settings').click();
  await expect.poll(() => answers.held()).toBe(2);
  // Nothing to edit yet: the fields wait for the values they edit (typed now, they were replaced
  // when the values came, and Save then skipped the number of parallel runs).
  await expect(page.getByTestId('max-parallel')).toBeDisabled();
  await expect(page.getByTestId('budget-global-warn')).toBeDisabled();
  await expect(page.getByTestId('budgets-save')).toBeDisabled();

  answers.release();
  await expect(page.getByTestId('max-parallel')).toBeEnabled();
  await expect(page.getByTestId('max-parallel')).toHaveValue(/^\d+$/);
  await page.getByTestId('max-parallel').fill('1');
  await page.getByTestId('budget-global-warn').fill('7');
  await page.getByTestId('budgets-save').click();
  await expect(page.getByText('Budgets saved')).toBeVisible();
  await page.reload();
  await expect(page.getByTestId('max-parallel')).toHaveValue('1');
  await expect(page.getByTestId('budget-global-warn')).toHaveValue('7');
});
