import { test, expect } from '@playwright/test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { runCli } from '../../src-main/cli/main';
import { WorktreeManager } from '../../src-main/worktrees/worktree-manager';
import { gitIn, makeRepo, tempDir } from '../support/temp';

let host: RunningHost | undefined;
const cleanups: Array<() => void> = [];
test.afterAll(async () => {
  await host?.stop();
  cleanups.forEach((c) => c());
});

test('the project page lists worktrees, asks again before archiving unsaved work, and restores it', async ({ page }) => {
  const repo = makeRepo('fd-e2e-wt-');
  const outside = tempDir('fd-e2e-wt-outside-');
  const data = tempDir('fd-e2e-wt-data-');
  cleanups.push(repo.cleanup, outside.cleanup, data.cleanup);
  const m = new WorktreeManager();
  await m.create(repo.path, 'wip-feature');
  writeFileSync(join(repo.path, '.trees/wip-feature/draft.md'), 'half-written\n');
  gitIn(repo.path, 'worktree', 'add', '-q', '-b', 'by-hand', join(outside.path, 'hand-made'));
  const added = await runCli(['projects', 'add', repo.path, '--data-dir', data.path], { out: () => {}, err: () => {} });
  expect(added).toBe(0);

  host = await startHost({ dataDir: data.path });
  const board = new BoardPage(page);
  await board.open(host.url);
  await page.getByTestId('sidebar-projects').getByText(basename(repo.path), { exact: true }).click();
  const list = page.getByTestId('worktree-list');
  await expect(list.getByTestId('worktree-wip-feature')).toContainText('feature/wip-feature');
  await expect(list.getByTestId('worktree-hand-made')).toContainText('made outside Flightdeck');
  // Each worktree shows the disk its files take.
  await expect(list.getByTestId('worktree-disk-wip-feature')).toHaveText(/^\s*\d+(\.\d)? (B|KiB|MiB)$/);

  await list.getByTestId('worktree-wip-feature').getByRole('button', { name: 'Remove' }).click();
  await page.getByTestId('confirm-dialog').getByTestId('confirm').click();
  // The host refused: the second dialog names what would be lost.
  const again = page.getByTestId('confirm-dialog');
  await expect(again).toContainText('1 untracked file: draft.md');
  mkdirSync('test-results', { recursive: true });
  await page.screenshot({ path: 'test-results/worktrees-remove-confirm.png' });
  expect(existsSync(join(repo.path, '.trees/wip-feature/draft.md'))).toBe(true);
  await again.getByTestId('confirm').click();
  await expect(list.getByTestId('worktree-wip-feature')).toBeHidden();
  expect(existsSync(join(repo.path, '.trees/wip-feature'))).toBe(false);

  await list.getByTestId('archive-wip-feature').getByRole('button', { name: 'Restore' }).click();
  await expect(list.getByTestId('worktree-wip-feature')).toBeVisible();
  expect(readFileSync(join(repo.path, '.trees/wip-feature/draft.md'), 'utf8')).toBe('half-written\n');
});

test("a session's worktree is usable while its setup runs; the bar and the project's list show it running, failed with the command and exit code, and done after Run setup again", async ({ page }) => {
  const repo = makeRepo('fd-e2e-setup-');
  const data = tempDir('fd-e2e-setup-data-');
  cleanups.push(repo.cleanup, data.cleanup);
  mkdirSync(join(repo.path, '.flightdeck'));
  writeFileSync(join(repo.path, '.gitignore'), '.trees/\n');
  writeFileSync(join(repo.path, '.flightdeck', 'config.yml'), 'version: 1\nworktree:\n  setup:\n    - "while [ ! -f release ]; do sleep 0.05; done"\n    - "test -f fixed || exit 5"\n');
  gitIn(repo.path, 'add', '.');
  gitIn(repo.path, 'commit', '-q', '-m', 'a setup that waits');
  const quiet = { out: () => {}, err: () => {} };
  expect(await runCli(['projects', 'add', repo.path, '--data-dir', data.path], quiet)).toBe(0);
  expect(await runCli(['projects', 'trust', repo.path, '--yes', '--data-dir', data.path], quiet)).toBe(0);

  await host?.stop();
  host = await startHost({ dataDir: data.path });
  const board = new BoardPage(page);
  await board.open(host.url);
  const card = board.card(basename(repo.path));
  await card.getByTestId('card-new-session').click();
  const newSession = page.getByTestId('new-session-dialog');
  await newSession.getByTestId('worktree-name').fill('waits');
  await newSession.getByTestId('new-session-start').click();
  const tree = join(repo.path, '.trees/waits');

  // The session is open and its worktree usable while the first setup command still waits.
  const state = page.getByTestId('session-worktree').getByTestId('worktree-setup');
  await expect(state).toHaveAttribute('data-state', 'running');
  await expect(state).toContainText('Setup running: while [ ! -f release ]; do sleep 0.05; done (1/2)');
  await expect(page.getByTestId('worktree-setup-cancel')).toBeVisible();
  expect(readFileSync(join(tree, '.gitignore'), 'utf8')).toBe('.trees/\n');

  writeFileSync(join(tree, 'release'), '');
  await expect(state).toHaveAttribute('data-state', 'failed');
  await expect(state).toContainText('Setup failed: test -f fixed || exit 5 — exited with code 5');

  // The project's list says the same, and runs it again once the cause is fixed.
  await page.getByTestId('sidebar-projects').getByText(basename(repo.path), { exact: true }).click();
  const row = page.getByTestId('worktree-list').getByTestId('worktree-waits');
  await expect(row.getByTestId('worktree-setup')).toHaveAttribute('data-state', 'failed');
  writeFileSync(join(tree, 'fixed'), '');
  await row.getByTestId('worktree-setup-rerun').click();
  await expect(row.getByTestId('worktree-setup')).toHaveAttribute('data-state', 'done');
  await expect(row.getByTestId('worktree-setup')).toHaveText('Setup done');
});
