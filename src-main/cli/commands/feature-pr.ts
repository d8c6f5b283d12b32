/**
 * `feature pr SLUG [--json] [--follow | --stop] [--merge squash|merge|rebase [--yes]]`: where the
 * pull request loop of a feature delivered with gh stands (checks, reviews, fix rounds and what
 * each cost, its events), following it again or stopping, and merging it with gh. `feature merge`
 * merges through gh too when the feature's PR is followed (see featureMerge).
 */
import { createInterface } from 'node:readline/promises';
import type { AppServices } from '../../app/services';
import type { MergeMethod } from '../../features/pr/pr-forge';
import type { PrStatusView } from '../../features/pr/pr-service';
import { validateSlug } from '../../worktrees/worktree-model';
import { UsageError, type CliContext } from '../command';
import { featureProject, typedFeatureErrors } from './feature-support';

export const PR_FLAGS = { follow: false, stop: false, merge: true } as const;
export const PR_USAGE = 'feature pr SLUG [--repo DIR] [--json] [--follow | --stop] [--merge squash|merge|rebase [--yes]]';

const METHODS: readonly MergeMethod[] = ['squash', 'merge', 'rebase'];

const STATUS_TEXT: Record<string, string> = {
  watching: 'watching (checks and reviews)',
  fixing: 'fixing (a fix round runs)',
  needs_review: 'needs your review',
  ready: 'ready to merge',
  needs_input: 'needs input',
  merged: 'merged',
  closed: 'closed',
  stopped: 'not followed (stopped)',
};

const usd = (n: number | null) => (n === null ? '—' : `$${n.toFixed(4)}`);

function print(ctx: CliContext, slug: string, s: PrStatusView): void {
  if (!s.follow) {
    ctx.out(`${slug}: no pull request is followed.`);
    if (!s.gh.ready && s.gh.message) ctx.out(s.gh.message);
    else ctx.out(`Deliver it with gh (feature run ${slug}), or follow a PR it already has: feature pr ${slug} --follow`);
    return;
  }
  const f = s.follow;
  ctx.out(`Pull request #${f.number}: ${f.url}`);
  ctx.out(`Status:  ${STATUS_TEXT[f.status] ?? f.status}${f.reason ? ` — ${f.reason}` : ''}`);
  if (f.checks.length > 0) ctx.out(`Checks:  ${f.checks.map((c) => `${c.name} ${c.bucket}`).join(', ')}`);
  ctx.out(`Rounds:  ${s.rounds.length} of at most ${s.maxFixRounds}${s.autoMerge !== 'off' ? ` · auto-merge: ${s.autoMerge}` : ''}`);
  for (const r of s.rounds) ctx.out(`  ${String(r.round).padStart(2)}. ${r.status.padEnd(7)} ${usd(r.costUsd).padStart(9)}  ${r.summary}`);
  if (!s.gh.ready && s.gh.message) ctx.err(`note: ${s.gh.message}`);
  for (const e of s.events.slice(-10)) ctx.out(`  ${new Date(e.ts).toISOString().slice(0, 19).replace('T', ' ')}  ${e.message}${e.costUsd !== null ? ` (${usd(e.costUsd)})` : ''}`);
}

async function confirmedMerge(ctx: CliContext, question: string): Promise<boolean> {
  if (ctx.flags.yes === true) return true;
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

/** Merges the followed PR with gh; exit 1 when not confirmed. */
async function mergePr(ctx: CliContext, app: AppServices, root: string, slug: string, method: MergeMethod): Promise<number> {
  const f = app.prFollow.repo.get(root, slug);
  if (!(await confirmedMerge(ctx, `Merge pull request #${f?.number ?? '?'} of ${slug} on GitHub (${method})?`))) {
    ctx.out(`Not merged. Run again with --yes to merge pull request #${f?.number ?? '?'} (${method}).`);
    return 1;
  }
  const r = await typedFeatureErrors(() => app.prFollow.merge(root, slug, method));
  ctx.out(ctx.json ? JSON.stringify(r) : r.message);
  return r.merged ? 0 : 1;
}

export async function featurePr(ctx: CliContext, args: string[]): Promise<number> {
  const [slug, ...rest] = args;
  if (!slug) throw new UsageError('feature pr needs the SLUG of a feature');
  if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
  const follow = ctx.flags.follow === true;
  const stop = ctx.flags.stop === true;
  const merge = typeof ctx.flags.merge === 'string' ? ctx.flags.merge : undefined;
  if ([follow, stop, merge !== undefined].filter(Boolean).length > 1) throw new UsageError('feature pr takes one of --follow, --stop and --merge');
  if (merge !== undefined && !(METHODS as readonly string[]).includes(merge)) throw new UsageError(`--merge is squash, merge or rebase, not "${merge}"`);
  validateSlug(slug);
  const app = await ctx.openApp();
  const { root } = await featureProject(ctx, app);
  if (merge !== undefined) return mergePr(ctx, app, root, slug, merge as MergeMethod);
  if (follow) await typedFeatureErrors(() => app.prFollow.follow(root, slug));
  if (stop) app.prFollow.stop(root, slug);
  const s = await typedFeatureErrors(() => app.prFollow.status(root, slug));
  if (ctx.json) ctx.out(JSON.stringify(s));
  else {
    print(ctx, slug, s);
    if (follow) ctx.out('Followed while Flightdeck runs (the app, or flightdeck serve).');
  }
  return 0;
}

/**
 * `feature merge SLUG` of a feature whose PR is followed and open: merged on GitHub with gh
 * (`--squash`, else a merge commit) rather than locally. null when the local merge applies.
 */
export async function mergeFollowedPr(ctx: CliContext, app: AppServices, root: string, slug: string): Promise<number | null> {
  const f = app.prFollow.repo.get(root, slug);
  if (!f || f.status === 'merged' || f.status === 'closed' || f.status === 'stopped') return null;
  return mergePr(ctx, app, root, slug, ctx.flags.squash === true ? 'squash' : 'merge');
}
