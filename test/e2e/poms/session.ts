import { expect, type Locator, type Page } from '@playwright/test';

/** What a transcript block measures in the page: its box, its content, and which block it is. */
export interface BlockSize {
  testId: string | null;
  tool: string | null;
  text: string;
  height: number;
  scrollHeight: number;
}

/** A chat session with an agent and its approval dialog. */
export class SessionPage {
  readonly view: Locator;
  readonly input: Locator;
  readonly transcript: Locator;
  readonly approval: Locator;
  readonly status: Locator;
  readonly header: Locator;
  readonly approveBadge: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('session-view');
    this.input = page.getByTestId('composer-input');
    this.transcript = page.getByTestId('transcript');
    this.approval = page.getByTestId('approval-dialog');
    this.status = page.getByTestId('session-status');
    this.header = page.getByTestId('session-header');
    this.approveBadge = page.getByTestId('approve-badge');
  }

  /**
   * From a project's page: start a new session and wait for its view. `checkout` (the default
   * here, so tests can look at files in the project folder) or `worktree` (the dialog's default).
   */
  async startFromProject(projectName: string, placement: 'checkout' | 'worktree' = 'checkout'): Promise<void> {
    await this.page.getByTestId('sidebar-projects').getByRole('button', { name: projectName }).click();
    await this.newSession(placement);
  }

  /** On a project's page: "New session", where it works (a folder outside git has one choice), Start. */
  async newSession(placement: 'checkout' | 'worktree' = 'checkout'): Promise<void> {
    await this.page.getByTestId('new-session').click();
    const dialog = this.page.getByTestId('new-session-dialog');
    await expect(dialog.getByTestId('placement-worktree').or(dialog.getByTestId('placement-folder'))).toBeVisible();
    if (await dialog.getByTestId('placement-worktree').isVisible()) await dialog.getByTestId(`placement-${placement}`).click();
    await dialog.getByTestId('new-session-start').click();
    await expect(this.view).toBeVisible();
  }

  /** Types and sends an input once the composer accepts one (no turn running), and waits until it was taken. */
  async send(text: string): Promise<void> {
    await expect(this.page.getByTestId('send')).toBeVisible();
    await this.input.fill(text);
    await this.input.press('Enter');
    await expect(this.input).toHaveValue('');
  }

  async approveOnce(): Promise<void> {
    await this.approval.getByTestId('approve-once').click();
    await expect(this.approval).toBeHidden();
  }

  /** "Always": approves and remembers the call's rule for the session. */
  async approveForSession(): Promise<void> {
    await this.approval.getByTestId('approve-session').click();
    await expect(this.approval).toBeHidden();
  }

  /** Opens the session's remembered rules ("Approved for this session" under the title) and returns the panel. */
  async openRules(): Promise<Locator> {
    const panel = this.page.getByTestId('session-rules');
    if (!(await panel.isVisible())) await this.page.getByTestId('session-rules-toggle').click();
    await expect(panel).toBeVisible();
    return panel;
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

  /** The last tool card (optionally of one tool). */
  lastCard(tool?: string): Locator {
    return (tool ? this.transcript.locator(`[data-testid="tool-card"][data-tool="${tool}"]`) : this.transcript.getByTestId('tool-card')).last();
  }

  /** Whether keyboard focus is inside the approval dialog. */
  focusInDialog(): Promise<boolean> {
    return this.page.evaluate<boolean>(`!!document.activeElement?.closest('[data-testid="approval-dialog"]')`);
  }

  /** The data-testid of the focused element. */
  focusedTestId(): Promise<string | null> {
    return this.page.evaluate<string | null>(`document.activeElement?.getAttribute('data-testid') ?? null`);
  }

  /** Every block of the transcript with its rendered and content height (scrolled through, so nothing is lazily skipped). */
  blockSizes(): Promise<BlockSize[]> {
    return this.page.evaluate<BlockSize[]>(`Array.from(document.querySelector('[data-testid="transcript"]').children).map((h) => ({
      testId: h.dataset.testid ?? null,
      tool: h.dataset.tool ?? null,
      text: (h.textContent ?? '').slice(0, 80),
      height: h.getBoundingClientRect().height,
      scrollHeight: h.scrollHeight,
    }))`);
  }
}
