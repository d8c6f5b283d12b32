import { expect, type Locator, type Page } from '@playwright/test';

/** Workspace trust as a user meets it: the one-line notice (card, New session dialog, feature page) and the review dialog. */
export class TrustPage {
  readonly dialog: Locator;

  constructor(readonly page: Page) {
    this.dialog = page.getByTestId('trust-dialog');
  }

  /** The notice inside `scope` (a project card, a dialog, a view). */
  line(scope: Locator): Locator {
    return scope.getByTestId('trust-line');
  }

  /** Opens Review and trust from the notice in `scope` and returns the dialog. */
  async review(scope: Locator): Promise<Locator> {
    await this.line(scope).getByTestId('trust-review').click();
    await expect(this.dialog).toBeVisible();
    return this.dialog;
  }

  async trust(): Promise<void> {
    await this.dialog.getByTestId('trust-confirm').click();
    await expect(this.dialog).toBeHidden();
  }
}
