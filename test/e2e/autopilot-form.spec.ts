import { test, expect } from '@playwright/test';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { AutopilotPage } from './poms/autopilot';
import { makeRepo } from '../support/temp';

/**
 * The autopilot's New run form opened before there is any project: once a project is added (here
 * in another window), the form offers it and can start a run with it — its project is not stuck
 * on the empty choice it had when it opened.
 */

let host: RunningHost;
let repo: { path: string; cleanup(): void };

test.beforeAll(async () => {
  host = await startHost();
  repo = makeRepo('fd-e2e-autopilot-form-');
});

test.afterAll(async () => {
  await host?.stop();
  repo?.cleanup();
});

test('a New run form opened with no project takes the project added meanwhile', async ({ page, context }) => {
  await new BoardPage(page).open(host.url);
  const ap = new AutopilotPage(page);
  await ap.open();
  await page.getByTestId('ap-new').click();
  await expect(page.getByText('Add a project first')).toBeVisible();

  const other = await context.newPage();
  const otherBoard = new BoardPage(other);
  await otherBoard.open(host.url);
  const name = await otherBoard.addProject(repo.path);
  await other.close();

  const form = page.getByTestId('ap-new-run');
  await expect(form.getByTestId('ap-project').locator('option:checked')).toContainText(name);
  await form.getByTestId('ap-goal').fill('Add a --json flag');
  await form.getByTestId('ap-test-cmd').fill('node --test');
  await expect(form.getByTestId('ap-start')).toBeEnabled();
});
