import { test, expect, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { makeRunRepo, planFeature, type RunRepo } from '../integration/features/run/support';
import { readState, writeState } from '../../src-main/features/state';
import { activeStatePath } from '../../src-main/features/scanner';

/**
 * A feature's page has the session header's worktree actions: Merge (merge or squash,
 * previewed), Push & PR, and Discard (archived first). And moving between features never
 * stays on "Loading…": a feature that cannot be read says why, with Try again.
 */

test.describe.configure({ mode: 'serial' });

let host: RunningHost;
let repo: RunRepo;
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** A feature whose run completed: every phase done, one commit of work on its branch. */
async function completedFeature(slug: string, file: string): Promise<string> {
  const wt = await planFeature(repo.repo, slug, ['library']);
  writeFileSync(join(wt, file), `export const ${slug.replace(/-/g, '_')} = 1;\n`);
  git(wt, 'add', file);
  git(wt, 'commit', '-qm', `feat(${slug}): library`);
  const path = activeStatePath(repo.repo, slug);
  const s = await readState(path);
  const now = new Date().toISOString();
  await writeState(path, { ...s, status: 'completed', current_phase: s.phases.length, phases: s.phases.map((p) => ({ ...p, status: 'completed', started_at: now, completed_at: now })) });
  git(wt, 'add', '.');
  git(wt, 'commit', '-qm', `chore(${slug}): feature completed`);
  return wt;
}

async function openFeature(page: Page, slug: string): Promise<void> {
  await page.locator(`[data-testid="feature-card"][data-slug="${slug}"]`).click();
  await expect(page.getByTestId('feature-view')).toHaveAttribute('data-slug', slug);
}

test.beforeAll(async () => {
  repo = makeRunRepo({ remote: 'bare' });
  await completedFeature('merge-me', 'merged.mjs');
  await completedFeature('push-me', 'pushed.mjs');
  await completedFeature('drop-me', 'dropped.mjs');
  host = await startHost();
});

test.afterAll(async () => {
  await host?.stop();
  repo?.cleanup();
});

test('merge a completed feature from its page: previewed, squash chosen, merged into main', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const board = new BoardPage(page);
  await board.open(host.url);
  await board.addProject(repo.repo);
  await openFeature(page, 'merge-me');
  await expect(page.getByTestId('feature-status')).toHaveText('completed');
  await expect(page.getByTestId('feature-push')).toBeVisible();
  await expect(page.getByTestId('feature-discard')).toBeVisible();
  await page.getByTestId('feature-merge').click();
  const dialog = page.getByTestId('merge-dialog');
  await expect(dialog.getByTestId('merge-preview')).toContainText('Would merge 3 commits of feature/merge-me into main');
  await dialog.getByTestId('strategy-squash').click();
  await expect(dialog.getByTestId('merge-preview')).toContainText('Would squash');
  await page.screenshot({ path: 'test-results/feature-merge-dialog-1440.png' });
  await dialog.getByTestId('merge-confirm').click();
  await expect(page.getByTestId('toast').filter({ hasText: 'Squashed into main' })).toBeVisible();
  await expect(page.getByTestId('feature-status')).toHaveText('merged', { timeout: 15_000 });
  await expect(page.getByTestId('feature-merge')).toHaveCount(0);
  expect(git(repo.repo, 'log', '-1', '--format=%s', 'main')).toBe('feat(merge-me): squashed feature');
  expect(git(repo.repo, 'show', 'main:merged.mjs')).toContain('merge_me');
});

test('Push & PR pushes the branch and says where to open the pull request; Discard archives first and the feature leaves the board', async ({ page }) => {
  await page.setViewportSize({ width: 700, height: 900 });
  const board = new BoardPage(page);
  await board.open(host.url);
  await openFeature(page, 'push-me');
  await page.screenshot({ path: 'test-results/feature-actions-700.png' });
  await page.getByTestId('feature-push').click();
  const pushed = page.getByTestId('push-result');
  await expect(pushed).toContainText('Pushed feature/push-me to origin');
  expect(git(repo.origin!, 'rev-parse', 'refs/heads/feature/push-me')).toBe(git(repo.repo, 'rev-parse', 'feature/push-me'));
  await pushed.getByRole('button', { name: 'Close' }).click();

  await board.open(host.url);
  await openFeature(page, 'drop-me');
  await page.getByTestId('feature-discard').click();
  const confirm = page.getByRole('dialog');
  await expect(confirm).toContainText('archived first');
  await confirm.getByRole('button', { name: /Archive and discard/ }).click();
  // Its commit exists only on its branch: named, then discarded anyway (archived either way).
  await expect(confirm.getByTestId('discard-loss')).toBeVisible();
  await page.screenshot({ path: 'test-results/feature-discard-700.png' });
  await confirm.getByRole('button', { name: 'Archive and discard anyway' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'Discarded drop-me' })).toContainText('refs/flightdeck/archive/drop-me');
  await expect(page.locator('[data-testid="feature-card"][data-slug="drop-me"]')).toHaveCount(0, { timeout: 15_000 });
  expect(git(repo.repo, 'for-each-ref', '--format=%(refname)', 'refs/flightdeck/archive/drop-me/')).toContain('refs/flightdeck/archive/drop-me/');
});

test('moving from one feature to another shows the second; one that cannot be read says why instead of Loading', async ({ page }) => {
  const board = new BoardPage(page);
  await board.open(host.url);
  await openFeature(page, 'push-me');
  const hash = await page.evaluate<string>('location.hash');
  // Straight to another feature's address, as a link or the palette would go.
  await page.evaluate(`location.hash = ${JSON.stringify(hash.replace('push-me', 'merge-me'))}`);
  await expect(page.getByTestId('feature-view')).toHaveAttribute('data-slug', 'merge-me');
  await expect(page.getByTestId('feature-status')).toHaveText('merged');
  await expect(page.getByTestId('phases-table')).toBeVisible();
  // A feature that is gone (discarded above): the page says what failed, with Try again, and no endless Loading.
  await page.evaluate(`location.hash = ${JSON.stringify(hash.replace('push-me', 'drop-me'))}`);
  await expect(page.getByTestId('feature-view')).toHaveAttribute('data-slug', 'drop-me');
  await expect(page.getByTestId('feature-load-error')).toContainText('Could not load drop-me');
  await expect(page.getByTestId('feature-retry')).toBeVisible();
  await expect(page.getByText('Loading…')).toHaveCount(0);
  await expect(page.getByTestId('feature-loading')).toHaveCount(0);
  await page.screenshot({ path: 'test-results/feature-load-error.png' });
});
