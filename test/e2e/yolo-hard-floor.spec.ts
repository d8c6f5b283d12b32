import { test, expect } from '@playwright/test';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage } from './poms/session';
import { SettingsPage } from './poms/settings';
import { makeRepo } from '../support/temp';

let host: RunningHost;
let repo: { path: string; cleanup(): void };

test.beforeAll(async () => {
  host = await startHost({ env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: 'e2e-test-key' } });
  repo = makeRepo('fd-e2e-yolo-');
});

test.afterAll(async () => {
  await host?.stop();
  repo?.cleanup();
});

test('switching to YOLO asks first and says the hard floor is on and where to turn it off', async ({ page }) => {
  const board = new BoardPage(page);
  await board.open(host.url);
  const name = await board.addProject(repo.path);
  const session = new SessionPage(page);
  await session.startFromProject(name);

  const yolo = page.getByTestId('mode-switcher').getByRole('radio', { name: 'YOLO' });
  const confirm = page.getByTestId('confirm-dialog');
  await yolo.click();
  await expect(confirm).toBeVisible();
  await expect(confirm.getByTestId('yolo-hard-floor')).toHaveText(/^The hard floor is on: catastrophic commands .* are still refused\. Turn it off in Settings → Agents → Hard floor\.$/);
  // Cancel keeps the mode.
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toBeHidden();
  await expect(yolo).toHaveAttribute('aria-checked', 'false');
  await yolo.click();
  await confirm.getByTestId('confirm').click();
  await expect(yolo).toHaveAttribute('aria-checked', 'true');

  // With the floor turned off in Settings → Agents, the confirmation says so.
  const settings = new SettingsPage(page);
  await settings.open();
  // The checkbox is drawn as a switch: its label is what the user clicks.
  const floorBox = page.getByTestId('agent-settings').getByRole('checkbox', { name: 'Hard floor' });
  await page.getByTestId('agent-settings').locator('.setting-row', { hasText: 'Hard floor' }).locator('label.switch').click();
  await expect(floorBox).not.toBeChecked();
  await session.startFromProject(name);
  await yolo.click();
  await expect(confirm.getByTestId('yolo-hard-floor')).toHaveText(/^The hard floor is OFF: nothing is refused/);
});
