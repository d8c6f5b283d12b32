import { test, expect } from '@playwright/test';
import { lookup } from 'node:dns/promises';
import { mkdirSync } from 'node:fs';
import Docker from 'dockerode';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { dismissToasts } from './support/toasts';
import { ensureTestImage } from '../support/container-image';

/**
 * The Containers view's Images section against this machine's engine: the local images listed,
 * a throwaway tag removed through the confirm dialog from the keyboard, the engine's refusal to
 * remove an image a running container uses (naming that container), and the agent image's
 * build ending with its real reason here (its CUDA base image is not on this engine).
 */

const docker = new Docker({ socketPath: '/var/run/docker.sock' });
/** Throwaway names of this run only, so parallel or earlier runs are never touched. */
const REPO = `flightdeck-e2e-img-${process.pid}`;
let host: RunningHost | undefined;
const cleanups: Array<() => Promise<unknown>> = [];

test.afterAll(async () => {
  await host?.stop();
  // In order: the container that uses an image goes before that image.
  for (const c of cleanups) await c().catch(() => undefined);
});

test('the Images section lists the engine’s images, removes a tag from the keyboard, says why the engine refuses one in use, and shows the build’s own error', async ({ page }) => {
  test.setTimeout(180_000);
  const base = ensureTestImage();
  // A second tag of the test image: removing it takes only the tag.
  await docker.getImage(base).tag({ repo: REPO, tag: 'spare' });
  cleanups.push(() => docker.getImage(`${REPO}:spare`).remove());
  // A tag in the agent image's repository (not :latest, which the app uses): marked as the agent image.
  const agentTag = `flightdeck-agent:e2e-${process.pid}`;
  await docker.getImage(base).tag({ repo: 'flightdeck-agent', tag: `e2e-${process.pid}` });
  cleanups.push(() => docker.getImage(agentTag).remove());
  // An image of its own (a commit) used by a running container: the engine must refuse it.
  const maker = await docker.createContainer({ Image: base, Cmd: ['true'] });
  cleanups.push(() => maker.remove({ force: true }));
  await maker.commit({ repo: REPO, tag: 'in-use' });
  cleanups.push(() => docker.getImage(`${REPO}:in-use`).remove({ force: true }));
  const userName = `${REPO}-user`;
  const user = await docker.createContainer({ Image: `${REPO}:in-use`, name: userName, Cmd: ['sleep', '600'] });
  cleanups.unshift(() => user.remove({ force: true }));
  await user.start();

  host = await startHost();
  await page.setViewportSize({ width: 1280, height: 900 });
  await new BoardPage(page).open(host.url);
  await page.getByTestId('nav-containers').click();
  const section = page.getByTestId('images-section');
  await expect(section.getByTestId('image-engine')).toHaveValue('local', { timeout: 30_000 });
  const list = section.getByTestId('image-list');
  const row = (ref: string) => list.locator(`[data-testid="image-row"][data-ref="${ref}"]`);
  await expect(row(base)).toBeVisible({ timeout: 30_000 });
  await expect(row(base)).toContainText(/\d+(\.\d)? MiB/);
  await expect(row(base)).toContainText(/\d{4}-\d{2}-\d{2}/);
  await expect(row(`${REPO}:spare`)).toBeVisible();
  await expect(row(`${REPO}:in-use`)).toBeVisible();
  await expect(row(agentTag)).toContainText('agent image');
  await expect(row(base)).not.toContainText('agent image');

  mkdirSync('test-results', { recursive: true });
  await section.scrollIntoViewIfNeeded();
  await section.screenshot({ path: 'test-results/container-images.png' });

  // Remove the spare tag with the keyboard only: focus its Remove, Enter opens the dialog with
  // the safe button focused, Tab to Remove, Enter.
  await row(`${REPO}:spare`).getByTestId('image-remove').focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByTestId('confirm-dialog');
  await expect(dialog).toContainText(`Removes the tag ${REPO}:spare from local.`);
  await expect(dialog).toContainText('stays: it is also tagged');
  await expect(dialog).toContainText(base);
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(dialog.getByTestId('confirm')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toHaveCount(0);
  await expect(row(`${REPO}:spare`)).toHaveCount(0, { timeout: 30_000 });
  await expect(row(base)).toBeVisible();
  // Really gone from the engine; the image itself stays under its other tag.
  expect((await docker.listImages()).some((i) => (i.RepoTags ?? []).includes(`${REPO}:spare`))).toBe(false);
  expect((await docker.listImages()).some((i) => (i.RepoTags ?? []).includes(base))).toBe(true);

  // The image a running container uses: the engine refuses, and the toast names the container.
  await row(`${REPO}:in-use`).getByTestId('image-remove').click();
  await expect(dialog).toContainText(`Removes the image ${REPO}:in-use`);
  await page.keyboard.press('Control+Enter');
  const toasts = page.locator('.toasts');
  await expect(toasts).toContainText(`Could not remove ${REPO}:in-use`, { timeout: 30_000 });
  await expect(toasts).toContainText(`The image ${REPO}:in-use is in use by the running container ${userName} on "local"`);
  await expect(toasts).toContainText(`docker rm -f ${userName}`);
  await expect(row(`${REPO}:in-use`)).toBeVisible();
  expect((await user.inspect()).State.Running).toBe(true);
  await page.screenshot({ path: 'test-results/container-images-refusal.png' });
  await dismissToasts(page);

  // The agent image's build: its CUDA base is not on this engine, so the build stops at once with
  // that reason (the engine is never left to pull it). Skipped where someone pulled the base.
  const cuda = 'nvidia/cuda:12.1.1-runtime-ubuntu22.04';
  const haveCuda = await docker.getImage(cuda).inspect().then(() => true, () => false);
  if (!haveCuda) {
    await section.getByTestId('image-build').click();
    const result = section.getByTestId('image-build-result');
    await expect(result).toContainText(`The build on local failed: The base image ${cuda} is not on "local"`, { timeout: 30_000 });
    await expect(result).toContainText(`docker pull ${cuda}`);
    await expect(section.getByTestId('image-build')).toBeEnabled();
    // Asked for by name, the pull is the engine's to try. Only where no registry answers (as here):
    // elsewhere this would download gigabytes. The engine's own failure is what the user reads.
    const offline = await lookup('registry-1.docker.io').then(() => false, () => true);
    if (offline) {
      await section.getByTestId('image-build-pull').click();
      await expect(result).toContainText(/The build on local failed: .*registry-1\.docker\.io/, { timeout: 60_000 });
      await expect(section.getByTestId('image-build-pull')).toBeHidden();
    }
  }

  // A 700 px window: the table still fits (no horizontal scroll), its buttons reachable.
  await page.setViewportSize({ width: 700, height: 900 });
  await row(base).getByTestId('image-remove').scrollIntoViewIfNeeded();
  await expect(row(base).getByTestId('image-remove')).toBeInViewport();
  const overflow = await list.evaluate((t) => t.getBoundingClientRect().right - (t.closest('.view')?.getBoundingClientRect().right ?? t.ownerDocument.documentElement.clientWidth));
  expect(overflow).toBeLessThanOrEqual(0);
  await section.screenshot({ path: 'test-results/container-images-700.png' });
});
