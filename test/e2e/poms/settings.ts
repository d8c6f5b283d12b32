import { expect, type Locator, type Page } from '@playwright/test';

/** Settings: appearance and terminals, model providers and their editor, agents, Claude Code. */
export class SettingsPage {
  readonly view: Locator;
  readonly providers: Locator;
  readonly editor: Locator;
  readonly confirm: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('settings-view');
    this.providers = page.getByTestId('providers-panel');
    this.editor = page.getByTestId('profile-editor');
    this.confirm = page.getByTestId('confirm-dialog');
  }

  async open(): Promise<void> {
    await this.page.getByTestId('nav-settings').click();
    await expect(this.view).toBeVisible();
  }

  row(profile: string): Locator {
    return this.providers.locator(`[data-testid="profile-row"][data-profile="${profile}"]`);
  }

  async edit(profile: string): Promise<void> {
    await this.row(profile).getByRole('button', { name: /^Edit / }).click();
    await expect(this.editor).toBeVisible();
  }

  field(id: string): Locator {
    return this.editor.locator(`[id="pf-${id}"]`);
  }

  error(id: string): Locator {
    return this.editor.getByTestId(`error-${id}`);
  }

  async save(): Promise<void> {
    await this.editor.getByTestId('profile-save').click();
  }
}
