import type { Page } from '@playwright/test';

/**
 * Dismisses the open toasts before a screenshot, so they hide nothing. One at a time from the
 * live list: a toast may close on its own meanwhile, and a stale handle would wait out the test.
 */
export async function dismissToasts(page: Page): Promise<void> {
  const dismiss = page.locator('.toasts').getByRole('button', { name: 'Dismiss' });
  for (let i = 0; i < 10 && (await dismiss.count()) > 0; i++) await dismiss.first().click({ timeout: 2_000 }).catch(() => undefined);
}
