import { expect, type Locator, type Page } from '@playwright/test';

/** The session header's worktree row and its dialogs (commit, merge, discard). */
export class SessionWorktreePage {
  readonly bar: Locator;
  readonly branch: Locator;
  readonly counts: Locator;

  constructor(readonly page: Page) {
    this.bar = page.getByTestId('session-worktree');
    this.branch = page.getByTestId('session-branch');
    this.counts = page.getByTestId('worktree-counts');
  }

  async commit(message: string): Promise<void> {
    await this.bar.getByTestId('worktree-commit').click();
    const dialog = this.page.getByTestId('commit-dialog');
    await dialog.getByTestId('commit-message').fill(message);
    await dialog.getByTestId('commit-confirm').click();
    await expect(dialog).toBeHidden();
  }

  /** Opens the discard confirmation and returns it (confirm or cancel it yourself). */
  async askDiscard(): Promise<Locator> {
    await this.bar.getByTestId('worktree-discard').click();
    const confirm = this.page.getByTestId('confirm-dialog');
    await expect(confirm).toBeVisible();
    return confirm;
  }
}
