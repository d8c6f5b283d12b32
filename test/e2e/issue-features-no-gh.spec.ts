import { test, expect } from '@playwright/test';
import { accessSync, constants, mkdirSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { FeaturesPage } from './poms/features';
import { makeRepo } from '../support/temp';

/**
 * A feature from an issue where the GitHub CLI is not installed: the issue picker says how to
 * enable it (install gh, gh auth login) instead of an empty list or a raw spawn error, and the
 * rest of the dialog still works.
 */

let host: RunningHost;
const repos: Array<{ path: string; cleanup(): void }> = [];

/** PATH without any folder that holds a `gh` (a developer's machine may have the real one). */
function pathWithoutGh(): string {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => {
      try {
        accessSync(join(dir, 'gh'), constants.X_OK);
        return false;
      } catch {
        return true; // no gh here: the folder stays
      }
    })
    .join(delimiter);
}

test.beforeAll(async () => {
  host = await startHost({ env: { PATH: pathWithoutGh() } });
});

test.afterAll(async () => {
  await host?.stop();
  for (const r of repos) r.cleanup();
});

test('without gh the issue picker says how to enable it', async ({ page }) => {
  const r = makeRepo('fd-e2e-nogh-');
  repos.push(r);
  mkdirSync(join(r.path, '.flightdeck'));
  writeFileSync(join(r.path, '.flightdeck', 'config.yml'), 'checks: []\n');
  execFileSync('git', ['add', '.'], { cwd: r.path });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'features'], { cwd: r.path });
  const board = new BoardPage(page);
  const features = new FeaturesPage(page);
  await board.open(host.url);
  const name = await board.addProject(r.path);
  await features.openProject(name);
  await features.panel.getByTestId('plan-from-issue').click();
  const dialog = page.getByTestId('new-plan-dialog');
  const error = dialog.getByTestId('issues-error');
  await expect(error).toContainText('the GitHub CLI (gh), which is not installed or not on PATH');
  await expect(error).toContainText('Install it from https://cli.github.com and run "gh auth login"');
  await expect(dialog.getByTestId('issue-row')).toHaveCount(0);
  // Try again asks again (still no gh: the same words), and Cancel closes the dialog.
  await error.getByRole('button', { name: 'Try again' }).click();
  await expect(error).toContainText('Install it from https://cli.github.com');
  await page.screenshot({ path: 'test-results/issue-picker-no-gh.png' });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
});
