import { test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { basename } from 'node:path';
import Docker from 'dockerode';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage } from './poms/session';
import { runCli } from '../../src-main/cli/main';
import { ensureTestImage } from '../support/container-image';
import { makeRepo, tempDir } from '../support/temp';

let host: RunningHost | undefined;
const cleanups: Array<() => void> = [];
const docker = new Docker({ socketPath: '/var/run/docker.sock' });
test.afterAll(async () => {
  await host?.stop();
  cleanups.forEach((c) => c());
});

test('the new-session dialog places a session in a container: fields validated as typed, the command runs there with its limits, stats seen', async ({ page }) => {
  test.setTimeout(180_000);
  const image = ensureTestImage();
  const repo = makeRepo('fd-e2e-ctrdlg-');
  const data = tempDir('fd-e2e-ctrdlg-data-');
  cleanups.push(repo.cleanup, data.cleanup);
  // The container runs as the worktree owner's uid (docs/containers.md).
  const uid = execFileSync('stat', ['-c', '%u', repo.path], { encoding: 'utf8' }).trim();
  expect(await runCli(['projects', 'add', repo.path, '--data-dir', data.path], { out: () => {}, err: () => {} })).toBe(0);

  host = await startHost({ dataDir: data.path });
  // The narrow window the app supports: the dialog with every container field must fit it.
  await page.setViewportSize({ width: 700, height: 700 });
  const board = new BoardPage(page);
  await board.open(host.url);
  await page.getByTestId('sidebar-projects').getByRole('button', { name: basename(repo.path) }).click();
  await page.getByTestId('new-session').click();
  const dialog = page.getByTestId('new-session-dialog');
  await dialog.getByTestId('placement-checkout').click();
  await expect(dialog.getByTestId('runs-on-host').locator('input')).toBeChecked();
  // Keyboard: the radio group moves to "In a container" with an arrow key.
  await dialog.getByTestId('runs-on-host').locator('input').focus();
  await page.keyboard.press('ArrowDown');
  await expect(dialog.getByTestId('runs-on-container').locator('input')).toBeChecked();
  const fields = dialog.getByTestId('container-fields');
  await expect(fields.getByTestId('ctr-engine')).toHaveValue('local');
  await expect(fields.getByTestId('ctr-engine-help')).toContainText('NVIDIA runtime: no');

  // Messages as typed; Start waits until every field fits.
  const start = dialog.getByTestId('new-session-start');
  await fields.getByTestId('ctr-memory').fill('2m');
  await expect(fields.getByTestId('ctr-memory-help')).toHaveText('At least 6 MiB (the engine refuses less).');
  await expect(start).toBeDisabled();
  await fields.getByTestId('ctr-cpus').fill('lots');
  await expect(fields.getByTestId('ctr-cpus-help')).toHaveText('A number of CPUs, e.g. 2 or 0.5.');
  await fields.getByTestId('ctr-gpus').selectOption('ids');
  await fields.getByTestId('ctr-gpu-ids').fill('0,gpu0');
  await expect(fields.getByTestId('ctr-gpus-help')).toContainText('Not a GPU index or UUID: gpu0');
  await fields.getByTestId('ctr-gpus').selectOption('all');
  await expect(fields.getByTestId('ctr-gpu-warning')).toContainText('NVIDIA Container Toolkit');
  await fields.getByTestId('ctr-gpus').selectOption('none');
  await fields.getByTestId('ctr-image').fill(image);
  await fields.getByTestId('ctr-memory').fill('256m');
  await fields.getByTestId('ctr-cpus').fill('1');
  await fields.getByTestId('ctr-pids').fill('8');
  await expect(fields.getByTestId('ctr-pids-help')).toHaveText('From 16 to 4194304 processes.');
  await fields.getByTestId('ctr-pids').fill('256');
  await fields.getByTestId('ctr-network').selectOption('none');
  await expect(start).toBeEnabled();

  // Nothing of the dialog is out of the 700 px window or scrolls sideways.
  const box = (await dialog.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(700);
  expect(await fields.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  mkdirSync('test-results', { recursive: true });
  await page.screenshot({ path: 'test-results/new-session-container.png' });

  await start.click();
  const session = new SessionPage(page);
  await expect(session.view).toBeVisible();
  await session.send('!echo "in $(hostname) as $(id -u)"');
  await expect(session.transcript).toContainText(new RegExp(`in [0-9a-f]{12} as ${uid}`), { timeout: 60_000 });

  // The container the command ran in carries the dialog's limits and network.
  const mine = (await docker.listContainers({ all: true, filters: { label: ['dev.flightdeck.managed=1'] } })).find((c) => c.Labels['dev.flightdeck.workspace'] === repo.path)!;
  expect(mine).toBeTruthy();
  cleanups.push(() => void docker.getContainer(mine.Id).remove({ force: true }).catch(() => undefined));
  const hostConfig = (await docker.getContainer(mine.Id).inspect()).HostConfig;
  expect(hostConfig.Memory).toBe(256 * 1024 * 1024);
  expect(hostConfig.NanoCpus).toBe(1e9);
  expect(hostConfig.PidsLimit).toBe(256);
  expect(hostConfig.NetworkMode).toBe('none');
  await expect(session.transcript).toContainText(mine.Id.slice(0, 12));

  // Its live figures, against the dialog's memory limit.
  await page.getByTestId('nav-containers').click();
  const row = page.getByTestId('containers-view').locator('[data-testid^="container-ses"]').first();
  await expect(row).toContainText('running');
  await expect(row.getByTestId('container-stats')).toContainText(/CPU \d+\.\d% · [\d.]+ (KiB|MiB) \/ 256 MiB/, { timeout: 30_000 });
  await page.screenshot({ path: 'test-results/new-session-container-stats.png' });
});
