import type { AppServices } from '../../src-main/app/services';

/**
 * Trusts a repository the way the user does after reviewing it (Review and trust, or
 * `projects trust PATH --yes`): for tests whose fixture repository's own setup, checks,
 * templates or placement must be used. Workspace trust itself is tested in test/integration/trust.
 */
export async function trustRepository(app: AppServices, path: string): Promise<void> {
  const status = await app.trust.status(path);
  await app.trust.trust(path, status.fingerprint);
}
