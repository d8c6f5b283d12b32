import { expect, type Locator, type Page } from '@playwright/test';

/** Settings → MCP servers: the list, its rows (status, last error, Test, Enabled, Remove) and the add form. */
export class McpPanel {
  readonly panel: Locator;
  readonly form: Locator;

  constructor(readonly page: Page) {
    this.panel = page.getByTestId('mcp-panel');
    this.form = page.getByTestId('mcp-add-form');
  }

  async open(): Promise<void> {
    await this.page.getByTestId('nav-settings').click();
    await this.panel.scrollIntoViewIfNeeded();
    await expect(this.panel).toBeVisible();
  }

  row(name: string): Locator {
    return this.panel.locator(`[data-testid="mcp-row"][data-server="${name}"]`);
  }

  async addCommand(name: string, commandLine: string, env = ''): Promise<void> {
    await this.form.getByLabel('Server name').fill(name);
    await this.form.getByRole('radio', { name: 'Command' }).click();
    await this.form.getByLabel('Command').fill(commandLine);
    await this.form.getByLabel(/^Environment/).fill(env);
    await this.form.getByTestId('mcp-add').click();
  }

  async addUrl(name: string, url: string, headers = ''): Promise<void> {
    await this.form.getByLabel('Server name').fill(name);
    await this.form.getByRole('radio', { name: 'URL' }).click();
    await this.form.getByLabel('Server URL').fill(url);
    await this.form.getByLabel(/^Headers/).fill(headers);
    await this.form.getByTestId('mcp-add').click();
  }
}
