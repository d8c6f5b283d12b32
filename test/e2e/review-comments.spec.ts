import { test, expect } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startModelServer, type ModelServer } from '../fixtures/model-server/index';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { CLEAN_REVIEW, configYaml, makeRunRepo, planFeature, text, VERIFY_PASS, write, type RunRepo } from '../integration/features/run/support';
import { readState, writeState } from '../../src-main/features/state';
import { activeStatePath } from '../../src-main/features/scanner';
import { gitIn } from '../support/temp';

/**
 * Diff comments back to the agent, as a reviewer leaves them: on a completed feature's Changes,
 * a comment on a hunk (keyboard) and one on a single line (a click on its number), Send to agent,
 * and after the fix round and the review and verify that follow, one addressed and one open.
 */

const LIB = 'export function sum(a, b) {\n  return a + b;\n}\n\nexport const VERSION = 1;\n';
const FIXED = '/** Adds two numbers. */\nexport function sum(a, b) {\n  return a + b;\n}\n\nexport const VERSION = 1;\n';

let host: RunningHost;
let model: ModelServer;
let repo: RunRepo;

test.beforeAll(async () => {
  model = await startModelServer({ script: [write('sum.mjs', FIXED), text('Documented sum; VERSION stays.'), CLEAN_REVIEW, VERIFY_PASS] });
  repo = makeRunRepo({ remote: 'none', config: configYaml({ checks: [] }) });
  const wt = await planFeature(repo.repo, 'widget', ['library']);
  writeFileSync(join(wt, 'sum.mjs'), LIB);
  gitIn(wt, 'add', '.');
  gitIn(wt, 'commit', '-q', '-m', 'feat(widget): library');
  // The feature ran to the end: every phase completed.
  const path = activeStatePath(repo.repo, 'widget');
  const s = await readState(path);
  const now = new Date().toISOString();
  writeState(path, { ...s, status: 'completed', current_phase: s.phases.length, phases: s.phases.map((p) => ({ ...p, status: 'completed', started_at: now, completed_at: now })) });
  gitIn(wt, 'commit', '-q', '-am', 'chore(widget): feature completed');
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' } });
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
});

test('comment on a hunk and a line, send them, and see them addressed and open after the fix', async ({ page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const board = new BoardPage(page);
  await board.open(host.url);
  await board.addProject(repo.repo);
  await page.locator('[data-testid="feature-card"][data-slug="widget"]').click();
  await page.getByTestId('feature-tab-changes').click();
  const file = page.locator('[data-testid="changes-file"][data-path="sum.mjs"]');
  await expect(file).toBeVisible();

  // The hunk's Comment button, from the keyboard.
  await file.getByTestId('comment-hunk').first().focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('diff-comment-input').fill('Document what sum does.');
  await page.keyboard.press('Control+Enter');
  const list = page.getByTestId('review-comment');
  await expect(list).toHaveCount(1);
  await expect(list.first()).toContainText('sum.mjs:1-5');

  // One line: a click on its number in the new column.
  await file.locator('tr.diff-line').nth(4).locator('td.diff-gutter').last().click();
  await expect(page.getByTestId('diff-comment-form')).toContainText('sum.mjs, line 5');
  await page.getByTestId('diff-comment-input').fill('Is VERSION still needed?');
  await page.getByTestId('diff-comment-add').click();
  await expect(list).toHaveCount(2);
  await expect(file.getByTestId('diff-comment')).toHaveCount(2);
  await page.screenshot({ path: 'test-results/review-comments-before.png' });

  await page.getByTestId('send-comments').click();
  await expect(page.getByTestId('review-comment').filter({ hasText: 'Document what sum does.' })).toHaveAttribute('data-status', 'addressed', { timeout: 90_000 });
  await expect(page.getByTestId('review-comment').filter({ hasText: 'Is VERSION still needed?' })).toHaveAttribute('data-status', 'open');
  // The fix round asked for both, anchored.
  const asked = model.mainRequests()[0]!.userText ?? '';
  expect(asked).toContain('sum.mjs, lines 1-5');
  expect(asked).toContain('sum.mjs, line 5');
  await page.screenshot({ path: 'test-results/review-comments-after.png' });

  // Reopen the addressed one: open again, ready for the next round.
  await page.getByTestId('review-comment').filter({ hasText: 'Document what sum does.' }).getByTestId('reopen-comment').click();
  await expect(page.getByTestId('review-comment').filter({ hasText: 'Document what sum does.' })).toHaveAttribute('data-status', 'open');
  await expect(page.getByTestId('send-comments')).toContainText('Send 2 to agent');
});
