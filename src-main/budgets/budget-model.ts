/**
 * Budget decisions, pure: where a spend stands against a limit, the local calendar day it is
 * counted in, and the messages that name the spend. Used by the daily budgets (per project and
 * global) and by a feature run's own budget (`agent.max_budget_usd`).
 */
import type { BudgetLimit, BudgetSettings } from '../../src-preload/contract/budgets';

export type BudgetState = 'ok' | 'warning' | 'exceeded';

export function budgetState(spentUsd: number, limit: BudgetLimit): BudgetState {
  if (limit.maxUsd !== null && spentUsd >= limit.maxUsd) return 'exceeded';
  if (limit.warnUsd !== null && spentUsd >= limit.warnUsd) return 'warning';
  return 'ok';
}

export function usd(v: number): string {
  return `$${v.toFixed(v < 1 ? 4 : 2)}`;
}

/** The local day a timestamp belongs to (YYYY-MM-DD) and when that day started (ms). */
export function dayOf(ms: number): { day: string; startMs: number } {
  const d = new Date(ms);
  const start = new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const day = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  return { day, startMs: start };
}

export function projectLimit(settings: BudgetSettings, projectId: string): BudgetLimit {
  return settings.projectOverrides[projectId] ?? settings.projectDaily;
}

export function dailyRefusal(scope: 'global' | 'project', spentUsd: number, maxUsd: number, projectName?: string, reservedUsd = 0): string {
  const what = scope === 'global' ? "today's overall budget" : `today's budget of the project ${projectName ?? ''}`.trim();
  const reserved = reservedUsd > 0 ? ` and ${usd(reservedUsd)} reserved by model calls in progress` : '';
  return `Model call refused: ${usd(spentUsd)} spent${reserved}, ${what} is ${usd(maxUsd)}. Raise the maximum (flightdeck budget set, or the budgets settings) or wait until tomorrow to go on.`;
}

export function dailyWarning(scope: 'global' | 'project', spentUsd: number, warnUsd: number, projectName?: string): string {
  const what = scope === 'global' ? 'Overall spend today' : `Spend today on ${projectName ?? 'this project'}`;
  return `${what} reached ${usd(spentUsd)}, past the warning level of ${usd(warnUsd)}.`;
}

/**
 * A run's own budget: the next call is refused when what was spent plus what that call is
 * expected to cost (the dearest call so far, a cautious guess) would go past the maximum.
 */
export function runBudgetRefusal(spentUsd: number, expectedNextUsd: number, maxUsd: number): string | null {
  if (spentUsd + expectedNextUsd <= maxUsd && spentUsd < maxUsd) return null;
  return `The run's budget of ${usd(maxUsd)} (agent.max_budget_usd) would be exceeded: ${usd(spentUsd)} spent so far, and the next model call is expected to cost about ${usd(expectedNextUsd)}. Raise agent.max_budget_usd in .flightdeck/config.yml and run the feature again to continue.`;
}
