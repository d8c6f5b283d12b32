import { test, expect } from '@playwright/test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startModelServer, type ModelServer } from '../fixtures/model-server/index';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage } from './poms/session';
import { ChangesPage } from './poms/changes';
import { gitIn, makeRepo } from '../support/temp';

let host: RunningHost;
let model: ModelServer;
let repo: { path: string; cleanup(): void };

const ORIGINAL = Array.from({ length: 30 }, (_, i) => `export const v${i + 1} = ${i + 1};`).join('\n') + '\n';
/** Two separate changes (lines 2 and 28) so the file has two hunks. */
const EDITED = ORIGINAL.replace('export const v2 = 2;', "export const v2 = 'two';").replace('export const v28 = 28;', 'export function v28() {\n  return 28;\n}');

test.beforeAll(async () => {
  repo = makeRepo('fd-e2e-changes-');
  gitIn(repo.path, 'config', 'user.name', 'E2E');
  gitIn(repo.path, 'config', 'user.email', 'e2e@example.com');
  writeFileSync(join(repo.path, 'values.ts'), ORIGINAL);
  gitIn(repo.path, 'add', '.');
  gitIn(repo.path, 'commit', '-q', '-m', 'values');
  model = await startModelServer({
    script: [
      { match: { userPattern: 'edit the values' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'values.ts', content: EDITED } }] },
      { match: { userPattern: 'values.ts' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'docs/notes.md', content: '# Notes\n\nThe values changed.\n' } }] },
      { match: { userPattern: 'notes.md' }, blocks: [{ type: 'text', text: 'Edited the values and wrote notes.' }] },
      // In a worktree: two new files, for the header's uncommitted count.
      { match: { userPattern: 'write two files' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'one.txt', content: 'one\n' } }, { type: 'tool_use', name: 'write', input: { path: 'two.txt', content: 'two\n' } }] },
      { match: { userPattern: 'two.txt' }, blocks: [{ type: 'text', text: 'Wrote both files.' }] },
    ],
  });
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' } });
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
});

test('the changes view shows what the session changed, reverts one hunk and commits the files', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const board = new BoardPage(page);
  await board.open(host.url);
  const name = await board.addProject(repo.path);

  const session = new SessionPage(page);
  await session.startFromProject(name);
  await session.header.getByRole('radio', { name: 'Auto-edit' }).click();
  await session.send('Please edit the values');
  await expect(session.transcript).toContainText('Edited the values and wrote notes.');
  await session.waitIdle();
  expect(readFileSync(join(repo.path, 'values.ts'), 'utf8')).toBe(EDITED);

  const changes = new ChangesPage(page);
  await expect(changes.count).toHaveText('2');
  await changes.open();
  await expect(changes.files).toHaveCount(2);
  await expect(changes.file('values.ts')).toContainText('modified');
  await expect(changes.file('docs/notes.md')).toContainText('added');
  await expect(changes.hunks('values.ts')).toHaveCount(2);
  // Syntax highlighting: the TypeScript keywords are tokens.
  await expect(changes.file('values.ts').locator('.token.keyword').first()).toBeVisible();
  await page.screenshot({ path: 'test-results/changes-view-unified.png' });
  await changes.dialog.getByRole('radio', { name: 'Side by side' }).click();
  await page.screenshot({ path: 'test-results/changes-view-split.png' });
  await changes.dialog.getByRole('radio', { name: 'Unified' }).click();

  // Revert the second hunk (the function at line 28): the first change stays.
  await changes.revertHunk('values.ts', 1);
  await expect(changes.hunks('values.ts')).toHaveCount(1);
  const afterRevert = readFileSync(join(repo.path, 'values.ts'), 'utf8');
  expect(afterRevert).toContain("export const v2 = 'two';");
  expect(afterRevert).toContain('export const v28 = 28;');
  expect(afterRevert).not.toContain('function v28');
  await expect(page.getByText(/saved as git blob/).first()).toBeVisible();
  await page.screenshot({ path: 'test-results/changes-view-hunk-reverted.png' });

  // The user edits the remaining hunk's line outside the app: its revert is refused, in words, and the file is untouched.
  const byHand = afterRevert.replace("export const v2 = 'two';", "export const v2 = 'two, by hand';");
  writeFileSync(join(repo.path, 'values.ts'), byHand);
  await changes.revertHunk('values.ts', 0);
  await expect(page.getByText(/no longer applies: the file changed since the view was loaded/)).toBeVisible();
  expect(readFileSync(join(repo.path, 'values.ts'), 'utf8')).toBe(byHand);
  await expect(changes.file('values.ts')).toContainText('two, by hand');
  await page.screenshot({ path: 'test-results/changes-view-hunk-refused.png' });

  // The new notes file is untracked: not ticked for the commit unless chosen, and the form says so.
  const notes = changes.dialog.locator('[data-testid="commit-choose"][data-path="docs/notes.md"]');
  await expect(notes).not.toBeChecked();
  await expect(changes.dialog.locator('[data-testid="commit-choose"][data-path="values.ts"]')).toBeChecked();
  await expect(changes.dialog.getByTestId('untracked-note')).toContainText('1 untracked file not ticked');
  await expect(changes.dialog.getByTestId('commit-button')).toHaveText('Commit 1 file');
  await page.screenshot({ path: 'test-results/changes-view-untracked-unticked.png' });
  await notes.check();
  await expect(changes.dialog.getByTestId('untracked-note')).toBeHidden();
  // Commit both files with a message.
  await changes.commit('Values as strings, with notes');
  await expect(changes.dialog).toContainText('No uncommitted changes from this session');
  expect(gitIn(repo.path, 'log', '-1', '--format=%s').trim()).toBe('Values as strings, with notes');
  expect(gitIn(repo.path, 'show', '--name-status', '--format=', 'HEAD').trim().split('\n').sort()).toEqual(['A\tdocs/notes.md', 'M\tvalues.ts']);
  expect(gitIn(repo.path, 'show', 'HEAD:values.ts')).toBe(byHand);
  expect(gitIn(repo.path, 'status', '--porcelain')).toBe('');
  await page.keyboard.press('Escape');
  await expect(changes.dialog).toBeHidden();
  await expect(changes.count).toBeHidden();
});

test('in a worktree, the header\'s uncommitted count follows a revert and a commit at once', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const board = new BoardPage(page);
  await board.open(host.url);
  const name = repo.path.split('/').pop()!;
  const session = new SessionPage(page);
  await session.startFromProject(name, 'worktree');
  await session.header.getByRole('radio', { name: 'Auto-edit' }).click();
  await session.send('Please write two files');
  await expect(session.transcript).toContainText('Wrote both files.', { timeout: 30_000 });
  await session.waitIdle();
  const counts = page.getByTestId('worktree-counts');
  await expect(counts).toContainText('2 uncommitted files');

  const changes = new ChangesPage(page);
  await changes.open();
  await changes.file('one.txt').getByTestId('revert-file').click();
  await expect(changes.files).toHaveCount(1);
  // The header behind the dialog already says so: no stale count.
  await expect(counts).toContainText('1 uncommitted file');
  await changes.dialog.locator('[data-testid="commit-choose"][data-path="two.txt"]').check();
  await changes.commit('The second file');
  await expect(changes.dialog).toContainText('No uncommitted changes from this session');
  await expect(counts).toContainText('no uncommitted changes');
  await page.screenshot({ path: 'test-results/changes-view-worktree-header.png' });
});
