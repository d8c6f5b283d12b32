import { test, expect } from '@playwright/test';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { FeaturesPage } from './poms/features';
import { makeRepo } from '../support/temp';
import { plannedProject } from './support/planned-feature';

/**
 * The feature board at a half-screen window (700 px): its six columns used to need 960 px and
 * scrolled sideways inside the board, hiding half of them. They wrap into rows instead, and a
 * card still shows its feature's name.
 */

let host: RunningHost;
let repo: { path: string; cleanup(): void };
const SLUG = 'narrow-board-card';

test.beforeAll(async () => {
  host = await startHost({ env: { ANTHROPIC_API_KEY: 'e2e-test-key' } });
  repo = makeRepo('fd-e2e-board-narrow-');
  plannedProject(repo.path, SLUG, { design: '# Design\n\n## Development Phases\n\n### Phase 1: library\n\nA library.\n', verification: '# Verification\n', phases: ['library'] });
});

test.afterAll(async () => {
  await host?.stop();
  repo?.cleanup();
});

test('at 700 px the board fits its six columns without scrolling sideways, and a card shows its slug', async ({ page }) => {
  test.setTimeout(90_000);
  const board = new BoardPage(page);
  const features = new FeaturesPage(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await board.open(host.url);
  await board.addProject(repo.path);
  await page.getByTestId('sidebar').getByRole('button', { name: 'Board', exact: true }).click();
  const card = features.card(SLUG);
  await expect(card).toBeVisible({ timeout: 30_000 });

  for (const width of [1440, 700]) {
    await page.setViewportSize({ width, height: 900 });
    const columns = page.getByTestId('board-columns');
    // Every column is in the board's box: nothing runs off to the right to be scrolled to.
    await expect.poll(() => columns.evaluate((el) => el.scrollWidth - el.clientWidth), { message: `${width}px: sideways overflow` }).toBe(0);
    const box = (await columns.boundingBox())!;
    for (const name of ['planned', 'in_progress', 'needs_input', 'completed', 'failed', 'merged'] as const) {
      const col = (await features.column(name).boundingBox())!;
      expect(col.x, `${width}px: ${name}`).toBeGreaterThanOrEqual(box.x - 0.5);
      expect(col.x + col.width, `${width}px: ${name}`).toBeLessThanOrEqual(box.x + box.width + 0.5);
    }
    // The card's slug is readable: wide enough for a good part of it, not cut to a sliver.
    const slug = card.locator('.fc-slug');
    await expect(slug).toBeVisible();
    await expect(slug).toHaveText(new RegExp(SLUG));
    const [shown, whole] = await slug.evaluate((el) => [el.clientWidth, el.scrollWidth]);
    expect(shown, `${width}px: slug ${shown} of ${whole} px shown`).toBeGreaterThanOrEqual(Math.min(whole!, 120));
    await page.screenshot({ path: test.info().outputPath(`board-${width}.png`), fullPage: true });
  }
});
