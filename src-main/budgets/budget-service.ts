/**
 * Daily budgets, consulted before every model call (the agent engine's call guard, the Claude
 * Code executor's usage stream): today's spend of the session's project and of everything,
 * read from the cost of every model call (`agent_costs`), against the limits in the settings.
 * Past a warning level the user gets one notice per day and budget; past a maximum the call is
 * refused with the spend named, until the maximum is raised or the day ends.
 *
 * A call's cost is known only once it has ended, so calls that start together all saw the same
 * spend: six parallel calls went past the maximum. Each allowed call therefore reserves its
 * estimated cost (the dearest call of its session today, else the dearest call today), and the
 * check counts what calls in progress have reserved as spent. A reservation is settled when the
 * call's cost is recorded, replaced when its session asks again (its calls are sequential), and
 * dropped after {@link RESERVATION_TTL_MS} (a call whose end is never seen).
 */
import { AppError } from '../../src-preload/contract';
import { BudgetSettings, type BudgetLimit, type BudgetUse } from '../../src-preload/contract/budgets';
import type { EventHub } from '../bridge/event-hub';
import type { Logger } from '../platform/logger';
import type { ProjectService } from '../projects/project-service';
import type { SettingsService } from '../settings/settings-service';
import type { Database } from '../store/db';
import { budgetState, dailyRefusal, dailyWarning, dayOf, projectLimit } from './budget-model';

const KEY = 'budgets.settings';
const NO_LIMIT: BudgetLimit = { warnUsd: null, maxUsd: null };
/**
 * How long an allowed call's reservation counts without its cost being recorded: a model call,
 * retries included, ends well within it; one whose end is never seen (a failed call, a killed
 * CLI) must not hold the day's budget.
 */
const RESERVATION_TTL_MS = 10 * 60_000;

interface Reservation {
  usd: number;
  projectId: string | null;
  at: number;
  /** The session's recorded calls when it was made: one more means the call's cost is in. */
  calls: number;
}

export class BudgetService {
  /** "<day>|<scope>|<project>" of the warnings already given (one notice per day and budget). */
  private readonly warned = new Set<string>();
  /** Per session: the estimated cost of its call in progress (see the module comment). */
  private readonly reservations = new Map<string, Reservation>();

  constructor(
    private readonly o: {
      db: Database;
      hub: EventHub;
      settings: SettingsService;
      projects: ProjectService;
      logger: Logger;
      now?: () => number;
    },
  ) {}

  private now(): number {
    return this.o.now ? this.o.now() : Date.now();
  }

  get(): BudgetSettings {
    const stored = this.o.settings.getInternal<unknown>(KEY);
    const parsed = BudgetSettings.safeParse(stored ?? {});
    // A stored value this build cannot read (hand-edited, older) falls back to no budgets rather than failing every call.
    return parsed.success ? parsed.data : BudgetSettings.parse({});
  }

  update(patch: Partial<BudgetSettings>): BudgetSettings {
    const merged = BudgetSettings.safeParse({ ...this.get(), ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) });
    if (!merged.success) throw new AppError('invalid_input', merged.error.issues[0]?.message ?? 'invalid budgets');
    this.o.settings.setInternal(KEY, merged.data);
    this.publish();
    return merged.data;
  }

  private projectOf(sessionId: string): { id: string; name: string; path: string } | null {
    const row = this.o.db.prepare('SELECT project_id AS projectId, root FROM agent_sessions WHERE id = ?').get(sessionId) as { projectId: string | null; root: string } | undefined;
    if (!row) return null;
    const projects = this.o.projects.list();
    const byId = row.projectId ? projects.find((p) => p.id === row.projectId) : undefined;
    // A feature's worktree lies inside its project (.trees/<slug>): it spends the project's budget.
    const p = byId ?? projects.find((q) => row.root === q.path || row.root.startsWith(`${q.path}/`));
    return p ? { id: p.id, name: p.name, path: p.path } : null;
  }

  /** Today's spend of everything, or of one project (its sessions, worktree sessions included). */
  spentToday(projectId?: string): number {
    const { startMs } = dayOf(this.now());
    if (!projectId) {
      return (this.o.db.prepare('SELECT COALESCE(SUM(usd), 0) AS usd FROM agent_costs WHERE created_at >= ?').get(startMs) as { usd: number }).usd;
    }
    const p = this.o.projects.get(projectId);
    const row = this.o.db
      .prepare(
        `SELECT COALESCE(SUM(c.usd), 0) AS usd FROM agent_costs c JOIN agent_sessions s ON s.id = c.session_id
         WHERE c.created_at >= ? AND (s.project_id = ? OR s.root = ? OR substr(s.root, 1, ?) = ?)`,
      )
      .get(startMs, projectId, p.path, p.path.length + 1, `${p.path}/`) as { usd: number };
    return row.usd;
  }

  status(): BudgetUse[] {
    const s = this.get();
    const { day } = dayOf(this.now());
    const uses: BudgetUse[] = [];
    if (s.globalDaily.warnUsd !== null || s.globalDaily.maxUsd !== null) {
      const spent = this.spentToday();
      uses.push({ scope: 'global', projectId: null, day, spentUsd: spent, ...s.globalDaily, state: budgetState(spent, s.globalDaily) });
    }
    for (const p of this.o.projects.list()) {
      const limit = projectLimit(s, p.id);
      if (limit.warnUsd === null && limit.maxUsd === null) continue;
      const spent = this.spentToday(p.id);
      uses.push({ scope: 'project', projectId: p.id, day, spentUsd: spent, ...limit, state: budgetState(spent, limit) });
    }
    return uses;
  }

  /**
   * Before a model call of `sessionId`: the refusal message when a daily maximum is reached,
   * else null (a warning level reached is told once, and the call goes ahead).
   */
  beforeModelCall(sessionId: string): string | null {
    // The session asks again: its previous call has ended (settled or failed).
    this.reservations.delete(sessionId);
    const s = this.get();
    const project = this.projectOf(sessionId);
    const pLimit = project ? projectLimit(s, project.id) : NO_LIMIT;
    if (s.globalDaily.maxUsd === null && s.globalDaily.warnUsd === null && pLimit.warnUsd === null && pLimit.maxUsd === null) return null;
    const { day } = dayOf(this.now());
    this.settleReservations();
    const checks: Array<{ scope: 'global' | 'project'; limit: BudgetLimit; spent: () => number; reserved: () => number }> = [
      { scope: 'global', limit: s.globalDaily, spent: () => this.spentToday(), reserved: () => this.reservedUsd(null) },
      ...(project ? [{ scope: 'project' as const, limit: pLimit, spent: () => this.spentToday(project.id), reserved: () => this.reservedUsd(project.id) }] : []),
    ];
    for (const c of checks) {
      if (c.limit.warnUsd === null && c.limit.maxUsd === null) continue;
      const spent = c.spent();
      const reserved = c.reserved();
      if (budgetState(spent + reserved, c.limit) === 'exceeded') {
        const refusal = dailyRefusal(c.scope, spent, c.limit.maxUsd!, project?.name, reserved);
        // Refused only because of calls in progress: not yet "reached", so no notice of it.
        if (budgetState(spent, c.limit) === 'exceeded') this.notify(`${day}|max|${c.scope}|${project?.id ?? ''}`, 'error', 'Budget reached', refusal);
        return refusal;
      }
      if (budgetState(spent, c.limit) === 'warning') this.notify(`${day}|warn|${c.scope}|${project?.id ?? ''}`, 'warning', 'Budget warning', dailyWarning(c.scope, spent, c.limit.warnUsd!, project?.name));
    }
    this.reserve(sessionId, project?.id ?? null);
    return null;
  }

  /** The call about to start reserves its estimated cost: the dearest call of its session today, else of anyone today. */
  private reserve(sessionId: string, projectId: string | null): void {
    const { startMs } = dayOf(this.now());
    const own = this.o.db.prepare('SELECT COALESCE(MAX(usd), 0) AS dearest FROM agent_costs WHERE session_id = ? AND created_at >= ?').get(sessionId, startMs) as { dearest: number };
    const anyone = own.dearest > 0 ? own.dearest : (this.o.db.prepare('SELECT COALESCE(MAX(usd), 0) AS dearest FROM agent_costs WHERE created_at >= ?').get(startMs) as { dearest: number }).dearest;
    const calls = (this.o.db.prepare('SELECT COUNT(*) AS calls FROM agent_costs WHERE session_id = ?').get(sessionId) as { calls: number }).calls;
    if (anyone > 0) this.reservations.set(sessionId, { usd: anyone, projectId, at: this.now(), calls });
  }

  /** Drops the reservations whose call's cost is recorded now, or that are too old to count. */
  private settleReservations(): void {
    const count = this.o.db.prepare('SELECT COUNT(*) AS calls FROM agent_costs WHERE session_id = ?');
    for (const [sessionId, r] of this.reservations) {
      if (this.now() - r.at > RESERVATION_TTL_MS || (count.get(sessionId) as { calls: number }).calls > r.calls) this.reservations.delete(sessionId);
    }
  }

  /** What calls in progress have reserved: all of them (null), or a project's. */
  private reservedUsd(projectId: string | null): number {
    let sum = 0;
    for (const r of this.reservations.values()) if (projectId === null || r.projectId === projectId) sum += r.usd;
    return sum;
  }

  private notify(key: string, level: 'warning' | 'error', title: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.o.logger.warn(message);
    this.o.hub.publish('app.notice', { level, title, message });
    this.publish();
  }

  private publish(): void {
    try {
      this.o.hub.publish('budgets.changed', { settings: this.get(), uses: this.status() });
    } catch (e) {
      // Publishing is for the views; a failure to compute the status must not fail the model call that triggered it.
      this.o.logger.warn('could not publish the budget status', { error: e });
    }
  }
}
