import { test, expect, type Page } from '@playwright/test';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { startTestApp } from '../support/app';
import { makeRepo, tempDir } from '../support/temp';

/**
 * The sidebar never scrolls sideways (a long session name is cut with an ellipsis, whole in its
 * tooltip), and the sessions the app made (init, plans, feature runs, mailbox) are folded under
 * what made them: newer than the user's own, they still never push those out. 1440 and 700 px.
 */

let host: RunningHost;
let repo: { path: string; cleanup(): void };
let data: { path: string; cleanup(): void };
const LONG = `Investigate why the nightly export to the reporting warehouse drops rows when ${'a-very-long-unbroken-identifier-'.repeat(4)}appears in the payload`;
const OWN = ['Fix the login form', 'Refactor the cart', 'Write the changelog', LONG];

test.beforeAll(async () => {
  repo = makeRepo('fd-e2e-sidebar-');
  data = tempDir('fd-e2e-data-');
  // The sessions as each capability makes them: the user's through the sessions API, the app's through the session driver (with a role).
  const { app } = await startTestApp(data.path);
  const project = await app.projects.add(repo.path);
  for (const title of OWN) app.agents.createSession({ projectId: project.id, title });
  for (const title of ['Init repo: analysis', 'Init repo: setup', 'Plan: auth', 'Feature auth', 'Mailbox cmd-1: write the docs', 'Mailbox cmd-2: tidy the README', 'Feature billing', 'Mailbox cmd-3: fix the typo']) {
    app.driver.createSession({ root: repo.path, projectId: project.id, role: title.startsWith('Plan') || title.endsWith('analysis') ? 'planner' : 'coder', executor: 'builtin', title });
  }
  app.dispose();
  host = await startHost({ dataDir: data.path });
});

test.afterAll(async () => {
  await host?.stop();
  repo?.cleanup();
  data?.cleanup();
});

async function checkSidebar(page: Page, shot: string): Promise<void> {
  const sidebar = page.getByTestId('sidebar');
  const sessions = page.getByTestId('sidebar-sessions');
  // The user's four sessions are listed although the app made eight newer ones.
  for (const title of OWN) await expect(sessions.locator('button.nav-session', { hasText: title.slice(0, 20) }).first()).toBeVisible();
  const toggle = page.getByTestId('sidebar-made-toggle');
  await expect(toggle).toContainText('Made by Flightdeck (8)');
  await expect(page.getByTestId('sidebar-made-session')).toHaveCount(0);
  await toggle.click();
  await expect(page.getByTestId('sidebar-made-group')).toHaveCount(5);
  await expect(page.getByTestId('sidebar-made-group').filter({ hasText: 'Mailbox' }).getByTestId('sidebar-made-session')).toHaveCount(3);
  await expect(page.getByTestId('sidebar-made-group').filter({ hasText: 'Init repo' }).getByTestId('sidebar-made-session')).toHaveCount(2);
  // Never sideways: nothing in it is wider than it is.
  expect(await sidebar.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
  // The long name is cut with an ellipsis, and whole in the tooltip.
  const long = sessions.locator('button.nav-session', { hasText: LONG.slice(0, 20) });
  await expect(long).toHaveAttribute('title', new RegExp(`^${LONG.slice(0, 40)}`));
  const label = long.locator('.truncate');
  // The page's getComputedStyle, typed by hand: the Node tsconfig has no DOM globals.
  const ellipsis = await label.evaluate((el) => el.scrollWidth > el.clientWidth && (globalThis as unknown as { getComputedStyle(e: unknown): { textOverflow: string } }).getComputedStyle(el).textOverflow === 'ellipsis');
  expect(ellipsis).toBe(true);
  const box = (await long.boundingBox())!;
  const side = (await sidebar.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(side.x + side.width + 0.5);
  await page.screenshot({ path: shot });
  await toggle.click();
  await expect(page.getByTestId('sidebar-made-session')).toHaveCount(0);
}

test('at 1440 px: the user\'s sessions stay in view, the app\'s are folded by what made them, nothing scrolls sideways', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await new BoardPage(page).open(host.url);
  await checkSidebar(page, 'test-results/sidebar-sessions-1440.png');
});

test('at 700 px, with the sidebar opened over the page, the same', async ({ page }) => {
  await page.setViewportSize({ width: 700, height: 900 });
  await new BoardPage(page).open(host.url);
  await page.getByTestId('sidebar-toggle').click();
  await checkSidebar(page, 'test-results/sidebar-sessions-700.png');
});
