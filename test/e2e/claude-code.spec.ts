import { test, expect } from '@playwright/test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startModelServer, type ModelServer } from '../fixtures/model-server/index';
import { makeRepo, tempDir } from '../support/temp';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage } from './poms/session';
import { ClaudeCodePage } from './poms/claude-code';

let host: RunningHost;
let model: ModelServer;
let repo: { path: string; cleanup(): void };
let home: { path: string; cleanup(): void };

test.beforeAll(async () => {
  // Claude Code's own tool names and inputs: the CLI, not Flightdeck, runs these tools.
  model = await startModelServer({
    script: [
      { match: { userPattern: 'create hello.txt' }, blocks: [{ type: 'text', text: 'Creating it now.' }, { type: 'tool_use', name: 'Write', input: { file_path: 'hello.txt', content: 'Hello from Claude Code\n' } }] },
      { match: { userPattern: 'File created successfully' }, blocks: [{ type: 'text', text: 'Claude Code created **hello.txt**.' }] },
      { match: { userPattern: 'create deny.txt' }, blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: 'deny.txt', content: 'never\n' } }] },
      { match: { userPattern: 'Keep this repository clean' }, blocks: [{ type: 'text', text: 'Fine, deny.txt stays absent.' }] },
    ],
  });
  home = tempDir('fd-e2e-claude-home-');
  host = await startHost({
    env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-claude-key', ANTHROPIC_MODEL: 'claude-sonnet-5', HOME: home.path, CLAUDE_CODE_MAX_RETRIES: '0' },
  });
  repo = makeRepo('fd-e2e-claude-');
  mkdirSync(join(repo.path, 'ai/contracts'), { recursive: true });
  writeFileSync(join(repo.path, 'ai/contracts/current.md'), '# Contract\nGreeting files only.\n');
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
  home?.cleanup();
});

test('settings show the claude CLI and its version', async ({ page }) => {
  const board = new BoardPage(page);
  await board.open(host.url);
  const cc = new ClaudeCodePage(page);
  await cc.openSettings();
  await expect(cc.detection).toContainText('Found');
  await expect(cc.detection.getByTestId('claude-version')).toHaveText('2.1.197');
  await cc.detectButton.click();
  await expect(cc.detection.getByTestId('claude-version')).toHaveText('2.1.197');
  await cc.settingsPanel.screenshot({ path: 'test-results/claude-code-settings.png' });
});

test('a session switched to Claude Code streams its turn, asks approvals through the same dialog, and shows the injected contract', async ({ page }) => {
  const board = new BoardPage(page);
  await board.open(host.url);
  const name = await board.addProject(repo.path);

  const session = new SessionPage(page);
  const cc = new ClaudeCodePage(page);
  await session.startFromProject(name);
  await cc.useExecutor('Claude Code');
  await expect(cc.injectToggle).toBeVisible();
  await session.send('Please create hello.txt');

  await expect(session.approval).toBeVisible();
  await expect(session.approval.getByTestId('approval-summary')).toContainText('hello.txt');
  await expect(session.approval.getByTestId('approval-diff')).toContainText('+Hello from Claude Code');
  expect(existsSync(join(repo.path, 'hello.txt'))).toBe(false);
  await session.approveOnce();
  await expect(session.transcript).toContainText('Claude Code created hello.txt.');
  await session.waitIdle();
  expect(readFileSync(join(repo.path, 'hello.txt'), 'utf8')).toBe('Hello from Claude Code\n');
  await expect(session.transcript.getByTestId('tool-card').first()).toContainText('hello.txt');
  await expect(cc.injectToggle.getByTestId('injected-count')).toHaveText('1');
  expect(JSON.stringify(model.mainRequests()[0]!.body)).toContain('Greeting files only.');
  await page.screenshot({ path: 'test-results/claude-code-session.png' });

  await session.send('Now create deny.txt');
  await expect(session.approval).toBeVisible();
  await session.deny('Keep this repository clean');
  await expect(session.transcript).toContainText('Fine, deny.txt stays absent.');
  await session.waitIdle();
  expect(existsSync(join(repo.path, 'deny.txt'))).toBe(false);

  await page.reload();
  await expect(session.transcript).toContainText('Claude Code created hello.txt.');
  await expect(cc.executorSwitch.getByRole('radio', { name: 'Claude Code' })).toHaveAttribute('aria-checked', 'true');
});
