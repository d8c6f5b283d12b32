import { test, expect } from '@playwright/test';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { gitIn, tempDir } from '../support/temp';

let host: RunningHost;
let home: { path: string; cleanup(): void };
let outside: { path: string; cleanup(): void };

test.beforeAll(async () => {
  home = tempDir('fd-e2e-home-');
  outside = tempDir('fd-e2e-outside-');
  for (const d of ['code/web-app', 'code/website', 'code/tools']) mkdirSync(join(home.path, d), { recursive: true });
  gitIn(join(home.path, 'code/web-app'), 'init', '-q', '-b', 'main');
  symlinkSync(outside.path, join(home.path, 'code/web-escape'));
  // The host's home folder is the temporary one: suggestions are confined to it.
  host = await startHost({ env: { HOME: home.path } });
});

test.afterAll(async () => {
  await host?.stop();
  home?.cleanup();
  outside?.cleanup();
});

test('Add project completes folders under the home folder from the keyboard, never through a link that leads out', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const board = new BoardPage(page);
  await board.open(host.url);
  await board.startAdding('~/code/we');
  const list = page.getByTestId('folder-suggestions');
  await expect(list.getByTestId('folder-suggestion')).toHaveText([/^web-app\//, /^website\//]);
  await page.screenshot({ path: 'test-results/add-project-folder-suggestions.png' });
  const input = page.getByTestId('project-path-input');
  await input.press('ArrowDown');
  await input.press('Enter');
  await expect(input).toHaveValue(join(home.path, 'code/web-app') + '/');
  await expect(board.pathHelp).toContainText('Will add the repository at');
  // Escape closes the list, not the dialog.
  await input.fill('~/code/');
  await expect(list.getByTestId('folder-suggestion')).toHaveCount(3);
  await input.press('Escape');
  await expect(list).toBeHidden();
  await expect(page.getByTestId('add-project-dialog')).toBeVisible();
  // Typing again reopens it; a folder outside the home folder lists nothing.
  await input.fill('~/code/w');
  await expect(list.getByTestId('folder-suggestion')).toHaveCount(2);
  await input.fill(outside.path + '/');
  await expect(list).toBeHidden();
});
