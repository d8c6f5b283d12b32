import { expect, type Locator, type Page } from '@playwright/test';

/** The changes view of a session: its files, hunks and the commit form. */
export class ChangesPage {
  readonly button: Locator;
  readonly count: Locator;
  readonly dialog: Locator;
  readonly files: Locator;

  constructor(readonly page: Page) {
    this.button = page.getByTestId('changes-button');
    this.count = page.getByTestId('changes-count');
    this.dialog = page.getByTestId('changes-dialog');
    this.files = this.dialog.getByTestId('changes-file');
  }

  async open(): Promise<void> {
    await this.button.click();
    await expect(this.dialog).toBeVisible();
  }

  file(path: string): Locator {
    return this.dialog.locator(`[data-testid="changes-file"][data-path="${path}"]`);
  }

  hunks(path: string): Locator {
    return this.file(path).getByTestId('changes-hunk');
  }

  async revertHunk(path: string, index: number): Promise<void> {
    await this.hunks(path).nth(index).getByTestId('revert-hunk').click();
  }

  async commit(message: string): Promise<void> {
    await this.dialog.getByTestId('commit-message').fill(message);
    await this.dialog.getByTestId('commit-button').click();
  }
}
