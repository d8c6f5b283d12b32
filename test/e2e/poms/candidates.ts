import { expect, type Locator, type Page } from '@playwright/test';

/** Best-of-N as a user meets it: the Start dialog's candidates, the feature page's comparison, the board card's chips. */
export class CandidatesPage {
  readonly dialog: Locator;
  readonly panel: Locator;

  constructor(readonly page: Page) {
    this.dialog = page.getByTestId('run-dialog');
    this.panel = page.getByTestId('candidates-panel');
  }

  /** In the open Start dialog: N candidates, each row's model (blank: as approved); returns the budget preview line. */
  async choose(n: number, models: Array<string | null> = []): Promise<Locator> {
    await this.dialog.getByTestId('candidates-count').selectOption(String(n));
    for (const [i, m] of models.entries()) if (m) await this.dialog.getByLabel(`c${i + 1} model`).fill(m);
    return this.dialog.getByTestId('candidates-preview');
  }

  async start(n: number): Promise<void> {
    await expect(this.dialog.getByTestId('run-dialog-start')).toHaveText(`Start ${n} candidates`);
    await this.dialog.getByTestId('run-dialog-start').click();
    await expect(this.dialog).toBeHidden();
  }

  row(n: number): Locator {
    return this.panel.getByTestId(`candidate-c${n}`);
  }

  async sideBySide(a: number, b: number): Promise<Locator> {
    await this.panel.getByTestId('candidates-pair-a').selectOption(String(a));
    await this.panel.getByTestId('candidates-pair-b').selectOption(String(b));
    await this.panel.getByTestId('candidates-side-by-side').click();
    const dialog = this.page.getByTestId('candidate-diff-dialog');
    await expect(dialog).toBeVisible();
    return dialog;
  }

  async pick(n: number): Promise<void> {
    await this.row(n).getByTestId(`candidate-pick-c${n}`).click();
    await this.page.getByRole('button', { name: `Pick c${n}`, exact: true }).click();
  }
}
