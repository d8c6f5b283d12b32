import { test, expect } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { TerminalsPage } from './poms/terminals';
import { makeRepo } from '../support/temp';

let host: RunningHost;
test.beforeAll(async () => {
  host = await startHost();
});
test.afterAll(async () => {
  await host?.stop();
});

test('open a shell from a project card, run a command, see it again after a reload, and watch two terminals side by side', async ({ page }) => {
  const repo = makeRepo('fd-e2e-term-');
  const name = repo.path.split('/').pop()!;
  const board = new BoardPage(page);
  const terms = new TerminalsPage(page);
  await board.open(host.url);
  // The focused terminal would draw with WebGL (this Chromium has SwiftShader), where no test can read it.
  await terms.useCompatibleRendering();
  await board.startAdding(repo.path);
  await expect(board.pathHelp).toContainText('Looks good');
  await board.submit();
  await expect(board.card(name)).toBeVisible();

  await terms.openFromCard(name);
  const first = terms.pane(0);
  await expect(first).toHaveAttribute('data-status', 'running');
  await expect(first.getByTestId('terminal-status')).toHaveText('Running');
  await expect(first).toContainText(name);
  await terms.type(first, 'echo hello-$((6*7))');
  await expect(terms.screen(first)).toContainText('hello-42');
  await expect(terms.navItem).toContainText('1');

  // Copy a word with Ctrl+Shift+C and paste it back with Ctrl+Shift+V.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: host.origin });
  await terms.selectWord(first, 'hello-42');
  await page.keyboard.press('Control+Shift+C');
  await expect.poll(() => terms.clipboardText()).toBe('hello-42');
  await page.keyboard.type('echo pasted:');
  await page.keyboard.press('Control+Shift+V');
  await page.keyboard.press('Enter');
  await expect(terms.screen(first)).toContainText('pasted:hello-42');

  // A reload replays the scrollback from the main process.
  await page.reload();
  await expect(page.getByTestId('statusbar')).toContainText('Connected');
  await expect(terms.view).toBeVisible();
  await expect(terms.screen(terms.pane(0))).toContainText('hello-42');
  // And the shell is still live after the replay.
  await terms.type(terms.pane(0), 'echo again-$((40+2))');
  await expect(terms.screen(terms.pane(0))).toContainText('again-42');

  // Two terminals side by side.
  await terms.setLayout('Two side by side');
  await terms.newShellIn(name);
  await expect(terms.panes).toHaveCount(2);
  const second = terms.pane(1);
  await expect(second).toHaveAttribute('data-status', 'running');
  await terms.type(second, 'echo second-$((2+3)); ls');
  await expect(terms.screen(second)).toContainText('second-5');
  await expect(terms.screen(second)).toContainText('README.md');
  await expect(terms.screen(terms.pane(0))).toContainText('hello-42');
  await expect(terms.tabs).toHaveCount(2);
  // Two shells in one project read alike: the later one is numbered, in its tab and its pane alike.
  await expect(second.getByTestId('terminal-pane-title')).toHaveText('bash 2');
  const secondId = (await second.getAttribute('data-terminal-id'))!;
  await expect(page.locator(`[data-testid="terminal-tab"][data-terminal-id="${secondId}"]`)).toContainText('bash 2');
  await expect(terms.pane(0).getByTestId('terminal-pane-title')).toHaveText('bash');

  // A command that fails shows its exit code in the pane header.
  await terms.type(second, 'exit 3');
  await expect(second.getByTestId('terminal-status')).toHaveText('Exited with code 3');

  mkdirSync('test-results', { recursive: true });
  await page.screenshot({ path: 'test-results/terminals.png' });
});

test('tabs put running terminals first and the newest next; a link opens a terminal by its id; a pane reloaded at 700 px after a resize reads the same', async ({ page }) => {
  const repo = makeRepo('fd-e2e-term2-');
  const name = repo.path.split('/').pop()!;
  const board = new BoardPage(page);
  const terms = new TerminalsPage(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await board.open(host.url);
  await terms.useCompatibleRendering();
  await board.startAdding(repo.path);
  await expect(board.pathHelp).toContainText('Looks good');
  await board.submit();
  await expect(board.card(name)).toBeVisible();

  // Three shells, opened one after the other; the oldest exits.
  await terms.openFromCard(name);
  const oldest = (await terms.pane(0).getAttribute('data-terminal-id'))!;
  await terms.newShellIn(name);
  await expect(terms.pane(0)).not.toHaveAttribute('data-terminal-id', oldest);
  const middle = (await terms.pane(0).getAttribute('data-terminal-id'))!;
  await terms.newShellIn(name);
  await expect(terms.pane(0)).not.toHaveAttribute('data-terminal-id', middle);
  const newest = (await terms.pane(0).getAttribute('data-terminal-id'))!;
  const tabIds = () => terms.tabs.evaluateAll((els) => els.map((e) => e.getAttribute('data-terminal-id')));
  await expect.poll(tabIds).toEqual(expect.arrayContaining([newest, middle, oldest]));
  const mine = async () => (await tabIds()).filter((id) => [newest, middle, oldest].includes(id!));
  await expect.poll(mine).toEqual([newest, middle, oldest]);

  // A link to the oldest brings it to the front; it exits and moves behind the running ones.
  await page.goto(`${host.origin}/#/terminals/${oldest}`);
  await expect(terms.pane(0)).toHaveAttribute('data-terminal-id', oldest);
  await terms.type(terms.pane(0), 'exit 0');
  await expect(terms.pane(0)).toHaveAttribute('data-status', 'exited');
  await expect.poll(mine).toEqual([newest, middle, oldest]);
  await page.goto(`${host.origin}/#/terminals/${middle}`);
  await expect(terms.pane(0)).toHaveAttribute('data-terminal-id', middle);
  await terms.type(terms.pane(0), 'exit 0');
  await expect(terms.pane(0)).toHaveAttribute('data-status', 'exited');
  await expect.poll(mine).toEqual([newest, middle, oldest]);

  // Output, a resize to 700 px, a reload: every line reads whole, the title is readable.
  await page.goto(`${host.origin}/#/terminals/${newest}`);
  const pane = terms.pane(0);
  await expect(pane).toHaveAttribute('data-terminal-id', newest);
  await terms.type(pane, 'for i in $(seq 1 12); do echo "row-$i-abcdefghijklmnopqrstuvwxyz"; done');
  await expect(terms.screen(pane)).toContainText('row-12-abcdefghijklmnopqrstuvwxyz');
  await page.setViewportSize({ width: 700, height: 800 });
  await page.reload();
  await expect(page.getByTestId('statusbar')).toContainText('Connected');
  const again = terms.pane(0);
  await expect(again).toHaveAttribute('data-terminal-id', newest);
  await expect(terms.screen(again)).toContainText('row-12-abcdefghijklmnopqrstuvwxyz');
  const rows = (await terms.screen(again).innerText()).split('\n');
  for (let i = 1; i <= 12; i++) expect(rows.filter((r) => r.includes(`row-${i}-abcdefghijklmnopqrstuvwxyz`)).length, `row ${i} whole once`).toBe(1);
  const title = (await again.locator('.term-pane-header strong').boundingBox())!;
  expect(title.width).toBeGreaterThan(40);
  await page.screenshot({ path: 'test-results/terminals-700-reloaded.png' });
});
