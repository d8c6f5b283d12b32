import { expect, type Locator, type Page } from '@playwright/test';

/** A chat session with an agent and its approval dialog. */
export class SessionPage {
  readonly view: Locator;
  readonly input: Locator;
  readonly transcript: Locator;
  readonly approval: Locator;
  readonly status: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('session-view');
    this.input = page.getByTestId('composer-input');
    this.transcript = page.getByTestId('transcript');
    this.approval = page.getByTestId('approval-dialog');
    this.status = page.getByTestId('session-status');
  }

  /** From a project's page: start a new session and wait for its view. */
  async startFromProject(projectName: string): Promise<void> {
    await this.page.getByTestId('sidebar-projects').getByRole('button', { name: projectName }).click();
    await this.page.getByTestId('new-session').click();
    await expect(this.view).toBeVisible();
  }

  async send(text: string): Promise<void> {
    await this.input.fill(text);
    await this.input.press('Enter');
  }

  async approveOnce(): Promise<void> {
    await this.approval.getByTestId('approve-once').click();
    await expect(this.approval).toBeHidden();
  }

  async deny(reason: string): Promise<void> {
    await this.approval.getByTestId('deny').click();
    await this.approval.getByTestId('deny-reason').fill(reason);
    await this.approval.getByTestId('confirm-deny').click();
    await expect(this.approval).toBeHidden();
  }

  async waitIdle(): Promise<void> {
    await expect(this.status).toHaveText('Idle', { timeout: 30_000 });
  }
}
