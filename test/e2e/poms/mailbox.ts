import { expect, type Locator, type Page } from '@playwright/test';

/** The mailbox view: tabs, the new-task form, the report and ADR browsers. */
export class MailboxPage {
  readonly view: Locator;
  readonly reportRows: Locator;
  readonly reportDetail: Locator;
  readonly adrRows: Locator;
  readonly adrDetail: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('mailbox-view');
    this.reportRows = page.getByTestId('report-row');
    this.reportDetail = page.getByTestId('report-detail');
    this.adrRows = page.getByTestId('adr-row');
    this.adrDetail = page.getByTestId('adr-detail');
  }

  async open(): Promise<void> {
    await this.page.getByTestId('nav-mailbox').click();
    await expect(this.view).toBeVisible();
  }

  async chooseProject(name: string): Promise<void> {
    await this.page.getByTestId('mailbox-project').selectOption({ label: name });
  }

  async tab(id: 'reports' | 'adrs' | 'mission' | 'context' | 'task'): Promise<void> {
    await this.page.getByTestId(`mailbox-tab-${id}`).click();
  }

  async createTask(text: string): Promise<void> {
    await this.tab('task');
    await this.page.getByTestId('task-text').fill(text);
    await this.page.getByTestId('task-submit').click();
  }
}
