import { expect, type Locator, type Page } from '@playwright/test';

/** The Autopilot view as a user sees it: the runs, the new-run form, one run's detail. */
export class AutopilotPage {
  readonly runs: Locator;
  readonly detail: Locator;
  readonly status: Locator;

  constructor(readonly page: Page) {
    this.runs = page.getByTestId('ap-run');
    this.detail = page.getByTestId('ap-detail');
    this.status = this.detail.getByTestId('ap-status');
  }

  async open(): Promise<void> {
    await this.page.getByTestId('nav-autopilot').click();
    await expect(this.page.getByTestId('autopilot-view')).toBeVisible();
  }

  /** Fills the new-run form with the keyboard and starts the run; the new run opens. */
  /** `project` is the repository option's label: "<name> — <path>". */
  async start(o: { project: string; goal: string; testCmd: string; maxFix?: number; unsandboxed?: boolean; timeoutMin?: number }): Promise<void> {
    await this.page.getByTestId('ap-new').click();
    const form = this.page.getByTestId('ap-new-run');
    await expect(form).toBeVisible();
    await form.getByTestId('ap-project').selectOption({ label: o.project });
    await form.getByTestId('ap-goal').fill(o.goal);
    await form.getByTestId('ap-test-cmd').fill(o.testCmd);
    if (o.maxFix !== undefined) await form.getByTestId('ap-max-fix').fill(String(o.maxFix));
    if (o.timeoutMin !== undefined) await form.getByTestId('ap-timeout').fill(String(o.timeoutMin));
    if (o.unsandboxed) {
      await form.getByTestId('ap-unsandboxed').check();
      await expect(form.getByTestId('ap-unsandboxed-warning')).toBeVisible();
    }
    await form.getByTestId('ap-start').click();
    await expect(form).toBeHidden();
    await expect(this.detail.getByTestId('ap-goal-title')).toHaveText(o.goal);
  }

  phase(): Locator {
    return this.detail.locator('[data-testid="ap-fsm"] [aria-current="step"]');
  }

  async showTimeline(): Promise<void> {
    await this.detail.getByTestId('ap-tab-timeline').click();
    await expect(this.detail.getByTestId('ap-timeline')).toBeVisible();
  }

  async showPlan(): Promise<void> {
    await this.detail.getByTestId('ap-tab-plan').click();
    await expect(this.detail.getByTestId('ap-plan')).toBeVisible();
  }
}
