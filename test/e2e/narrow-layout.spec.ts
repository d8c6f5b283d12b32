import { test, expect, type Page } from '@playwright/test';
import { startModelServer, type ModelServer } from '../fixtures/model-server/index';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage } from './poms/session';
import { makeRepo } from '../support/temp';

/**
 * The session header at the widths people really use (a half-screen window, a small
 * laptop): with an approval pending, a changed file and a cost, the header must still show
 * the session's title, and nothing in the main pane may be wider than the pane. The bug this
 * guards against: the badges pushed the header past the pane, the title shrank to nothing
 * and the whole pane scrolled sideways, cutting off the transcript and the composer.
 */

let host: RunningHost;
let model: ModelServer;
let repo: { path: string; cleanup(): void };

/** A title long enough that it must give way, not the badges run off the pane. */
const TITLE = 'Refactor the billing export so that the monthly report includes refunds';

test.beforeAll(async () => {
  model = await startModelServer({
    script: [
      { match: { userPattern: 'n01 ' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'notes.txt', content: 'one\n' } }] },
      { blocks: [{ type: 'text', text: 'Wrote notes.txt.' }] },
      { match: { userPattern: 'n02 ' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'pending.txt', content: 'waiting\n' } }] },
    ],
  });
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' } });
  repo = makeRepo('fd-e2e-narrow-');
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
});

/** What in the main pane is wider than its own box, as "label: scrollWidth > clientWidth". */
async function overflowing(page: Page): Promise<string[]> {
  const boxes: Array<[string, string]> = [
    ['document', 'html'],
    ['main pane', '.main'],
    ['session view', '[data-testid="session-view"]'],
    ['header row', '.session-title'],
    ['subheader', '.session-subheader'],
  ];
  const out: string[] = [];
  for (const [label, selector] of boxes) {
    const [scroll, client] = await page.locator(selector).evaluate((el) => [el.scrollWidth, el.clientWidth]);
    if (scroll! > client!) out.push(`${label}: ${scroll} > ${client}`);
  }
  return out;
}

test('at 700 and 1024 px the session header keeps its title and nothing in the main pane overflows sideways', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1360, height: 860 });
  const board = new BoardPage(page);
  await board.open(host.url);
  const name = await board.addProject(repo.path);
  const session = new SessionPage(page);
  await session.startFromProject(name);

  // A long title, a changed file (Changes 1), a cost, a context meter, then an approval left pending.
  await session.header.getByTestId('session-rename').click();
  await page.getByTestId('session-rename-input').fill(TITLE);
  await page.getByTestId('session-rename-input').press('Enter');
  await expect(session.header.getByTestId('session-rename')).toHaveText(TITLE);
  await session.send('n01 write notes');
  await expect(session.approval).toBeVisible();
  await session.approveOnce();
  await expect(session.transcript).toContainText('Wrote notes.txt.');
  await session.waitIdle();
  await session.send('n02 write pending');
  await expect(session.approval).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(session.approval).toBeHidden();
  await expect(session.approveBadge).toHaveText('1 to approve');
  await expect(page.getByTestId('changes-count')).toHaveText('1');

  const title = session.header.getByTestId('session-rename');
  for (const width of [1024, 700]) {
    await page.setViewportSize({ width, height: 860 });
    await expect(title).toBeVisible();
    // The title shows real text: wider than a few characters, ellipsis or not.
    await expect.poll(async () => (await title.boundingBox())?.width ?? 0).toBeGreaterThan(40);
    expect(await overflowing(page), `${width}px`).toEqual([]);
    // The pending approval is one clickable badge; the normal sandbox state moved to the menu.
    await expect(session.approveBadge).toBeVisible();
    await expect(session.status).toBeHidden();
    await expect(page.getByTestId('sandbox-badge')).toBeHidden();
    // The whole header row fits inside the pane, its last control (the menu button) included.
    const pane = (await page.locator('.main').boundingBox())!;
    const more = (await page.getByTestId('header-overflow').boundingBox())!;
    expect(more.x + more.width).toBeLessThanOrEqual(pane.x + pane.width + 0.5);
    await page.screenshot({ path: `test-results/narrow-session-${width}.png` });

    // The menu shows the sandbox state and fits in the window.
    await page.getByTestId('header-overflow').click();
    await expect(page.getByTestId('sandbox-badge-menu')).toHaveText('Workspace sandbox');
    await expect(page.getByTestId('mode-switcher')).toBeVisible();
    const menu = (await page.getByTestId('session-controls').boundingBox())!;
    expect(menu.x).toBeGreaterThanOrEqual(0);
    expect(menu.x + menu.width).toBeLessThanOrEqual(width);
    expect(await overflowing(page), `${width}px, menu open`).toEqual([]);
    await page.screenshot({ path: `test-results/narrow-session-${width}-menu.png` });
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('session-controls')).toBeHidden();
  }

  // The approval badge still brings the approval back at 700 px.
  await session.approveBadge.click();
  await expect(session.approval).toBeVisible();
  await page.keyboard.press('Escape');

  // FULL ACCESS is never tucked away: it stays in the row at 700 px, and the row still fits.
  await page.getByTestId('header-overflow').click();
  await page.getByTestId('sandbox-picker').selectOption('danger-full-access');
  await page.getByTestId('confirm-dialog').getByTestId('confirm').click();
  const badge = page.getByTestId('sandbox-badge');
  await expect(badge).toHaveText('FULL ACCESS');
  await page.keyboard.press('Escape');
  await expect(badge).toBeVisible();
  await expect.poll(async () => (await title.boundingBox())?.width ?? 0).toBeGreaterThan(40);
  expect(await overflowing(page), '700px, full access').toEqual([]);
  await page.screenshot({ path: 'test-results/narrow-session-700-full-access.png' });

  // While renaming, the input also fits.
  await title.click();
  await expect(page.getByTestId('session-rename-input')).toBeVisible();
  expect(await overflowing(page), '700px, renaming').toEqual([]);
  await page.getByTestId('session-rename-input').press('Escape');
});
