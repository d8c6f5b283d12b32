import { test, expect } from '@playwright/test';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';

/** Settings → Container engines: asked only on request, each with what it is and whether it has an NVIDIA runtime. */

let host: RunningHost;

test.beforeAll(async () => {
  host = await startHost();
});

test.afterAll(async () => {
  await host?.stop();
});

test('Settings lists the container engines with their facts, adds, tests and removes one, and leads to the Containers view', async ({ page }) => {
  await new BoardPage(page).open(host.url);
  await page.getByTestId('nav-settings').click();
  const panel = page.getByTestId('engines-settings');
  await panel.scrollIntoViewIfNeeded();
  await expect(panel.getByTestId('engines-list')).toHaveCount(0);
  await panel.getByTestId('engines-check').click();
  // This machine's dockerd answers through its socket; there is no GPU here.
  await expect(panel.getByTestId('engines-list')).toContainText('NVIDIA runtime: no', { timeout: 30_000 });
  await expect(panel.getByTestId('engines-list')).toContainText(/docker \d+\./);
  // Adding an engine here tests it at once: a dead one says why; Test asks again; Remove takes it away.
  await panel.getByTestId('engine-add-name').fill('gone');
  await panel.getByTestId('engine-add-host').fill('unix:///tmp/flightdeck-e2e-settings-gone.sock');
  await page.keyboard.press('Enter');
  const gone = panel.getByTestId('engines-list').locator('li', { hasText: 'gone' });
  await expect(gone).toContainText(/not reachable.*Start Docker/, { timeout: 30_000 });
  await expect(panel.getByTestId('engine-add-name')).toHaveValue('');
  await panel.getByTestId('engines-test').click();
  await expect(gone).toContainText(/not reachable/);
  await panel.screenshot({ path: 'test-results/settings-engines.png' });
  await gone.getByRole('button', { name: 'Remove the engine gone' }).click();
  await expect(gone).toHaveCount(0);
  await expect(panel.getByTestId('engines-list')).toContainText('NVIDIA runtime: no');
  await panel.getByTestId('engines-manage').click();
  await expect(page).toHaveURL(/#\/containers$/);
});
