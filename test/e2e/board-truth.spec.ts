import { test, expect, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startModelServer, type ModelServer } from '../fixtures/model-server/index';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { makeRunRepo, planFeature, write, type RunRepo } from '../integration/features/run/support';
import { readState, writeState } from '../../src-main/features/state';
import { activeStatePath } from '../../src-main/features/scanner';

/**
 * The board tells the truth: a feature whose push failed is under "Failed or stopped" with the
 * git error, and a feature whose run's process was killed leaves "In progress" within seconds
 * for the same column, with Resume — at 1440 and 700 px.
 */

test.describe.configure({ mode: 'serial' });

let host: RunningHost;
let model: ModelServer;
let repo: RunRepo;
const children: ChildProcess[] = [];
/** What the CLI runs printed, for a failure's message. */
let cliOutput = '';
const root = fileURLToPath(new URL('../..', import.meta.url));

/** `feature run <slug>` in a CLI process of the host's data folder, as a terminal would start it. */
function cliRun(slug: string): ChildProcess {
  const loader = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  const child = spawn(process.execPath, ['--import', loader, join(root, 'src-main', 'cli', 'main.ts'), 'feature', 'run', slug, '--repo', repo.repo, '--data-dir', host.dataDir, '--approve', 'allow'], {
    cwd: root,
    env: { ...process.env, ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (cliOutput += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (cliOutput += d.toString()));
  children.push(child);
  return child;
}

const column = (page: Page, col: string) => page.getByTestId(`board-column-${col}`);
const cardIn = (page: Page, col: string, slug: string) => column(page, col).locator(`[data-testid="feature-card"][data-slug="${slug}"]`);

test.beforeAll(async () => {
  // crashy's first call writes a file, its second hangs until the process running it is killed.
  model = await startModelServer({ script: [write('sum.mjs', 'export const x = 1;\n'), { fault: { kind: 'stall', ms: 300_000 }, blocks: [{ type: 'text', text: 'never seen' }] }] });
  repo = makeRunRepo({ remote: 'bare' });
  // The origin refuses the pushy branch (a protected branch, a server hook): the push fails with git's words.
  const hook = join(repo.origin!, 'hooks', 'pre-receive');
  writeFileSync(hook, '#!/bin/sh\nwhile read old new ref; do case "$ref" in *pushy*) echo "protected branch: pushes to $ref are refused" >&2; exit 1;; esac; done\nexit 0\n');
  chmodSync(hook, 0o755);
  await planFeature(repo.repo, 'pushy', ['library']);
  // Every phase of pushy is done: its run goes straight to delivery, whose push the origin refuses.
  const path = activeStatePath(repo.repo, 'pushy');
  const s = await readState(path);
  const now = new Date().toISOString();
  await writeState(path, { ...s, status: 'in_progress', current_phase: s.phases.length, phases: s.phases.map((p) => ({ ...p, status: 'completed', started_at: now, completed_at: now })) });
  await planFeature(repo.repo, 'crashy', ['library']);
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' } });
});

test.afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await host?.stop();
  await model?.close();
  repo?.cleanup();
});

test('a failed push is under Failed with the reason; a killed run leaves In progress for Resume within seconds', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const board = new BoardPage(page);
  await board.open(host.url);
  await board.addProject(repo.repo);
  await expect(cardIn(page, 'planned', 'pushy')).toHaveCount(0);
  await expect(cardIn(page, 'planned', 'crashy')).toBeVisible();

  // pushy: the push is refused; the card says so under Failed or stopped, not In progress.
  const push = cliRun('pushy');
  await new Promise((r) => push.once('exit', r));
  const pushy = cardIn(page, 'failed', 'pushy');
  await expect(pushy).toBeVisible({ timeout: 30_000 });
  expect(cliOutput).toContain('pushing feature/pushy to origin failed');
  await expect(pushy.getByTestId('feature-reason')).toContainText('pushing feature/pushy to origin failed');
  await expect(pushy.getByTestId('feature-resume')).toBeVisible();
  await expect(column(page, 'in_progress').getByTestId('feature-card')).toHaveCount(0);

  // crashy: running in another process, it is In progress with its phase...
  const crash = cliRun('crashy');
  const crashy = cardIn(page, 'in_progress', 'crashy');
  await expect(crashy).toBeVisible({ timeout: 60_000 });
  await expect(crashy.getByTestId('feature-phase')).toContainText('library');
  await expect.poll(() => model.mainRequests().length, { timeout: 60_000 }).toBeGreaterThanOrEqual(2);
  await page.screenshot({ path: 'test-results/board-truth-running-1440.png' });
  // ...until that process dies: within seconds it is stopped, with the reason and Resume.
  crash.kill('SIGKILL');
  const stopped = cardIn(page, 'failed', 'crashy');
  await expect(stopped).toBeVisible({ timeout: 20_000 });
  await expect(stopped.getByTestId('feature-reason')).toContainText(`(pid ${crash.pid}) ended`);
  await expect(stopped.getByTestId('feature-resume')).toBeVisible();
  await expect(column(page, 'in_progress').getByTestId('feature-card')).toHaveCount(0);
  await expect(column(page, 'failed').getByTestId('board-column-count')).toHaveText('2');
  await page.screenshot({ path: 'test-results/board-truth-1440.png' });

  // Cards sort by last activity, newest first (crashy ran last), or by name.
  await expect(column(page, 'failed').getByTestId('feature-card').first()).toHaveAttribute('data-slug', 'crashy');
  await page.getByTestId('board-sort').selectOption('name');
  await expect(column(page, 'failed').getByTestId('feature-card').first()).toHaveAttribute('data-slug', 'crashy');
  await expect(column(page, 'failed').getByTestId('feature-card').last()).toHaveAttribute('data-slug', 'pushy');

  await page.setViewportSize({ width: 700, height: 900 });
  await column(page, 'failed').scrollIntoViewIfNeeded();
  await expect(stopped.getByTestId('feature-resume')).toBeVisible();
  await page.screenshot({ path: 'test-results/board-truth-700.png' });

  // Resume runs it here again: the card goes back to In progress.
  await page.setViewportSize({ width: 1440, height: 900 });
  await stopped.getByTestId('feature-resume').click();
  await expect(cardIn(page, 'in_progress', 'crashy')).toBeVisible({ timeout: 30_000 });
});
