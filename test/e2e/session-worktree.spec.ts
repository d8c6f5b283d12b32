import { test, expect } from '@playwright/test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startModelServer, type ModelServer } from '../fixtures/model-server/index';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage } from './poms/session';
import { SessionWorktreePage } from './poms/session-worktree';
import { gitIn, makeRepo } from '../support/temp';

let host: RunningHost;
let model: ModelServer;
let repo: { path: string; cleanup(): void };

test.beforeAll(async () => {
  model = await startModelServer({
    script: [
      { match: { userPattern: 'create feature.txt' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'feature.txt', content: 'made in the worktree\n' } }] },
      { match: { userPattern: 'feature.txt' }, blocks: [{ type: 'text', text: 'Created feature.txt in this worktree.' }] },
    ],
  });
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' } });
  repo = makeRepo('fd-e2e-session-wt-');
  gitIn(repo.path, 'config', 'user.name', 'E2E Tester');
  gitIn(repo.path, 'config', 'user.email', 'e2e@example.com');
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
});

test('a new session works in its own worktree: the header shows the branch, commit and squash-merge from the header, discard after a confirmation that lists what would be lost, restore', async ({ page }) => {
  // The user's own unfinished work in the checkout: the dialog warns about it, the session never touches it.
  writeFileSync(join(repo.path, 'notes.txt'), 'my notes\n');
  const board = new BoardPage(page);
  await board.open(host.url);
  const name = await board.addProject(repo.path);
  await page.getByTestId('sidebar-projects').getByRole('button', { name }).click();

  await page.getByTestId('new-session').click();
  const dialog = page.getByTestId('new-session-dialog');
  await expect(dialog.getByTestId('placement-worktree').getByRole('radio')).toBeChecked();
  await expect(dialog.getByTestId('worktree-branch-preview')).toContainText(/Branch feature\/session-\d{8}-\d{4} from main/);
  await dialog.getByTestId('placement-checkout').click();
  await expect(dialog.getByTestId('checkout-dirty-warning')).toContainText('The checkout has 1 uncommitted file');
  await expect(dialog.getByTestId('checkout-dirty-warning')).toContainText('notes.txt');
  mkdirSync('test-results', { recursive: true });
  await page.screenshot({ path: 'test-results/session-worktree-new-session-dialog.png' });
  await dialog.getByTestId('placement-worktree').click();
  await dialog.getByTestId('worktree-name').fill('add-feature');
  await expect(dialog.getByTestId('worktree-branch-preview')).toContainText('Branch feature/add-feature from main');
  await dialog.getByTestId('new-session-start').click();

  const session = new SessionPage(page);
  const wt = new SessionWorktreePage(page);
  await expect(session.view).toBeVisible();
  await expect(wt.branch).toHaveText('⎇ feature/add-feature');
  const tree = join(repo.path, '.trees/add-feature');
  expect(gitIn(tree, 'branch', '--show-current').trim()).toBe('feature/add-feature');

  await session.send('Please create feature.txt');
  await expect(session.approval).toBeVisible();
  await session.approveOnce();
  await expect(session.transcript).toContainText('Created feature.txt in this worktree.');
  await session.waitIdle();
  expect(readFileSync(join(tree, 'feature.txt'), 'utf8')).toBe('made in the worktree\n');
  expect(existsSync(join(repo.path, 'feature.txt'))).toBe(false);
  expect(gitIn(repo.path, 'status', '--porcelain', '--untracked-files=all')).toBe('?? notes.txt\n');
  await expect(wt.counts).toContainText('↑0 ↓0 vs main · 1 uncommitted file');

  await wt.commit('Add feature.txt');
  await expect(wt.counts).toContainText('↑1 ↓0 vs main · no uncommitted changes');
  expect(gitIn(tree, 'log', '-1', '--format=%s').trim()).toBe('Add feature.txt');
  await page.screenshot({ path: 'test-results/session-worktree-header.png' });

  // Squash into main from the header: the checkout (main, with the user's untracked notes) moves with it.
  await page.getByTestId('worktree-merge').click();
  const merge = page.getByTestId('merge-dialog');
  await merge.getByTestId('strategy-squash').click();
  await merge.getByTestId('merge-confirm').click();
  await expect(merge).toBeHidden();
  expect(gitIn(repo.path, 'log', '-1', '--format=%s', 'main').trim()).toBe('Please create feature.txt');
  expect(readFileSync(join(repo.path, 'feature.txt'), 'utf8')).toBe('made in the worktree\n');
  expect(gitIn(repo.path, 'status', '--porcelain', '--untracked-files=all')).toBe('?? notes.txt\n');
  await expect(wt.counts).toContainText('↑1 ↓1 vs main');

  // Discard: the confirmation names the commit that exists only here; Cancel keeps everything.
  writeFileSync(join(tree, 'scratch.txt'), 'half an idea\n');
  let confirm = await wt.askDiscard();
  await expect(confirm.getByTestId('discard-loss')).toContainText('1 untracked file: scratch.txt');
  await expect(confirm.getByTestId('discard-loss')).toContainText('"Add feature.txt"');
  await page.screenshot({ path: 'test-results/session-worktree-discard-confirm.png' });
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  expect(existsSync(tree)).toBe(true);
  confirm = await wt.askDiscard();
  await confirm.getByTestId('confirm').click();
  await expect(page.getByTestId('worktree-discarded')).toContainText('refs/flightdeck/archive/add-feature/');
  expect(existsSync(tree)).toBe(false);
  expect(gitIn(repo.path, 'for-each-ref', '--format=%(refname)', 'refs/flightdeck/archive/add-feature/').trim()).toMatch(/^refs\/flightdeck\/archive\/add-feature\/\d{8}T\d{6}Z$/);
  expect(gitIn(repo.path, 'status', '--porcelain', '--untracked-files=all')).toBe('?? notes.txt\n');

  // A reload shows the same state; Restore brings the worktree back with the untracked file.
  await page.reload();
  await expect(page.getByTestId('worktree-discarded')).toBeVisible();
  await page.getByTestId('worktree-restore').click();
  await expect(wt.counts).toContainText('↑1 ↓1 vs main · 1 uncommitted file');
  expect(readFileSync(join(tree, 'scratch.txt'), 'utf8')).toBe('half an idea\n');
});
