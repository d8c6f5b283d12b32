import { expect, type Locator, type Page } from '@playwright/test';

/** The Claude Code parts of the UI: the settings panel and a session's executor switch. */
export class ClaudeCodePage {
  readonly settingsPanel: Locator;
  readonly detection: Locator;
  readonly detectButton: Locator;
  readonly executorSwitch: Locator;
  readonly injectToggle: Locator;

  constructor(readonly page: Page) {
    this.settingsPanel = page.getByTestId('claude-code-settings');
    this.detection = page.getByTestId('claude-detection');
    this.detectButton = page.getByTestId('claude-detect');
    this.executorSwitch = page.getByTestId('executor-switcher');
    this.injectToggle = page.getByTestId('inject-toggle');
  }

  async openSettings(): Promise<void> {
    await this.page.getByRole('button', { name: 'Settings' }).click();
    await expect(this.settingsPanel).toBeVisible();
  }

  async useExecutor(label: 'Built-in' | 'Claude Code'): Promise<void> {
    const button = this.executorSwitch.getByRole('radio', { name: label });
    await button.click();
    await expect(button).toHaveAttribute('aria-checked', 'true');
  }
}
