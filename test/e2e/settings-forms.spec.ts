import { test, expect } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SettingsPage } from './poms/settings';
import { holdAnswers } from './support/held-answers';

/**
 * Every settings form opened, edited and saved the way a person does it, and read back after
 * a reload: each provider preset (key, model, default), a custom provider (with the mistakes
 * people make first), the terminal and agent settings, Claude Code. The bug this guards
 * against: saving any provider failed on fields the form should never have sent.
 */

let host: RunningHost;
test.beforeAll(async () => {
  host = await startHost({ env: { ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '', ANTHROPIC_MODEL: '' } });
  mkdirSync('test-results', { recursive: true });
});
test.afterAll(async () => {
  await host?.stop();
});

test('every provider preset, a custom provider, terminal, agent and Claude Code settings are edited, saved and kept', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1024, height: 800 });
  const board = new BoardPage(page);
  await board.open(host.url);
  const settings = new SettingsPage(page);
  await settings.open();

  // Each built-in preset: set a key and another model, save, see it kept.
  for (const preset of ['anthropic', 'glm', 'minimax', 'deepseek']) {
    await expect(settings.row(preset).getByTestId('key-state')).toHaveText('no key');
    await settings.edit(preset);
    await settings.field('apiKey').fill(`sk-${preset}-0123456789`);
    await settings.field('model').fill(`${preset}-model-x`);
    await settings.save();
    await expect(settings.editor).toBeHidden();
    await expect(page.getByRole('status').filter({ hasText: 'Saved' }).first()).toBeVisible();
    await expect(settings.row(preset).getByTestId('key-state')).toHaveText('key set');
    await expect(settings.row(preset)).toContainText(`${preset}-model-x`);
  }

  // The default changes from the form.
  await settings.edit('deepseek');
  await settings.editor.getByTestId('make-default').check();
  await page.keyboard.press('Control+Enter');
  await expect(settings.editor).toBeHidden();
  await expect(settings.row('deepseek')).toContainText('default');
  await expect(settings.row('anthropic')).not.toContainText('default');

  // Mistakes are shown beside their field, in words, and the first one is brought into view.
  await settings.edit('glm');
  await settings.field('label').fill('');
  await settings.field('baseUrl').fill('open.bigmodel.cn/api');
  await settings.field('contextWindow').fill('');
  await settings.field('prices.outputPerMTok').fill('-1');
  await settings.save();
  await expect(settings.error('label')).toHaveText(/Give the provider a name/);
  await expect(settings.error('baseUrl')).toHaveText(/starting with https:\/\//);
  await expect(settings.error('contextWindow')).toContainText('whole number');
  await expect(settings.editor).toContainText('A price in USD');
  await expect(settings.editor).not.toContainText('Too small');
  await expect(settings.field('label')).toHaveAttribute('aria-invalid', 'true');
  await expect(settings.field('label')).toBeFocused();
  await expect(settings.field('label')).toBeInViewport();
  await page.screenshot({ path: 'test-results/settings-provider-errors.png' });
  await settings.field('label').fill('GLM (Zhipu)');
  await settings.field('baseUrl').fill('https://open.bigmodel.cn/api/anthropic');
  await settings.field('contextWindow').fill('128000');
  await settings.field('prices.outputPerMTok').fill('2.2');
  await settings.save();
  await expect(settings.editor).toBeHidden();

  // A custom provider: a bad name first, then saved; removing it asks first.
  await settings.providers.getByTestId('add-provider').click();
  await expect(settings.editor).toBeVisible();
  await settings.field('name').fill('My Endpoint');
  await settings.field('label').fill('Local proxy');
  await settings.field('model').fill('local-model');
  await settings.field('baseUrl').fill('http://127.0.0.1:9999');
  await settings.save();
  await expect(settings.error('name')).toContainText('lowercase letters');
  await settings.field('name').fill('local-proxy');
  await settings.field('apiKey').fill('local-key-123');
  await settings.save();
  await expect(settings.editor).toBeHidden();
  await expect(settings.row('local-proxy')).toContainText('local-model');
  await settings.row('local-proxy').getByRole('button', { name: 'Remove Local proxy' }).click();
  await expect(settings.confirm).toBeVisible();
  await page.screenshot({ path: 'test-results/settings-remove-confirm.png' });
  await page.keyboard.press('Escape');
  await expect(settings.confirm).toBeHidden();
  await expect(settings.row('local-proxy')).toBeVisible();
  await settings.row('local-proxy').getByRole('button', { name: 'Remove Local proxy' }).click();
  await settings.confirm.getByTestId('confirm').click();
  await expect(settings.row('local-proxy')).toHaveCount(0);

  // Terminal settings.
  const fontSize = settings.view.locator('.setting-row', { hasText: 'Terminal font size' }).locator('input');
  await fontSize.fill('15');
  await settings.view.getByRole('radio', { name: 'Compatible' }).click();
  // Agent settings.
  const agents = page.getByTestId('agent-settings');
  await agents.locator('.setting-row', { hasText: 'Step limit' }).locator('input').fill('42');
  await agents.locator('.setting-row', { hasText: 'Default mode' }).locator('select').selectOption('auto-edit');
  // The mode select is as wide as its words, not the row.
  const selectWidth = await agents.locator('.setting-row', { hasText: 'Default mode' }).locator('select').evaluate((el) => el.getBoundingClientRect().width);
  expect(selectWidth).toBeLessThan(220);
  // Claude Code settings.
  const claude = page.getByTestId('claude-code-settings');
  // A path that does not exist is refused with its reason; the CLI the app found is accepted.
  await claude.getByLabel('claude CLI path').fill('/opt/claude/bin/claude');
  await claude.getByLabel('claude CLI path').press('Enter');
  await expect(page.getByRole('alert').filter({ hasText: '/opt/claude/bin/claude does not exist' })).toHaveCount(1);
  await expect(claude.getByTestId('claude-detection')).toContainText('Found');
  const found = (await claude.getByTestId('claude-detection').locator('code').textContent())!.trim();
  await claude.getByLabel('claude CLI path').fill(found);
  await claude.getByLabel('claude CLI path').press('Enter');
  await claude.getByLabel('Idle timeout').fill('120');
  await claude.getByLabel('Longest turn').fill('900');
  await page.screenshot({ path: 'test-results/settings-1024.png', fullPage: true });

  // Everything is still there after a reload (read back from the host, not the page).
  await page.reload();
  await expect(settings.view).toBeVisible();
  await expect(settings.row('deepseek')).toContainText('default');
  await expect(settings.row('glm')).toContainText('glm-model-x');
  for (const preset of ['anthropic', 'glm', 'minimax', 'deepseek']) await expect(settings.row(preset).getByTestId('key-state')).toHaveText('key set');
  await expect(fontSize).toHaveValue('15');
  await expect(settings.view.getByRole('radio', { name: 'Compatible' })).toHaveAttribute('aria-checked', 'true');
  await expect(agents.locator('.setting-row', { hasText: 'Step limit' }).locator('input')).toHaveValue('42');
  await expect(agents.locator('.setting-row', { hasText: 'Default mode' }).locator('select')).toHaveValue('auto-edit');
  await expect(claude.getByLabel('claude CLI path')).toHaveValue(found);
  await expect(claude.getByLabel('Idle timeout')).toHaveValue('120');
  await expect(claude.getByLabel('Longest turn')).toHaveValue('900');
  await settings.edit('glm');
  await expect(settings.field('contextWindow')).toHaveValue('128000');
  await expect(settings.field('prices.outputPerMTok')).toHaveValue('2.2');
  await page.keyboard.press('Escape');
  await expect(settings.editor).toBeHidden();

  // At 700 px the page still fits: the sidebar is icons and nothing overflows sideways.
  await page.setViewportSize({ width: 700, height: 800 });
  const overflow = await page.getByTestId('main').evaluate((el) => el.scrollWidth - el.clientWidth);
  expect(overflow).toBeLessThanOrEqual(1);
  await page.screenshot({ path: 'test-results/settings-700.png' });
});

test('an edit not saved yet is kept when the saved settings arrive late or change elsewhere', async ({ page, context }) => {
  // Once armed, the page's answers to coder.settings.get are held back until released.
  const answers = await holdAnswers(page, ['coder.settings.get']);
  const board = new BoardPage(page);
  await board.open(host.url);
  const settings = new SettingsPage(page);
  await settings.open();
  // A saved idle timeout shows when the settings have arrived.
  // (The field shows the host's answer: 135 once saved.)
  await page.getByTestId('claude-code-settings').getByLabel('Idle timeout').fill('135');
  await expect(page.getByTestId('claude-code-settings').getByLabel('Idle timeout')).toHaveValue('135');
  answers.arm();
  await page.reload();
  await settings.open();
  await expect.poll(() => answers.held()).toBe(1);
  // Typed before the saved settings arrived: the typed path stays.
  const path = page.getByTestId('claude-code-settings').getByLabel('claude CLI path');
  await path.fill('/opt/typed-early/claude');
  answers.release();
  await expect(page.getByTestId('claude-code-settings').getByLabel('Idle timeout')).toHaveValue('135');
  await expect(path).toHaveValue('/opt/typed-early/claude');
  // Emptied again (the claude on PATH) before leaving the field: that path does not exist.
  await path.fill('');

  // Allowed domains being typed while another window saves a step limit: the list stays.
  const net = page.getByTestId('sandbox-network-setting');
  await net.getByRole('combobox', { name: 'Network for sandboxed commands' }).selectOption('allow-list');
  const domains = net.getByRole('textbox', { name: 'Allowed domains' });
  await domains.fill('registry.npmjs.org, example.org');
  const other = await context.newPage();
  await new BoardPage(other).open(host.url);
  await new SettingsPage(other).open();
  await other.getByTestId('agent-settings').locator('.setting-row', { hasText: 'Step limit' }).locator('input').fill('43');
  // The change reached this page (its step limit shows it); the domains typed here did not go.
  await expect(page.getByTestId('agent-settings').locator('.setting-row', { hasText: 'Step limit' }).locator('input')).toHaveValue('43');
  await expect(domains).toHaveValue('registry.npmjs.org, example.org');
  await domains.blur();
  await other.reload();
  await new SettingsPage(other).open();
  await expect(other.getByTestId('sandbox-network-setting').getByRole('textbox', { name: 'Allowed domains' })).toHaveValue('registry.npmjs.org, example.org');
  await other.close();
});

test('a page opened without the token explains how to get in', async ({ page }) => {
  const res = await page.goto(host.origin + '/');
  expect(res?.status()).toBe(401);
  await expect(page.getByRole('heading')).toContainText('needs its access token');
  await expect(page.locator('body')).toContainText('Flightdeck ready at');
  await page.screenshot({ path: 'test-results/unauthorized-page.png' });
});
