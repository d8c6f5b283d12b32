/**
 * Spend budgets per day: one for everything, one per project (a default for every project and
 * overrides for some). Each has a warning level (a notice once per day) and a maximum (new
 * model calls refused, with the spend named, until the maximum is raised or the day ends). They
 * hold for every model call: feature runs and interactive sessions alike.
 */
import { z } from 'zod';
import { event, request } from './define';
import { ProjectId } from './projects';

const Usd = z.number().nonnegative().max(1_000_000);

/** null = no limit of that kind. */
export const BudgetLimit = z
  .object({ warnUsd: Usd.nullable().default(null), maxUsd: Usd.nullable().default(null) })
  .strict()
  .refine((l) => l.warnUsd === null || l.maxUsd === null || l.warnUsd <= l.maxUsd, { message: 'the warning level must not be above the maximum', path: ['warnUsd'] });
export type BudgetLimit = z.infer<typeof BudgetLimit>;

export const BudgetSettings = z
  .object({
    globalDaily: BudgetLimit.default({ warnUsd: null, maxUsd: null }),
    projectDaily: BudgetLimit.default({ warnUsd: null, maxUsd: null }),
    /** Per project id: replaces projectDaily for that project. */
    projectOverrides: z.record(ProjectId, BudgetLimit).default({}),
  })
  .strict();
export type BudgetSettings = z.infer<typeof BudgetSettings>;

/** An update names only what it changes (no defaults: an absent key keeps its current value). */
export const BudgetSettingsPatch = z
  .object({
    globalDaily: BudgetLimit.optional(),
    projectDaily: BudgetLimit.optional(),
    projectOverrides: z.record(ProjectId, BudgetLimit).optional(),
  })
  .strict();
export type BudgetSettingsPatch = z.infer<typeof BudgetSettingsPatch>;

export const BudgetUse = z.object({
  scope: z.enum(['global', 'project']),
  projectId: ProjectId.nullable(),
  /** The local calendar day the spend is counted for (YYYY-MM-DD). */
  day: z.string(),
  spentUsd: z.number().nonnegative(),
  warnUsd: z.number().nullable(),
  maxUsd: z.number().nullable(),
  state: z.enum(['ok', 'warning', 'exceeded']),
});
export type BudgetUse = z.infer<typeof BudgetUse>;

export const budgetRequests = {
  'budgets.get': request(z.object({}).strict(), BudgetSettings, 'The daily budgets.'),
  'budgets.update': request(BudgetSettingsPatch, BudgetSettings, 'Change the daily budgets (raising a maximum lets refused model calls go ahead again).'),
  'budgets.status': request(z.object({}).strict(), z.object({ uses: z.array(BudgetUse) }), "Today's spend against each budget that is set."),
} as const;

export const budgetEvents = {
  'budgets.changed': event(z.object({ settings: BudgetSettings, uses: z.array(BudgetUse) }), 'The budgets or the state of one of them changed (a warning level or a maximum was reached).'),
} as const;
