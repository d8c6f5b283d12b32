import { test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { basename } from 'node:path';
import Docker from 'dockerode';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage } from './poms/session';
import { TerminalsPage } from './poms/terminals';
import { runCli } from '../../src-main/cli/main';
import { ensureTestImage } from '../support/container-image';
import { makeRepo, tempDir } from '../support/temp';

let host: RunningHost | undefined;
const cleanups: Array<() => void> = [];
test.afterAll(async () => {
  await host?.stop();
  cleanups.forEach((c) => c());
});

test("a session placed in a container runs its command there; its agent console shows the agent's commands live; the Containers view shows it and stops it", async ({ page }) => {
  test.setTimeout(180_000);
  const image = ensureTestImage();
  const repo = makeRepo('fd-e2e-ctr-');
  const data = tempDir('fd-e2e-ctr-data-');
  cleanups.push(repo.cleanup, data.cleanup);
  // The repository stays the test user's (git refuses a repository owned by someone else), so the
  // container runs as that user: the worktree owner's uid (docs/containers.md).
  const uid = execFileSync('stat', ['-c', '%u', repo.path], { encoding: 'utf8' }).trim();
  expect(await runCli(['projects', 'add', repo.path, '--data-dir', data.path], { out: () => {}, err: () => {} })).toBe(0);

  host = await startHost({ dataDir: data.path });
  const board = new BoardPage(page);
  await board.open(host.url);
  const terms = new TerminalsPage(page);
  await terms.useCompatibleRendering();
  const session = new SessionPage(page);
  await session.startFromProject(basename(repo.path), 'checkout');
  const sessionUrl = page.url();

  await page.getByTestId('nav-containers').click();
  const view = page.getByTestId('containers-view');
  await expect(view.getByTestId('engine-local')).toContainText('NVIDIA runtime: no');
  // An engine that is down says why, with a Retry, and does not hide the others.
  await view.getByTestId('engine-add-name').fill('gone');
  await view.getByTestId('engine-add-host').fill('unix:///tmp/flightdeck-e2e-gone.sock');
  await view.getByTestId('engine-add').click();
  await expect(view.getByTestId('engine-gone')).toContainText(/not reachable.*Start Docker/);
  await expect(view.getByTestId('engine-gone').getByTestId('engine-retry')).toBeVisible();
  await view.getByTestId('place-session').selectOption({ index: 1 });
  // An image the engine does not have is refused at Place, saying why (Flightdeck never pulls).
  await view.getByTestId('place-image').fill('flightdeck-e2e-no-such-image:never');
  await view.getByTestId('place-submit').click();
  await expect(view.getByTestId('place-error')).toContainText('has no image flightdeck-e2e-no-such-image:never');
  // The image field offers the engine's images; Place says the session is placed.
  await expect(view.getByTestId('place-image-options').locator(`option[value="${image}"]`)).toHaveCount(1);
  await view.getByTestId('place-image').fill(image);
  await expect(view.getByTestId('place-error')).toHaveCount(0);
  await view.getByTestId('place-submit').click();
  await expect(view.getByTestId('place-status')).toContainText(`is placed in ${image}`);
  await view.getByTestId('place-form').screenshot({ path: 'test-results/containers-place-form.png' });

  await page.goto(sessionUrl);
  await session.send('!echo "in $(hostname) as $(id -u)"');
  await expect(session.transcript).toContainText(new RegExp(`in [0-9a-f]{12} as ${uid}`), { timeout: 60_000 });

  // The session's header offers its agent console: the container's own TTY, with what already ran.
  await expect(page.getByTestId('session-container')).toBeVisible();
  // Where its commands run, in the header: a container, not this machine's sandbox.
  await expect(page.getByTestId('sandbox-badge')).toHaveText('Container');
  mkdirSync('test-results', { recursive: true });
  await page.getByTestId('session-header').screenshot({ path: 'test-results/container-session-header.png' });
  // A 700 px window: the header row keeps the console button and still fits.
  const wide = page.viewportSize()!;
  await page.setViewportSize({ width: 700, height: wide.height });
  await expect(page.getByTestId('session-container-console')).toBeVisible();
  const [scroll, width] = await page.locator('.session-title').evaluate((el) => [el.scrollWidth, el.clientWidth]);
  expect(scroll).toBeLessThanOrEqual(width!);
  await page.getByTestId('session-header').screenshot({ path: 'test-results/container-session-header-700.png' });
  await page.setViewportSize(wide);
  await page.getByTestId('session-container-console').click();
  const consolePane = terms.panes.filter({ hasText: 'agent console' }).first();
  await expect(terms.screen(consolePane)).toContainText('$ echo "in $(hostname) as $(id -u)"', { timeout: 30_000 });
  await expect(terms.screen(consolePane)).toContainText(new RegExp(`in [0-9a-f]{12} as ${uid}`));
  // Live: the next command appears while the console is open, its failure marked.
  await page.goto(sessionUrl);
  await session.send('!echo live-$((6*7)); exit 4');
  // Not read-only (it exits with a status): asked first, on the host, like any placement.
  await session.approveOnce();
  await expect(session.transcript).toContainText('live-42', { timeout: 60_000 });
  await terms.navItem.click();
  await expect(terms.screen(consolePane)).toContainText('live-42', { timeout: 30_000 });
  await expect(terms.screen(consolePane)).toContainText('[exit 4]');
  await page.screenshot({ path: 'test-results/container-agent-console.png' });

  await page.getByTestId('nav-containers').click();
  const row = view.locator('[data-testid^="container-ses"]').first();
  await expect(row).toContainText('running');
  await expect(row.getByTestId('container-stats')).toContainText(/CPU \d+\.\d% · [\d.]+ (KiB|MiB) \/ [\d.]+ GiB/, { timeout: 30_000 });
  await page.screenshot({ path: 'test-results/containers-view.png' });
  // Its log is the console's text, plain; Inspect is the engine's description, secrets redacted.
  await row.getByTestId('container-logs').click();
  const logs = page.getByTestId('container-logs-dialog');
  await expect(logs.getByTestId('container-logs-text')).toContainText('$ echo live-$((6*7)); exit 4');
  await expect(logs.getByTestId('container-logs-text')).toContainText('[exit 4]');
  await page.screenshot({ path: 'test-results/container-logs.png' });
  await logs.getByRole('radio', { name: 'Inspect' }).click();
  await expect(logs.getByTestId('container-logs-text')).toContainText('"dev.flightdeck.managed": "1"');
  await page.keyboard.press('Escape');
  await expect(logs).toBeHidden();
  // Keeping it past quitting is the user's choice, changed while it runs and remembered.
  await row.getByTestId('container-keep').check();
  await view.getByTestId('containers-refresh').click();
  await expect(row.getByTestId('container-keep')).toBeChecked();
  await row.getByTestId('container-keep').uncheck();
  await view.getByTestId('containers-refresh').click();
  await expect(row.getByTestId('container-keep')).not.toBeChecked();
  await row.getByTestId('container-stop').click();
  await expect(row).toContainText('exited', { timeout: 30_000 });
  const id = (await new Docker({ socketPath: '/var/run/docker.sock' }).listContainers({ all: true, filters: { label: ['dev.flightdeck.managed=1'] } })).find((c) => c.Labels['dev.flightdeck.workspace'] === repo.path)!;
  expect(id.State).toBe('exited');
  // Remove asks first, then the container is gone from the view and the engine.
  await row.getByTestId('container-remove').click();
  const confirm = page.getByTestId('confirm-dialog');
  await expect(confirm).toContainText('stopped and removed');
  await confirm.getByTestId('confirm').click();
  await expect(view.locator('[data-testid^="container-ses"]')).toHaveCount(0, { timeout: 30_000 });
  const left = await new Docker({ socketPath: '/var/run/docker.sock' }).listContainers({ all: true, filters: { id: [id.Id] } });
  expect(left).toHaveLength(0);
});
