import { test, expect } from '@playwright/test';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
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
      { blocks: [{ type: 'tool_use', name: 'write', input: { path: 'one.txt', content: 'first\n' } }] },
      { blocks: [{ type: 'text', text: 'Wrote one.txt.' }] },
      { blocks: [{ type: 'tool_use', name: 'write', input: { path: 'two.txt', content: 'second\n' } }] },
      { blocks: [{ type: 'text', text: 'Wrote two.txt.' }] },
    ],
  });
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' } });
  repo = makeRepo('fd-e2e-rewind-');
  gitIn(repo.path, 'config', 'user.name', 'E2E Tester');
  gitIn(repo.path, 'config', 'user.email', 'e2e@example.com');
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
});

test("a turn's menu rewinds the session to it after a confirmation naming the files, Undo rewind takes it back, and Fork opens a new worktree session from it", async ({ page }) => {
  const board = new BoardPage(page);
  await board.open(host.url);
  const name = await board.addProject(repo.path);
  const session = new SessionPage(page);
  await session.startFromProject(name, 'checkout');

  await session.send('make one');
  await session.approveOnce();
  await expect(session.transcript).toContainText('Wrote one.txt.');
  await session.waitIdle();
  await session.send('make two');
  await session.approveOnce();
  await expect(session.transcript).toContainText('Wrote two.txt.');
  await session.waitIdle();
  expect(existsSync(join(repo.path, 'two.txt'))).toBe(true);

  // Rewind from turn 1's menu: the dialog says what changes.
  const turn1 = session.transcript.getByTestId('msg-user').filter({ hasText: 'make one' });
  await turn1.hover();
  await turn1.getByRole('button', { name: 'Turn 1 menu' }).click();
  await page.getByTestId('turn-rewind').click();
  const confirm = page.getByTestId('confirm-dialog');
  await expect(confirm).toContainText('Rewind to after turn 1?');
  await expect(confirm.getByTestId('rewind-summary')).toContainText('The conversation of turn 2 is set aside: the agent continues from turn 1.');
  await expect(confirm.getByTestId('rewind-files')).toHaveText('two.txt');
  mkdirSync('test-results', { recursive: true });
  await page.screenshot({ path: 'test-results/rewind-confirm.png' });
  await confirm.getByTestId('confirm').click();

  await expect(session.transcript.getByTestId('rewound')).toContainText('Turn 2 set aside by a rewind to turn 1');
  await expect(session.transcript.getByTestId('msg-user').filter({ hasText: 'make two' })).toHaveCount(0);
  await session.waitIdle();
  expect(existsSync(join(repo.path, 'two.txt'))).toBe(false);
  expect(readFileSync(join(repo.path, 'one.txt'), 'utf8')).toBe('first\n');
  await page.screenshot({ path: 'test-results/rewind-folded.png' });
  // The last turn has no Rewind (nothing after it); the menu still forks.
  await turn1.hover();
  await turn1.getByRole('button', { name: 'Turn 1 menu' }).click();
  await expect(page.getByTestId('turn-rewind')).toHaveCount(0);
  await page.keyboard.press('Escape');
  await page.mouse.click(5, 5);

  // Undo rewind: the file and the folded turn come back.
  await session.transcript.getByTestId('command-action').filter({ hasText: 'Undo rewind' }).click();
  await expect(session.transcript.getByTestId('rewound')).toHaveCount(0);
  await expect(session.transcript.getByTestId('msg-user').filter({ hasText: 'make two' })).toBeVisible();
  await session.waitIdle();
  expect(readFileSync(join(repo.path, 'two.txt'), 'utf8')).toBe('second\n');

  // Fork from turn 1: a new session in a new worktree, with turn 1's files and conversation.
  await turn1.hover();
  await turn1.getByRole('button', { name: 'Turn 1 menu' }).click();
  await page.getByTestId('turn-fork').click();
  await expect(confirm.getByTestId('fork-summary')).toContainText('A new session starts in a new worktree, with the files as they were after turn 1');
  await confirm.getByTestId('confirm').click();
  const wt = new SessionWorktreePage(page);
  await expect(wt.branch).toBeVisible();
  await expect(session.header).toContainText('fork at turn 1');
  await expect(session.transcript.getByTestId('msg-user').filter({ hasText: 'make one' })).toBeVisible();
  await expect(session.transcript.getByTestId('msg-user').filter({ hasText: 'make two' })).toHaveCount(0);
  const trees = gitIn(repo.path, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ') && l.includes('.trees'));
  expect(trees).toHaveLength(1);
  const tree = trees[0]!.slice('worktree '.length);
  expect(readFileSync(join(tree, 'one.txt'), 'utf8')).toBe('first\n');
  expect(existsSync(join(tree, 'two.txt'))).toBe(false);
  // The original keeps both.
  expect(readFileSync(join(repo.path, 'two.txt'), 'utf8')).toBe('second\n');
});
