import { resolve } from 'node:path';
import type { BudgetLimit, BudgetUse } from '../../../src-preload/contract';
import { usd } from '../../budgets/budget-model';
import { WorktreeManager } from '../../worktrees/worktree-manager';
import { UsageError, type CliCommand } from '../command';

/** A dollar amount, or `none` to remove that limit; undefined when the flag is absent. */
function amount(v: string | boolean | string[] | undefined, flag: string): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === 'none') return null;
  const n = typeof v === 'string' && /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw new UsageError(`--${flag} takes an amount in dollars (e.g. 5 or 2.50) or "none"`);
  return n;
}

function line(u: BudgetUse, name: string): string {
  const limits = [u.warnUsd !== null ? `warn ${usd(u.warnUsd)}` : null, u.maxUsd !== null ? `max ${usd(u.maxUsd)}` : null].filter(Boolean).join(', ');
  return `${name.padEnd(28)} ${usd(u.spentUsd).padStart(10)}  ${limits}  [${u.state}]`;
}

/**
 * Daily spend budgets (all spend, and per project), which hold for every model call: feature
 * runs and interactive sessions. `budget` shows today's spend against them; `budget set` changes
 * them (with --repo, an override for that project; without, the default of every project).
 */
export const budgetCommand: CliCommand = {
  name: 'budget',
  summary: "Show today's spend against the daily budgets, or set them (overall and per project: a warning level and a maximum).",
  usage: 'budget [show] | budget set [--global-warn USD|none] [--global-max USD|none] [--project-warn USD|none] [--project-max USD|none] [--repo DIR]',
  flags: { 'global-warn': true, 'global-max': true, 'project-warn': true, 'project-max': true, repo: true },
  async run(ctx) {
    const [sub = 'show', ...rest] = ctx.args;
    if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
    if (sub !== 'show' && sub !== 'set') throw new UsageError(`unknown budget subcommand "${sub}"`);
    const app = await ctx.openApp();
    if (sub === 'set') {
      const gw = amount(ctx.flags['global-warn'], 'global-warn');
      const gm = amount(ctx.flags['global-max'], 'global-max');
      const pw = amount(ctx.flags['project-warn'], 'project-warn');
      const pm = amount(ctx.flags['project-max'], 'project-max');
      if ([gw, gm, pw, pm].every((v) => v === undefined)) throw new UsageError('budget set needs at least one of --global-warn, --global-max, --project-warn, --project-max');
      const cur = app.budgets.get();
      const merge = (l: BudgetLimit, warn: number | null | undefined, max: number | null | undefined): BudgetLimit => ({ warnUsd: warn === undefined ? l.warnUsd : warn, maxUsd: max === undefined ? l.maxUsd : max });
      const patch: Parameters<typeof app.budgets.update>[0] = {};
      if (gw !== undefined || gm !== undefined) patch.globalDaily = merge(cur.globalDaily, gw, gm);
      if (pw !== undefined || pm !== undefined) {
        if (typeof ctx.flags.repo === 'string') {
          const wm = new WorktreeManager();
          const root = await wm.repoRoot(resolve(ctx.flags.repo));
          const p = app.projects.list().find((x) => x.path === root) ?? (await app.projects.add(root));
          patch.projectOverrides = { ...cur.projectOverrides, [p.id]: merge(cur.projectOverrides[p.id] ?? cur.projectDaily, pw, pm) };
        } else patch.projectDaily = merge(cur.projectDaily, pw, pm);
      }
      app.budgets.update(patch);
    }
    const s = app.budgets.get();
    const uses = app.budgets.status();
    if (ctx.json) {
      ctx.out(JSON.stringify({ settings: s, uses }));
      return 0;
    }
    const names = new Map(app.projects.list().map((p) => [p.id, p.name]));
    if (uses.length === 0) ctx.out('No daily budget is set (flightdeck budget set --global-max 20 sets one).');
    for (const u of uses) ctx.out(line(u, u.scope === 'global' ? 'all spend today' : `project ${names.get(u.projectId ?? '') ?? u.projectId}`));
    return 0;
  },
};
