import { test, expect } from '@playwright/test';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { gitIn, makeRepo, tempDir } from '../support/temp';

let host: RunningHost;
test.beforeAll(async () => {
  host = await startHost();
});
test.afterAll(async () => {
  await host?.stop();
});

test('add a real repository, see its state, persist across reload, remove it', async ({ page }) => {
  const repo = makeRepo('fd-e2e-app-');
  const name = repo.path.split('/').pop()!;
  writeFileSync(join(repo.path, 'notes.txt'), 'uncommitted work');
  const board = new BoardPage(page);
  await board.open(host.url);

  await expect(board.emptyState).toBeVisible();
  await expect(board.emptyState).toContainText('Add your first project');

  // Inline validation explains what is wrong before anything is submitted.
  const plain = tempDir('fd-e2e-plain-');
  await board.startAdding(plain.path);
  await expect(board.pathHelp).toContainText('not inside a git repository');
  await expect(board.dialog.getByRole('button', { name: 'Add project' })).toBeDisabled();
  await board.pathInput.fill('/this/path/does/not/exist');
  await expect(board.pathHelp).toContainText('Nothing exists at');

  await board.pathInput.fill(repo.path);
  await expect(board.pathHelp).toContainText('Looks good');
  await board.submit();
  await expect(board.dialog).toBeHidden();

  const card = board.card(name);
  await expect(card).toBeVisible();
  await expect(card.getByTestId('project-branch')).toContainText('main');
  await expect(card.getByTestId('project-dirty')).toContainText('Uncommitted: 1 file');
  await expect(page.getByTestId('sidebar-projects')).toContainText(name);
  mkdirSync('test-results', { recursive: true });
  await page.screenshot({ path: 'test-results/board.png' });

  // The same repository again is refused with a specific message.
  await board.startAdding(repo.path);
  await expect(board.pathHelp).toContainText('Already added');
  await page.keyboard.press('Escape');

  // Committing outside the app shows up when the window regains focus…
  gitIn(repo.path, 'add', '.');
  gitIn(repo.path, 'commit', '-q', '-m', 'notes');
  await page.evaluate("window.dispatchEvent(new Event('focus'))");
  await expect(card.getByTestId('project-dirty')).toHaveText('Clean');
  // …and a change shows up on demand with the card's Refresh button.
  writeFileSync(join(repo.path, 'more.txt'), 'x');
  await card.getByRole('button', { name: `Refresh ${name}` }).click();
  await expect(card.getByTestId('project-dirty')).toContainText('Uncommitted: 1 file');
  rmSync(join(repo.path, 'more.txt'));
  await card.getByRole('button', { name: `Refresh ${name}` }).click();
  await expect(card.getByTestId('project-dirty')).toHaveText('Clean');

  await page.reload();
  await expect(board.card(name)).toBeVisible();
  await expect(board.card(name).getByTestId('project-branch')).toContainText('main');

  await board.remove(name);
  await expect(board.cards).toHaveCount(0);
  await expect(board.emptyState).toBeVisible();
  // The repository itself is untouched.
  expect(existsSync(join(repo.path, '.git'))).toBe(true);
  expect(gitIn(repo.path, 'log', '--oneline').trim().split('\n')).toHaveLength(2);
  await page.reload();
  await expect(board.emptyState).toBeVisible();
  repo.cleanup();
  plain.cleanup();
});

test('settings: theme switch applies at once and persists', async ({ page }) => {
  const board = new BoardPage(page);
  await board.open(host.url);
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByTestId('data-dir')).toHaveText(host.dataDir);
  await page.getByRole('radio', { name: 'Dark' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.screenshot({ path: 'test-results/settings-dark.png' });
  // Before the host's settings arrive (here they never do: the page's socket is answered by
  // nothing), the page is already in the theme it had last time, not the system's light one.
  // Also at React's first commit, before any effect: the page's first frame.
  const held = await page.context().newPage();
  // (A string: this file is compiled without the DOM's types.)
  await held.addInitScript(`(() => {
    const seen = new MutationObserver(() => {
      const root = document.getElementById('root');
      if (!root || !root.firstChild) return;
      window.themeAtFirstRender = document.documentElement.dataset.theme ?? 'none';
      seen.disconnect();
    });
    seen.observe(document, { subtree: true, childList: true });
  })()`);
  await held.routeWebSocket(/\/ws/, () => undefined);
  await held.goto(page.url());
  await expect(held.getByRole('heading', { name: 'Settings' })).toBeVisible();
  await expect(held.getByRole('radio', { name: 'Dark' })).not.toBeChecked();
  await expect(held.locator('html')).toHaveAttribute('data-theme', 'dark');
  expect(await held.evaluate<string>('window.themeAtFirstRender')).toBe('dark');
  await held.close();
  await page.getByRole('radio', { name: 'Light' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
});

test('the page without the token is refused', async ({ page }) => {
  const res = await page.goto(host.origin + '/');
  expect(res?.status()).toBe(401);
});

test('after a restart with a new token the page says how to get back in, and the new address works', async ({ page }) => {
  const first = await startHost({ env: { FLIGHTDECK_TOKEN: 'first-token-0123456789' } });
  const port = Number(new URL(first.url).port);
  const board = new BoardPage(page);
  await board.open(first.url);
  await first.stop();
  const second = await startHost({ dataDir: first.dataDir, port, env: { FLIGHTDECK_TOKEN: 'second-token-0123456789' } });
  try {
    await expect(page.getByTestId('auth-banner')).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('statusbar')).toContainText('Access expired');
    await page.screenshot({ path: 'test-results/access-expired.png' });
    await board.open(second.url);
    await expect(page.getByTestId('auth-banner')).toBeHidden();
  } finally {
    await second.stop();
  }
});
