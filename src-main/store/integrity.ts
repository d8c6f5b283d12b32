import { statSync } from 'node:fs';
import type { Database } from './db';

export interface IntegrityReport {
  ok: boolean;
  /** False when the time budget ran out before every table was checked (big databases). */
  complete: boolean;
  /** SQLite's own words for what is wrong, at most MAX_PROBLEMS of them. */
  problems: string[];
  checkedAt: number;
}

/** Enough lines to tell real damage from a fluke, few enough to show in a banner. */
const MAX_PROBLEMS = 10;
/**
 * A database up to this size is checked whole at start: quick_check reads every page once,
 * which on this size takes well under a second from a warm cache and a few seconds cold.
 */
export const WHOLE_CHECK_MAX_BYTES = 256 * 1024 * 1024;
/** Bigger ones are checked table by table, smallest first, until this budget is spent. */
export const CHECK_BUDGET_MS = 3_000;

function rowsToProblems(rows: unknown[]): string[] {
  const lines: string[] = [];
  for (const r of rows) {
    const text = String(Object.values(r as Record<string, unknown>)[0] ?? '');
    for (const l of text.split('\n')) if (l && l !== 'ok' && !l.startsWith('*** in database')) lines.push(l);
  }
  return lines;
}

/**
 * `PRAGMA quick_check`, time-boxed: whole for a normal-sized database, per table within a
 * budget for a huge one (a check must not keep the window from opening for minutes). A check
 * that itself fails with "malformed" is a finding, not a crash.
 */
export function quickCheck(db: Database, file: string, opts: { budgetMs?: number; wholeMaxBytes?: number; now?: () => number } = {}): IntegrityReport {
  const now = opts.now ?? Date.now;
  const started = now();
  let size = 0;
  try {
    size = statSync(file).size;
  } catch {
    // An in-memory or just-created database: nothing on disk to size, check it whole.
  }
  const problems: string[] = [];
  let complete = true;
  try {
    if (size <= (opts.wholeMaxBytes ?? WHOLE_CHECK_MAX_BYTES)) {
      problems.push(...rowsToProblems(db.pragma(`quick_check(${MAX_PROBLEMS})`) as unknown[]));
    } else {
      const tables = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string }>).map((t) => t.name);
      for (const name of tables) {
        if (now() - started > (opts.budgetMs ?? CHECK_BUDGET_MS)) {
          complete = false;
          break;
        }
        problems.push(...rowsToProblems(db.pragma(`quick_check("${name.replace(/"/g, '""')}")`) as unknown[]));
        if (problems.length >= MAX_PROBLEMS) break;
      }
    }
  } catch (e) {
    problems.push(e instanceof Error ? e.message : String(e));
  }
  return { ok: problems.length === 0, complete, problems: problems.slice(0, MAX_PROBLEMS), checkedAt: now() };
}
