import { expect, type Locator, type Page } from '@playwright/test';

/** The board and the add-project flow, as a user sees them. */
export class BoardPage {
  readonly cards: Locator;
  readonly emptyState: Locator;
  readonly addButton: Locator;
  readonly dialog: Locator;
  readonly pathInput: Locator;
  readonly pathHelp: Locator;

  constructor(readonly page: Page) {
    this.cards = page.getByTestId('project-card');
    this.emptyState = page.getByTestId('board-empty');
    this.addButton = page.getByTestId('add-project');
    this.dialog = page.getByTestId('add-project-dialog');
    this.pathInput = page.getByTestId('project-path-input');
    this.pathHelp = page.getByTestId('path-help');
  }

  async open(url: string): Promise<void> {
    await this.page.goto(url);
    await expect(this.page.getByTestId('statusbar')).toContainText('Connected');
  }

  card(name: string): Locator {
    return this.cards.filter({ has: this.page.getByRole('button', { name, exact: true }) });
  }

  async startAdding(path: string): Promise<void> {
    await this.addButton.click();
    await expect(this.dialog).toBeVisible();
    await this.pathInput.fill(path);
  }

  async submit(): Promise<void> {
    await this.dialog.getByRole('button', { name: 'Add project' }).click();
  }

  /** Adds a repository as a person does and waits for its card; the project's name is the folder's. */
  async addProject(path: string): Promise<string> {
    const name = path.split('/').pop()!;
    await this.startAdding(path);
    await expect(this.pathHelp).toContainText('Looks good');
    await this.submit();
    await expect(this.card(name)).toBeVisible();
    return name;
  }

  async remove(name: string): Promise<void> {
    await this.card(name).getByRole('button', { name: `Remove ${name}` }).click();
    const confirm = this.page.getByTestId('confirm-remove');
    await expect(confirm).toContainText('not touched');
    await confirm.getByRole('button', { name: 'Remove project' }).click();
  }
}
