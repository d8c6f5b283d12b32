import { test, expect } from '@playwright/test';
import { startModelServer, type ModelServer } from '../fixtures/model-server/index';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SettingsPage } from './poms/settings';

let host: RunningHost;
let model: ModelServer;

test.beforeAll(async () => {
  // The one-token test request is scripted like an agent turn, so the server can refuse the key first.
  model = await startModelServer({ isMain: () => true, script: [{ fault: { kind: 'status', status: 401 } }, { blocks: [{ type: 'text', text: 'p' }] }] });
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' } });
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
});

test('Test connection says in words that the key was rejected, then that it connects with its latency', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await new BoardPage(page).open(host.url);
  const settings = new SettingsPage(page);
  await settings.open();
  const row = settings.row('anthropic');
  await row.getByTestId('test-connection').click();
  const result = row.getByTestId('connection-result');
  await expect(result).toHaveAttribute('data-outcome', 'key_rejected');
  await expect(result).toContainText('The API key was rejected (401)');
  await row.screenshot({ path: 'test-results/provider-test-connection-rejected.png' });

  await row.getByTestId('test-connection').click();
  await expect(result).toHaveAttribute('data-outcome', 'ok');
  await expect(result).toContainText(/Connected in \d+ ms/);
  await page.screenshot({ path: 'test-results/provider-test-connection-ok.png' });
  expect(model.requests.filter((r) => r.route === 'messages' || r.path.startsWith('/v1/messages')).map((r) => (r.body as { max_tokens?: number }).max_tokens)).toEqual([1, 1]);

  // Another profile without a key is told so without a request.
  const before = model.requests.length;
  await settings.row('deepseek').getByTestId('test-connection').click();
  await expect(settings.row('deepseek').getByTestId('connection-result')).toHaveAttribute('data-outcome', 'no_key');
  expect(model.requests.length).toBe(before);
  // Once the profile changes (a key is added), the old "no key" result is gone rather than contradicting it.
  await settings.edit('deepseek');
  await settings.field('apiKey').fill('sk-deepseek-0123456789');
  await settings.save();
  await expect(settings.editor).toBeHidden();
  await expect(settings.row('deepseek')).toContainText('key set');
  await expect(settings.row('deepseek').getByTestId('connection-result')).toHaveCount(0);
});
