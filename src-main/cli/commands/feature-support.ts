/** What the `feature …` subcommands share: the project of --repo, and typed features errors. */
import { resolve } from 'node:path';
import type { AppServices } from '../../app/services';
import { isFeatureError } from '../../features/errors';
import type { CliContext } from '../command';

/** The main checkout of --repo (default: the current folder) and its project, added when new. */
export async function featureProject(ctx: CliContext, app: AppServices): Promise<{ root: string; projectId: string }> {
  const repo = resolve(typeof ctx.flags.repo === 'string' ? ctx.flags.repo : process.cwd());
  const root = await app.worktrees.repoRoot(repo);
  const known = app.projects.list().find((p) => p.path === root);
  const p = known ?? (await app.projects.add(root));
  return { root, projectId: p.id };
}

/** A features failure leaves as a typed error (`<kind> error: path:line: …`, exit 1). */
export async function typedFeatureErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw isFeatureError(e) ? e.toAppError() : e;
  }
}
