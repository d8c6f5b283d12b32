import { test, expect } from '@playwright/test';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startModelServer, type ModelServer } from '../fixtures/model-server/index';
import { gitIn, makeRepo, tempDir } from '../support/temp';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage } from './poms/session';
import { SessionWorktreePage } from './poms/session-worktree';
import { ClaudeCodePage } from './poms/claude-code';

let host: RunningHost;
let model: ModelServer;
let repo: { path: string; cleanup(): void };
let home: { path: string; cleanup(): void };

const hostEnv = () => ({ ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-claude-key', ANTHROPIC_MODEL: 'claude-sonnet-5', HOME: home.path, CLAUDE_CODE_MAX_RETRIES: '0' });

/** What the model received on its last agent turn. */
const lastRequest = () => JSON.stringify((model.mainRequests().at(-1)!.body as { messages: unknown[] }).messages);

test.beforeAll(async () => {
  // Claude Code's own tool names: the CLI runs these tools; Flightdeck checkpoints what they changed.
  model = await startModelServer({
    script: [
      { match: { userPattern: 'make one' }, blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: 'one.txt', content: 'first\n' } }] },
      { blocks: [{ type: 'text', text: 'Wrote one.txt.' }] },
      { match: { userPattern: 'make two' }, blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: 'two.txt', content: 'second\n' } }] },
      { blocks: [{ type: 'text', text: 'Wrote two.txt.' }] },
      { match: { userPattern: 'after the rewind' }, blocks: [{ type: 'text', text: 'Continuing from turn one.' }] },
      { match: { userPattern: 'in the fork' }, blocks: [{ type: 'text', text: 'The fork goes on.' }] },
    ],
  });
  home = tempDir('fd-e2e-ccrw-home-');
  host = await startHost({ env: hostEnv() });
  repo = makeRepo('fd-e2e-ccrw-');
  gitIn(repo.path, 'config', 'user.name', 'E2E Tester');
  gitIn(repo.path, 'config', 'user.email', 'e2e@example.com');
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
  home?.cleanup();
});

test("a Claude Code session's turn menu rewinds files and conversation to a turn (across a restart), and forks a new worktree session that continues from it", async ({ page }) => {
  test.setTimeout(240_000);
  const board = new BoardPage(page);
  await board.open(host.url);
  const name = await board.addProject(repo.path);
  const session = new SessionPage(page);
  const cc = new ClaudeCodePage(page);
  await session.startFromProject(name, 'checkout');
  await cc.useExecutor('Claude Code');

  await session.send('make one');
  await session.approveOnce();
  await expect(session.transcript).toContainText('Wrote one.txt.', { timeout: 60_000 });
  await session.waitIdle();
  await session.send('make two');
  await session.approveOnce();
  await expect(session.transcript).toContainText('Wrote two.txt.', { timeout: 60_000 });
  await session.waitIdle();
  expect(readFileSync(join(repo.path, 'two.txt'), 'utf8')).toBe('second\n');

  // Rewind from turn 1's menu: the dialog names the file Claude Code wrote after it.
  const turn1 = session.transcript.getByTestId('msg-user').filter({ hasText: 'make one' });
  await turn1.hover();
  await turn1.getByRole('button', { name: 'Turn 1 menu' }).click();
  await page.getByTestId('turn-rewind').click();
  const confirm = page.getByTestId('confirm-dialog');
  await expect(confirm.getByTestId('rewind-summary')).toContainText('The conversation of turn 2 is set aside: the agent continues from turn 1.');
  await expect(confirm.getByTestId('rewind-files')).toHaveText('two.txt');
  await expect(confirm).toContainText("Files Claude Code's commands changed are put back too");
  mkdirSync('test-results', { recursive: true });
  await page.screenshot({ path: 'test-results/rewind-confirm-claude-code.png' });
  await confirm.getByTestId('confirm').click();
  await expect(session.transcript.getByTestId('rewound')).toContainText('Turn 2 set aside by a rewind to turn 1');
  await session.waitIdle();
  expect(existsSync(join(repo.path, 'two.txt'))).toBe(false);
  expect(readFileSync(join(repo.path, 'one.txt'), 'utf8')).toBe('first\n');

  // A restart between the rewind and the next turn: where the conversation resumes is on disk.
  const where = new URL(page.url()).hash;
  expect(where).toMatch(/^#\/session\/ses-/);
  await host.stop();
  host = await startHost({ dataDir: host.dataDir, env: hostEnv() });
  await board.open(host.url);
  await page.evaluate(`location.hash = '${where}'`);
  await expect(session.transcript.getByTestId('rewound')).toContainText('Turn 2 set aside by a rewind to turn 1');

  // The next turn: Claude Code's conversation holds turn 1 and not turn 2.
  await session.send('after the rewind');
  await expect(session.transcript).toContainText('Continuing from turn one.', { timeout: 60_000 });
  await session.waitIdle();
  let sent = lastRequest();
  expect(sent).toContain('make one');
  expect(sent).toContain('Wrote one.txt.');
  expect(sent).not.toContain('make two');

  // Fork from turn 1: a new Claude Code session in a new worktree, continuing the conversation of turn 1.
  await turn1.hover();
  await turn1.getByRole('button', { name: 'Turn 1 menu' }).click();
  await page.getByTestId('turn-fork').click();
  await expect(confirm.getByTestId('fork-summary')).toContainText('with the files as they were after turn 1');
  await confirm.getByTestId('confirm').click();
  const wt = new SessionWorktreePage(page);
  await expect(wt.branch).toBeVisible();
  await expect(session.header).toContainText('fork at turn 1');
  await expect(cc.executorSwitch.getByRole('radio', { name: 'Claude Code' })).toHaveAttribute('aria-checked', 'true');
  await expect(session.transcript.getByTestId('msg-user').filter({ hasText: 'after the rewind' })).toHaveCount(0);
  await session.send('in the fork');
  await expect(session.transcript).toContainText('The fork goes on.', { timeout: 60_000 });
  await session.waitIdle();
  sent = lastRequest();
  expect(sent).toContain('make one');
  expect(sent).toContain('in the fork');
  expect(sent).not.toContain('after the rewind');
  expect(sent).not.toContain('make two');
  const trees = gitIn(repo.path, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ') && l.includes('.trees'));
  expect(trees).toHaveLength(1);
  const tree = trees[0]!.slice('worktree '.length);
  expect(readFileSync(join(tree, 'one.txt'), 'utf8')).toBe('first\n');
  expect(existsSync(join(tree, 'two.txt'))).toBe(false);
  // The original session's folder is untouched by the fork.
  expect(existsSync(join(repo.path, 'two.txt'))).toBe(false);
  expect(readFileSync(join(repo.path, 'one.txt'), 'utf8')).toBe('first\n');
});
