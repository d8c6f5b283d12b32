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
  repo = makeRepo('fd-e2e-sandbox-');
});

test.afterAll(async () => {
  await host?.stop();
  repo?.cleanup();
});

test('the header shows the sandbox; full access asks first and then shows FULL ACCESS; network is a setting', async ({ page }) => {
  const board = new BoardPage(page);
  await board.open(host.url);
  const name = await board.addProject(repo.path);
  const session = new SessionPage(page);
  await session.startFromProject(name);

  const badge = page.getByTestId('sandbox-badge');
  const picker = page.getByTestId('sandbox-picker');
  const confirm = page.getByTestId('confirm-dialog');
  await expect(badge).toHaveText('Workspace sandbox');
  await expect(picker).toHaveValue('workspace-write');

  await picker.selectOption('danger-full-access');
  await expect(confirm).toBeVisible();
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(badge).toHaveText('Workspace sandbox');
  await expect(picker).toHaveValue('workspace-write');

  await picker.selectOption('danger-full-access');
  await confirm.getByTestId('confirm').click();
  await expect(badge).toHaveText('FULL ACCESS');
  await expect(badge).toHaveClass(/badge-bad/);
  // Kept by the session across a reload.
  await page.reload();
  await expect(page.getByTestId('sandbox-badge')).toHaveText('FULL ACCESS');
  await page.getByTestId('sandbox-picker').selectOption('read-only');
  await expect(page.getByTestId('sandbox-badge')).toHaveText('Read-only sandbox');
  // /permissions names the mode and sandbox as the header does.
  await session.send('/permissions');
  await expect(session.transcript.getByTestId('command-result').last()).toContainText('Mode: Default. Sandbox: Read-only — commands cannot change any file');
  await page.getByTestId('mode-switcher').getByRole('radio', { name: 'Auto-edit' }).click();
  await expect(session.transcript).toContainText('Mode: Auto-edit');

  const settings = new SettingsPage(page);
  await settings.open();
  const net = page.getByTestId('sandbox-network-setting');
  await net.getByRole('combobox', { name: 'Network for sandboxed commands' }).selectOption('allow-list');
  const domains = net.getByRole('textbox', { name: 'Allowed domains' });
  await domains.fill('registry.npmjs.org, *.github.com');
  await domains.blur();
  await page.reload();
  await settings.open();
  await expect(page.getByTestId('sandbox-network-setting').getByRole('textbox', { name: 'Allowed domains' })).toHaveValue('registry.npmjs.org, *.github.com');
});
