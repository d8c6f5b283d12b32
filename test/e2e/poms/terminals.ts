import { expect, type Locator, type Page } from '@playwright/test';

/** The Terminals view as a user sees it: tabs, panes with a header and an xterm each. */
export class TerminalsPage {
  readonly view: Locator;
  readonly panes: Locator;
  readonly tabs: Locator;
  readonly navItem: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('terminals-view');
    this.panes = page.getByTestId('terminal-pane');
    this.tabs = page.getByTestId('terminal-tab');
    this.navItem = page.getByTestId('nav-terminals');
  }

  /** Settings → Terminal rendering → Compatible: text is drawn in the page, where a test can read it. */
  async useCompatibleRendering(): Promise<void> {
    await this.page.getByRole('button', { name: 'Settings' }).click();
    const group = this.page.getByRole('radiogroup', { name: 'Terminal rendering' });
    await group.getByRole('radio', { name: 'Compatible' }).click();
    await expect(group.getByRole('radio', { name: 'Compatible' })).toHaveAttribute('aria-checked', 'true');
    await this.page.getByRole('button', { name: 'Board' }).click();
  }

  async openFromCard(projectName: string): Promise<void> {
    await this.page.getByRole('button', { name: `Open a terminal in ${projectName}` }).first().click();
    await expect(this.view).toBeVisible();
  }

  pane(index: number): Locator {
    return this.panes.nth(index);
  }

  /** The text on a pane's screen (the DOM renderer's rows, or xterm's accessibility tree). */
  screen(pane: Locator): Locator {
    return pane.locator('.xterm-rows');
  }

  /** Types a line once the shell has printed its prompt (typing earlier would echo twice). */
  async type(pane: Locator, line: string): Promise<void> {
    await expect(this.screen(pane)).toContainText(/\S/);
    await pane.locator('.xterm-screen').click();
    await this.page.keyboard.type(line);
    await this.page.keyboard.press('Enter');
  }

  /** Double-clicks a word on the screen, which xterm selects. */
  async selectWord(pane: Locator, word: string): Promise<void> {
    const at = await this.screen(pane).evaluate((rows, w) => {
      const doc = rows.ownerDocument;
      const SHOW_TEXT = 4;
      const walker = doc.createTreeWalker(rows, SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const i = (n.textContent ?? '').indexOf(w);
        if (i < 0) continue;
        const range = doc.createRange();
        range.setStart(n, i);
        range.setEnd(n, i + w.length);
        const r = range.getBoundingClientRect();
        return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
      }
      return null;
    }, word);
    if (!at) throw new Error(`"${word}" is not on screen`);
    await this.page.mouse.dblclick(at.x, at.y);
  }

  /** What the page can read from the system clipboard. */
  clipboardText(): Promise<string> {
    return this.page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText());
  }

  async setLayout(label: 'One pane' | 'Two side by side' | 'Grid of four'): Promise<void> {
    await this.view.getByRole('radio', { name: label }).click();
  }

  async newShellIn(projectName: string): Promise<void> {
    await this.view.getByTestId('new-shell').first().click();
    await this.page.getByRole('menuitem', { name: projectName }).click();
  }
}
