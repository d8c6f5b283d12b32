import { test, expect } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitIn, makeRepo } from '../support/temp';
import { TrustPage } from './poms/trust';
import { SessionPage } from './poms/session';
import { startModelServer, type ModelServer } from '../fixtures/model-server/index';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { McpPanel } from './poms/mcp';
import { fixtureCommand } from '../fixtures/mcp/index';

/** Settings → MCP servers (issue 25): add a real MCP server as a command with a secret, test it, see its tools; the secret is never shown. */

const SECRET = 'e2e-mcp-secret-31f5a7c9';
let host: RunningHost;
let model: ModelServer;

test.beforeAll(async () => {
  model = await startModelServer({
    script: [
      { match: { userPattern: 'use the fixture' }, blocks: [{ type: 'tool_use', name: 'mcp__session__echo', input: { text: 'from the app' } }] },
      { match: { userPattern: 'echo: from the app' }, blocks: [{ type: 'text', text: 'The MCP tool answered.' }] },
    ],
  });
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' } });
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
});

test('adds a command server with a secret, tests it (tools listed), keeps the secret hidden across a reload, disables and removes it', async ({ page }) => {
  await new BoardPage(page).open(host.url);
  const mcp = new McpPanel(page);
  await mcp.open();
  await expect(mcp.panel).toContainText('No MCP servers yet.');

  const { command, args } = fixtureCommand();
  await mcp.addCommand('fixture', [command, ...args].map((a) => `"${a}"`).join(' '), `FIXTURE_SECRET=${SECRET}`);
  const row = mcp.row('fixture');
  await expect(row).toContainText('Secrets: FIXTURE_SECRET (values hidden)');
  await expect(mcp.form.getByLabel('Server name')).toHaveValue('');

  await row.getByRole('button', { name: 'Test fixture' }).click();
  await expect(row.getByTestId('mcp-test-result')).toContainText('3 tool(s)', { timeout: 60_000 });
  await expect(row.getByTestId('mcp-test-result')).toContainText('echo');
  await expect(row.getByTestId('mcp-status')).toContainText('running');
  // One tool set to always deny: kept (the select follows the saved value).
  await row.getByTestId('mcp-tool-policies').locator('summary').click();
  await row.getByLabel('Approval for fixture crash').selectOption('deny');
  await expect(row.getByLabel('Approval for fixture crash')).toHaveValue('deny');
  await expect(row.getByLabel('Approval for fixture echo')).toHaveValue('ask');
  await mcp.panel.screenshot({ path: 'test-results/settings-mcp.png' });

  // A name taken and a broken env line are said in words, in the form.
  await mcp.addCommand('fixture', 'node x.js');
  await expect(mcp.form.getByTestId('mcp-add-error')).toContainText('already exists');
  await mcp.addCommand('other', 'node x.js', 'NOVALUE');
  await expect(mcp.form.getByTestId('mcp-add-error')).toContainText('is not NAME=value');

  // A URL server that is not there: Test says why.
  await mcp.addUrl('down', 'http://127.0.0.1:1/mcp');
  await mcp.row('down').getByRole('button', { name: 'Test down' }).click();
  await expect(mcp.row('down').getByTestId('mcp-test-result')).toContainText('could not be started', { timeout: 60_000 });
  await expect(mcp.row('down').getByTestId('mcp-last-error')).toContainText('could not be started');

  await page.reload();
  await mcp.open();
  await expect(mcp.row('fixture')).toBeVisible();
  expect(await page.content()).not.toContain(SECRET);

  await mcp.row('fixture').getByLabel('Enable fixture').click();
  await expect(mcp.row('fixture').getByLabel('Enable fixture')).not.toBeChecked();
  await mcp.row('fixture').getByRole('button', { name: 'Remove fixture' }).click();
  await expect(mcp.row('fixture')).toHaveCount(0);
  await expect(mcp.row('down')).toBeVisible();
});

test("a trusted project's .mcp.json is offered on its page (nothing while untrusted), a server added from it is for that project only", async ({ page }) => {
  const repo = makeRepo('fd-e2e-mcp-suggest-');
  try {
    const { command, args } = fixtureCommand();
    writeFileSync(
      join(repo.path, '.mcp.json'),
      JSON.stringify({ mcpServers: { suggested: { command, args, env: { FIXTURE_PLAIN: 'repo-value' } }, loader: { command, args, env: { LD_PRELOAD: '/tmp/hook.so' } } } }),
    );
    gitIn(repo.path, 'add', '.mcp.json');
    gitIn(repo.path, 'commit', '-qm', 'suggest an MCP server');
    const board = new BoardPage(page);
    const trust = new TrustPage(page);
    await board.open(host.url);
    const name = await board.addProject(repo.path);
    const card = board.card(name);
    await card.locator('.card-title').click();
    const view = page.getByTestId('project-view');
    await expect(view).toBeVisible();
    await expect(trust.line(view)).toContainText('Untrusted');
    await expect(view.getByTestId('mcp-suggestions')).toHaveCount(0);
    const dialog = await trust.review(view);
    await expect(dialog).toContainText('.mcp.json');
    await trust.trust();
    const suggestion = view.locator('[data-testid="mcp-suggestion"][data-server="suggested"]');
    await expect(suggestion).toBeVisible();
    await expect(view.getByTestId('mcp-suggestions')).toContainText('This project suggests these MCP servers');
    // The repository's values are shown as written, before anything is added.
    await expect(suggestion.getByTestId('mcp-suggestion-values')).toHaveText('FIXTURE_PLAIN=repo-value');
    // A loader variable: shown, refused in words, no Add.
    const loader = view.locator('[data-testid="mcp-suggestion"][data-server="loader"]');
    await expect(loader.getByTestId('mcp-suggestion-values')).toHaveText('LD_PRELOAD=/tmp/hook.so');
    await expect(loader.getByTestId('mcp-suggestion-refused')).toContainText('It sets LD_PRELOAD, which changes what code the program loads');
    await expect(loader.getByRole('button', { name: 'Add the MCP server loader' })).toHaveCount(0);
    await view.getByTestId('mcp-suggestions').screenshot({ path: 'test-results/mcp-suggestions.png' });
    await suggestion.getByRole('button', { name: 'Add the MCP server suggested' }).click();
    await expect(suggestion).toContainText('Added');
    const mcp = new McpPanel(page);
    await mcp.open();
    // Kept as the repository's value, shown in Settings too (not a hidden secret).
    await expect(mcp.row('suggested').getByTestId('mcp-plain-values')).toHaveText('FIXTURE_PLAIN=repo-value');
    await expect(mcp.row('loader')).toHaveCount(0);
    const scope = mcp.row('suggested').getByTestId('mcp-scope');
    await expect(scope).toContainText('For 1 project(s) only');
    await scope.locator('summary').click();
    await expect(scope.getByLabel(`Use suggested in ${name}`)).toBeChecked();
    await scope.getByLabel(`Use suggested in ${name}`).click();
    await expect(scope.locator('summary')).toHaveText('For 0 project(s) only');
    await scope.getByLabel('Every project').click();
    await expect(scope.locator('summary')).toHaveText('For every project');
  } finally {
    repo.cleanup();
  }
});

test('a session uses the MCP tool after approval: asked first, its result on a tool card, the answer after it', async ({ page }) => {
  const repo = makeRepo('fd-e2e-mcp-session-');
  try {
    const board = new BoardPage(page);
    await board.open(host.url);
    const mcp = new McpPanel(page);
    await mcp.open();
    const { command, args } = fixtureCommand();
    await mcp.addCommand('session', [command, ...args].map((a) => `"${a}"`).join(' '));
    await expect(mcp.row('session')).toBeVisible();
    await board.open(host.url);
    const name = await board.addProject(repo.path);
    const session = new SessionPage(page);
    await session.startFromProject(name);
    await session.send('use the fixture');
    await expect(session.approval).toBeVisible({ timeout: 60_000 });
    await expect(session.approval).toContainText('mcp__session__echo');
    await session.approveOnce();
    await expect(session.transcript).toContainText('The MCP tool answered.', { timeout: 60_000 });
    // A finished card opens on a click (it is open by itself only while its approval is pending).
    const header = session.lastCard('mcp__session__echo').locator('.tool-header');
    if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
    await expect(session.lastCard('mcp__session__echo')).toContainText('echo: from the app');
    await page.screenshot({ path: 'test-results/mcp-session-tool.png' });
  } finally {
    repo.cleanup();
  }
});
