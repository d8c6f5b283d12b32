import { test, expect } from '@playwright/test';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage } from './poms/session';
import { makeRepo } from '../support/temp';

let host: RunningHost;
let repo: { path: string; cleanup(): void };

test.beforeAll(async () => {
  host = await startHost({ env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: 'e2e-test-key' } });
  repo = makeRepo('fd-e2e-sessions-');
});

test.afterAll(async () => {
  await host?.stop();
  repo?.cleanup();
});

test('sessions: rename in the header, copy the id, search the sidebar, archive and find under Archived', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: host.origin });
  await page.setViewportSize({ width: 1440, height: 900 });
  const board = new BoardPage(page);
  await board.open(host.url);
  const name = await board.addProject(repo.path);

  const session = new SessionPage(page);
  const sidebar = page.getByTestId('sidebar');
  for (const title of ['Fix the login form', 'Parser cleanup']) {
    await session.startFromProject(name);
    await session.header.getByTestId('session-rename').click();
    const input = session.header.getByTestId('session-rename-input');
    await input.fill(title);
    await input.press('Enter');
    await expect(session.header.getByTestId('session-rename')).toHaveText(title);
    await expect(sidebar.getByRole('button', { name: title })).toBeVisible();
  }
  // Escape cancels a rename.
  await session.header.getByTestId('session-rename').click();
  await session.header.getByTestId('session-rename-input').fill('Not this');
  await session.header.getByTestId('session-rename-input').press('Escape');
  await expect(session.header.getByTestId('session-rename')).toHaveText('Parser cleanup');

  // The id is shown and copied.
  const id = (await session.header.getByTestId('session-id').textContent())!;
  expect(id).toMatch(/^ses-[a-z0-9]+$/);
  await session.header.getByTestId('session-id').click();
  await expect(page.getByText('Session id copied')).toBeVisible();
  expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(id);
  await page.screenshot({ path: 'test-results/sessions-header-id.png' });

  // Search by title.
  await sidebar.getByTestId('session-search').fill('login');
  await expect(sidebar.getByTestId('sidebar-sessions').getByRole('button', { name: 'Fix the login form' })).toBeVisible();
  await expect(sidebar.getByTestId('sidebar-sessions').getByRole('button', { name: 'Parser cleanup' })).toBeHidden();
  await sidebar.getByTestId('session-search').fill('');

  // Archive: gone from the list, listed under Archived, and back when unarchived.
  await session.header.getByTestId('session-archive').click();
  await expect(session.header.getByTestId('session-archived')).toBeVisible();
  await expect(sidebar.locator('.nav-session:not([data-testid])', { hasText: 'Parser cleanup' })).toHaveCount(0);
  await expect(sidebar.getByTestId('sidebar-archived-toggle')).toHaveText(/Archived \(1\)/);
  await sidebar.getByTestId('sidebar-archived-toggle').click();
  await expect(sidebar.getByTestId('sidebar-archived-session')).toHaveText('Parser cleanup');
  await page.screenshot({ path: 'test-results/sessions-archived-sidebar.png' });
  await page.reload();
  await expect(sidebar.getByTestId('sidebar-archived-toggle')).toHaveText(/Archived \(1\)/);
  await session.header.getByTestId('session-archive').click();
  await expect(sidebar.getByTestId('sidebar-archived')).toHaveCount(0);
  await expect(sidebar.getByTestId('sidebar-sessions').getByRole('button', { name: 'Parser cleanup' })).toBeVisible();

  // Narrower windows: the name, id, archive and Changes controls keep the header to one row.
  for (const width of [1024, 700]) {
    await page.setViewportSize({ width, height: 800 });
    const height = await session.header.locator('.session-title').evaluate((el) => el.getBoundingClientRect().height);
    expect(height).toBeLessThan(48);
    await expect(session.header.getByTestId('session-rename')).toBeVisible();
    await page.screenshot({ path: `test-results/sessions-header-${width}.png` });
  }
});
