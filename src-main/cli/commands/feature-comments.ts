/**
 * `feature comment`, `feature comments` and `feature fix`: the user's review of a feature's diff
 * from the command line. A comment is anchored to lines of a file as committed on the feature's
 * branch; `feature fix` sends the open ones to the agent as one fix round, after which review
 * and verify run again (a feature run that starts at review).
 */
import { FeatureError } from '../../features/errors';
import { reopenFeatureForFix } from '../../features/run/fix-round';
import { validateSlug } from '../../worktrees/worktree-model';
import { UsageError, type CliContext } from '../command';
import { featureRun } from './feature-run';
import { featureProject, typedFeatureErrors } from './feature-support';

export const COMMENT_FLAGS = { file: true, line: true } as const;
export const COMMENT_USAGE = 'feature comment SLUG --file F --line N[-M] "TEXT" [--repo DIR] | feature comments SLUG [--repo DIR] [--json] | feature fix SLUG [--repo DIR] (and feature run\'s options)';

/** `12` or `12-18`. */
export function parseLineRange(v: string): { lineStart: number; lineEnd: number } | null {
  const m = /^(\d{1,9})(?:-(\d{1,9}))?$/.exec(v.trim());
  if (!m) return null;
  const lineStart = Number(m[1]);
  const lineEnd = m[2] === undefined ? lineStart : Number(m[2]);
  return lineStart >= 1 && lineEnd >= lineStart ? { lineStart, lineEnd } : null;
}

export async function featureComment(ctx: CliContext, args: string[]): Promise<number> {
  const [slug, ...words] = args;
  if (!slug) throw new UsageError('feature comment needs the SLUG of the feature');
  const file = typeof ctx.flags.file === 'string' ? ctx.flags.file : undefined;
  const line = typeof ctx.flags.line === 'string' ? parseLineRange(ctx.flags.line) : null;
  if (!file) throw new UsageError('feature comment needs --file F (a path in the feature\'s worktree)');
  if (!line) throw new UsageError('feature comment needs --line N or --line N-M (lines of the file as committed on the feature\'s branch)');
  const body = words.join(' ').trim();
  if (body === '') throw new UsageError('feature comment needs the text of the comment');
  validateSlug(slug);
  return typedFeatureErrors(async () => {
    const app = await ctx.openApp();
    const { root } = await featureProject(ctx, app);
    const c = await app.reviewComments.add({ repoRoot: root, slug, file, ...line, body });
    if (ctx.json) ctx.out(JSON.stringify(c));
    else ctx.out(`Comment ${c.id} on ${c.file}:${c.lineStart === c.lineEnd ? c.lineStart : `${c.lineStart}-${c.lineEnd}`} at ${c.revision.slice(0, 8)}. Send the open comments with: feature fix ${slug}`);
    return 0;
  });
}

export async function featureComments(ctx: CliContext, args: string[]): Promise<number> {
  const [slug, ...rest] = args;
  if (!slug) throw new UsageError('feature comments needs the SLUG of the feature');
  if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
  validateSlug(slug);
  return typedFeatureErrors(async () => {
    const app = await ctx.openApp();
    const { root } = await featureProject(ctx, app);
    const all = app.reviewComments.list(root, slug);
    if (ctx.json) ctx.out(JSON.stringify(all));
    else if (all.length === 0) ctx.out(`No review comments on ${slug}.`);
    else for (const c of all) ctx.out(`${c.status.padEnd(9)} ${c.file}:${c.lineStart === c.lineEnd ? c.lineStart : `${c.lineStart}-${c.lineEnd}`}  ${c.body.replace(/\s+/g, ' ')}  (${c.id})`);
    return 0;
  });
}

/** Sends the open comments: review and verify open again, and a run starts there with the fix round. */
export async function featureFix(ctx: CliContext, args: string[]): Promise<number> {
  const [slug] = args;
  if (!slug) throw new UsageError('feature fix needs the SLUG of the feature');
  validateSlug(slug);
  const ready = await typedFeatureErrors(async () => {
    const app = await ctx.openApp();
    const { root } = await featureProject(ctx, app);
    const open = app.reviewComments.list(root, slug, 'open');
    if (open.length === 0) throw new FeatureError('state', `there are no open review comments on ${slug} to send (add one with: feature comment ${slug} --file F --line N "…")`);
    await reopenFeatureForFix(root, slug, new Date());
    if (!ctx.json) ctx.out(`Sending ${open.length === 1 ? '1 comment' : `${open.length} comments`} to the agent; review and verify run again after the fix.`);
    return 0;
  });
  if (ready !== 0) return ready;
  return featureRun(ctx, args);
}
