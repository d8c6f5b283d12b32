import { test, expect } from '@playwright/test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHost, type RunningHost } from './support/host';
import { tempDir } from '../support/temp';
import { BoardPage } from './poms/board';
import { SettingsPage } from './poms/settings';

/**
 * A damaged API key file is shown as such in the providers panel (naming the file), not as
 * "no key"; saving a key is refused with that reason and the file is left as it was (issue 8
 * item 6: a truncated secrets.json used to be overwritten with only the new key).
 */
const DAMAGED = '{\n  "provider:anthropic": "sk-ant-0123456789",\n  "provider:glm": "sk-gl';

let host: RunningHost;
let file: string;
test.beforeAll(async () => {
  const data = tempDir('fd-e2e-keys-');
  file = join(data.path, 'secrets.json');
  writeFileSync(file, DAMAGED, { mode: 0o600 });
  host = await startHost({ dataDir: data.path, env: { ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '', ANTHROPIC_MODEL: '' } });
  mkdirSync('test-results', { recursive: true });
});
test.afterAll(async () => {
  await host?.stop();
});

test('a truncated key file is reported in the providers panel and never overwritten', async ({ page }) => {
  test.setTimeout(90_000);
  const board = new BoardPage(page);
  await board.open(host.url);
  const settings = new SettingsPage(page);
  await settings.open();
  await expect(settings.row('anthropic').getByTestId('key-state')).toHaveText('key store unreadable');
  await expect(settings.row('glm').getByTestId('key-state')).toHaveText('key store unreadable');
  const problem = settings.providers.getByTestId('key-store-problem');
  await expect(problem).toHaveCount(1);
  await expect(problem).toContainText(`The API key file ${file} cannot be read: it is not valid JSON`);

  await settings.edit('glm');
  await settings.field('apiKey').fill('sk-new-0123456789');
  await settings.save();
  await expect(settings.editor.getByTestId('error-form')).toContainText(`${file} cannot be read`);
  expect(readFileSync(file, 'utf8')).toBe(DAMAGED);
});
