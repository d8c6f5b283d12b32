import { describe, expect, it } from 'vitest';
import { budgetState, dayOf, projectLimit, runBudgetRefusal } from '../../../src-main/budgets/budget-model';
import { BudgetSettings } from '../../../src-preload/contract/budgets';

describe('budget model', () => {
  it('places a spend against warning and maximum', () => {
    const l = { warnUsd: 5, maxUsd: 10 };
    expect(budgetState(4.99, l)).toBe('ok');
    expect(budgetState(5, l)).toBe('warning');
    expect(budgetState(10, l)).toBe('exceeded');
    expect(budgetState(1e9, { warnUsd: null, maxUsd: null })).toBe('ok');
  });

  it('refuses the call that would pass the run budget, naming the spend', () => {
    expect(runBudgetRefusal(0.5, 0.2, 1)).toBeNull();
    const m = runBudgetRefusal(0.9, 0.2, 1);
    expect(m).toContain('$0.9000 spent');
    expect(m).toContain('agent.max_budget_usd');
    expect(runBudgetRefusal(1, 0, 1)).not.toBeNull();
  });

  it('counts by local day and lets a project override the default', () => {
    const d = dayOf(new Date(2026, 10, 23, 23, 59).getTime());
    expect(d.day).toBe('2026-11-23');
    expect(d.startMs).toBe(new Date(2026, 10, 23).getTime());
    const s = BudgetSettings.parse({ projectDaily: { maxUsd: 3 }, projectOverrides: { 'proj-123456': { warnUsd: 1, maxUsd: 2 } } });
    expect(projectLimit(s, 'proj-123456')).toEqual({ warnUsd: 1, maxUsd: 2 });
    expect(projectLimit(s, 'other-project')).toEqual({ warnUsd: null, maxUsd: 3 });
    expect(BudgetSettings.safeParse({ globalDaily: { warnUsd: 5, maxUsd: 1 } }).success).toBe(false);
    expect(BudgetSettings.safeParse({ globalDaily: { maxUsd: -1 } }).success).toBe(false);
  });
});
