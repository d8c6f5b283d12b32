import { expect, type Locator, type Page } from '@playwright/test';

/** A project's Features panel, the planning chat, the plan-approval screen and the feature board, as a user sees them. */
export class FeaturesPage {
  readonly panel: Locator;
  readonly chat: Locator;
  readonly review: Locator;
  readonly board: Locator;
  readonly cards: Locator;
  readonly phases: Locator;
  readonly comments: Locator;

  constructor(readonly page: Page) {
    this.panel = page.getByTestId('features-panel');
    this.chat = page.getByTestId('plan-chat');
    this.review = page.getByTestId('plan-review');
    this.board = page.getByTestId('feature-board');
    this.cards = page.getByTestId('feature-card');
    this.phases = page.getByTestId('phase-item');
    this.comments = page.getByTestId('plan-comment');
  }

  async openProject(name: string): Promise<void> {
    await this.page.getByTestId('sidebar-projects').getByRole('button', { name }).click();
    await expect(this.panel).toBeVisible();
  }

  /** "Set up features": the Planner analyses, the Coder proposes; waits for the written files. */
  async init(): Promise<void> {
    await this.panel.getByTestId('feature-init').click();
    // What init will write is shown first; nothing is written before the user confirms.
    const preview = this.page.getByTestId('feature-init-preview');
    await expect(preview).toBeVisible({ timeout: 60_000 });
    await expect(preview).toContainText('.flightdeck/config.yml');
    await preview.getByTestId('feature-init-write').click();
    await expect(this.page.getByTestId('feature-init-result')).toBeVisible({ timeout: 60_000 });
  }

  /** Opens "Plan a feature" and types a slug; returns the field's help line (the rule's message on refusal). */
  async startPlan(slug: string): Promise<Locator> {
    const dialog = this.page.getByTestId('new-plan-dialog');
    if (!(await dialog.isVisible())) await this.panel.getByTestId('plan-feature').click();
    await this.page.getByTestId('plan-slug-input').fill(slug);
    await this.page.getByTestId('start-plan').click();
    return this.page.getByTestId('plan-slug-help');
  }

  /** The phase names as the list shows them, in order. */
  phaseNames(): Promise<string[]> {
    return this.page.evaluate<string[]>(`Array.from(document.querySelectorAll('[data-testid="phase-name"]'), (e) => e.value)`);
  }

  /** Selects the first occurrence of `text` inside a document's preview, as a mouse drag would. */
  async selectInPreview(doc: 'design' | 'verification', text: string): Promise<void> {
    // The page's code as a string: this file is compiled for Node, without the DOM's types.
    const found = await this.page.evaluate<boolean>(`(() => {
      const root = document.querySelector('[data-testid="preview-${doc}"]');
      const wanted = ${JSON.stringify(text)};
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const at = n.textContent.indexOf(wanted);
        if (at < 0) continue;
        const range = document.createRange();
        range.setStart(n, at);
        range.setEnd(n, at + wanted.length);
        const sel = document.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
        return true;
      }
      return false;
    })()`);
    expect(found, `"${text}" in the ${doc} preview`).toBe(true);
  }

  /** A card on the board by its feature slug. */
  card(slug: string): Locator {
    return this.page.locator(`[data-testid="feature-card"][data-slug="${slug}"]`);
  }

  column(name: 'planned' | 'in_progress' | 'needs_input' | 'completed' | 'failed' | 'merged'): Locator {
    return this.page.getByTestId(`board-column-${name}`);
  }
}
