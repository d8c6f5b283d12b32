import { test, expect, type Page } from '@playwright/test';
import { startHostWithLongSessions, type LongSessionsHost } from './support/long-sessions';
import type { RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage } from './poms/session';

/**
 * A session of 150 stored turns (about 750 blocks) is virtualized: it opens at its newest
 * answer with only the blocks near the viewport in the page, Home and End move through it from
 * the keyboard, the find bar (Ctrl+F) reaches a block far off screen, and a turn's menu opens
 * over the rows below it. A session of 20 turns is rendered whole, as before.
 */

let seeded: LongSessionsHost;
let host: RunningHost;
let longId: string;
let shortId: string;
const TURNS = 150;

test.beforeAll(async () => {
  seeded = await startHostWithLongSessions('fd-e2e-long-transcript-', [
    { title: 'A long conversation', turns: TURNS },
    { title: 'A short conversation', turns: 20 },
  ]);
  ({ host } = seeded);
  [longId, shortId] = seeded.ids as [string, string];
});

test.afterAll(async () => {
  await seeded?.stop();
});

const atBottom = (page: Page) => page.getByTestId('transcript').evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 2);
const rows = (page: Page) => page.getByTestId('transcript').locator('.transcript-row');

test('a long transcript is virtualized: opens at the newest answer, Home/End, find, and turn menus work', async ({ page }) => {
  const board = new BoardPage(page);
  await board.open(host.url);
  await page.evaluate(`location.hash = '#/session/${longId}'`);
  const session = new SessionPage(page);
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 0:`);
  await expect(page.getByTestId('turn-count')).toBeVisible();
  await expect.poll(() => atBottom(page)).toBe(true);
  // Only the blocks near the viewport are in the page.
  const shown = await rows(page).count();
  expect(shown).toBeGreaterThan(3);
  expect(shown).toBeLessThan(60);
  await expect(session.transcript).not.toContainText('Turn 1 of session 0:');

  // Keyboard: Home goes to the first turn, End back to the newest.
  await session.transcript.focus();
  await page.keyboard.press('Home');
  await expect(session.transcript).toContainText('Turn 1 of session 0:');
  await expect(session.transcript.getByText('s0 t1: look at module 1 and tidy it')).toBeInViewport();
  await page.keyboard.press('End');
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 0:`);
  await expect.poll(() => atBottom(page)).toBe(true);

  // Find reaches a block far off screen and marks it; Enter steps through several matches.
  await page.keyboard.press('Control+f');
  const find = page.getByTestId('transcript-find-input');
  await expect(find).toBeFocused();
  await find.fill('s0 t7: look');
  await expect(page.getByTestId('transcript-find-count')).toHaveText('1 of 1');
  const hit = session.transcript.locator('.transcript-row.find-hit');
  await expect(hit).toHaveCount(1);
  await expect(hit).toContainText('s0 t7: look at module 7');
  await expect(hit).toBeInViewport();
  await find.fill('src/module-14');
  // The bash calls of turns 14 and 140–149 name it: the newest first, Enter goes to older ones.
  await expect(page.getByTestId('transcript-find-count')).toHaveText('11 of 11');
  await expect(hit).toContainText('module-149');
  await find.press('Enter');
  await expect(page.getByTestId('transcript-find-count')).toHaveText('10 of 11');
  await expect(hit).toContainText('module-148');
  await find.fill('nothing like this');
  await expect(page.getByTestId('transcript-find-count')).toHaveText('No matches');
  await find.fill('s0 t7: look');

  // The found turn's menu opens over the rows below it, and its items take the click.
  const user = hit.getByTestId('msg-user');
  await user.hover();
  await user.getByTestId('turn-menu').click();
  await page.getByTestId('turn-fork').click();
  await expect(page.getByTestId('confirm-dialog')).toContainText('Fork from turn 7?');
  await page.getByTestId('confirm-dialog').getByRole('button', { name: 'Cancel' }).click();
  await find.press('Escape');
  await expect(page.getByTestId('transcript-find')).toBeHidden();
  await expect(hit).toHaveCount(0);
});

test('a short transcript is rendered whole and keeps the browser find', async ({ page }) => {
  const board = new BoardPage(page);
  await board.open(host.url);
  await page.evaluate(`location.hash = '#/session/${shortId}'`);
  const session = new SessionPage(page);
  await expect(session.transcript).toContainText('Turn 20 of session 1:');
  await expect(session.transcript).toContainText('Turn 1 of session 1:');
  await expect(page.getByTestId('transcript-virtual')).toHaveCount(0);
  await session.transcript.focus();
  await page.keyboard.press('Control+f');
  await expect(page.getByTestId('transcript-find')).toHaveCount(0);
});
