/** The feature_runs table (migration 007): one row per run, its status and owner process. */
import type { FeatureRunInfo, FeatureRunStatus, RunExecutor } from '../../../src-preload/contract';
import type { Database } from '../../store/db';

export interface RunRow {
  id: string;
  projectPath: string;
  slug: string;
  executor: RunExecutor;
  status: FeatureRunStatus;
  phase: string | null;
  message: string | null;
  ownerPid: number | null;
  ownerId: string | null;
  queuedAt: number;
  startedAt: number | null;
  endedAt: number | null;
  /** The candidate a best-of-N run is (c1 …), null for a run of the feature itself. */
  candidate?: string | null;
}

const COLUMNS = `id, project_path AS projectPath, slug, executor, status, phase, message, owner_pid AS ownerPid, owner_id AS ownerId,
  queued_at AS queuedAt, started_at AS startedAt, ended_at AS endedAt, candidate`;

export class RunRepo {
  constructor(private readonly db: Database) {}

  insert(r: RunRow): void {
    this.db
      .prepare(
        `INSERT INTO feature_runs (id, project_path, slug, executor, status, phase, message, owner_pid, owner_id, queued_at, started_at, ended_at, candidate)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(r.id, r.projectPath, r.slug, r.executor, r.status, r.phase, r.message, r.ownerPid, r.ownerId, r.queuedAt, r.startedAt, r.endedAt, r.candidate ?? null);
  }

  update(id: string, patch: Partial<Pick<RunRow, 'status' | 'phase' | 'message' | 'ownerPid' | 'ownerId' | 'startedAt' | 'endedAt'>>): void {
    const cols: Record<string, string> = { status: 'status', phase: 'phase', message: 'message', ownerPid: 'owner_pid', ownerId: 'owner_id', startedAt: 'started_at', endedAt: 'ended_at' };
    const sets: string[] = [];
    const args: unknown[] = [];
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) continue;
      sets.push(`${cols[k]} = ?`);
      args.push(v);
    }
    if (sets.length === 0) return;
    this.db.prepare(`UPDATE feature_runs SET ${sets.join(', ')} WHERE id = ?`).run(...args, id);
  }

  get(id: string): RunRow | undefined {
    return this.db.prepare(`SELECT ${COLUMNS} FROM feature_runs WHERE id = ?`).get(id) as RunRow | undefined;
  }

  /** Runs that were queued or running when their process went away (or still are, in a live one). */
  unfinished(): RunRow[] {
    return this.db.prepare(`SELECT ${COLUMNS} FROM feature_runs WHERE status IN ('queued', 'running', 'cancelling') ORDER BY queued_at`).all() as RunRow[];
  }

  ofFeature(projectPath: string, slug: string): RunRow[] {
    return this.db.prepare(`SELECT ${COLUMNS} FROM feature_runs WHERE project_path = ? AND slug = ? ORDER BY queued_at DESC, rowid DESC`).all(projectPath, slug) as RunRow[];
  }

  /** Changes whenever any process adds a run or ends one: a cheap look for the owner sweep. */
  changeMark(): string {
    const r = this.db.prepare(`SELECT COUNT(*) AS n, MAX(queued_at) AS q, MAX(ended_at) AS e FROM feature_runs`).get() as { n: number; q: number | null; e: number | null };
    return `${r.n}:${r.q ?? 0}:${r.e ?? 0}`;
  }

  /**
   * The latest run of each of the `limit` features run most recently (what the board says about
   * a feature that nothing runs now), newest first: one pass over the feature_runs_feature index
   * (project, slug, queued time) for each feature's latest time, and one index lookup per row kept.
   */
  latestPerFeature(limit: number): RunRow[] {
    return this.db
      .prepare(
        `SELECT ${COLUMNS.split(',').map((c) => `r.${c.trim()}`).join(', ')}
         FROM (SELECT project_path AS p, slug AS s, MAX(queued_at) AS q FROM feature_runs GROUP BY project_path, slug ORDER BY q DESC LIMIT ?) m
         JOIN feature_runs r ON r.project_path = m.p AND r.slug = m.s AND r.queued_at = m.q
         ORDER BY m.q DESC`,
      )
      .all(limit) as RunRow[];
  }

  recent(limit: number): RunRow[] {
    return this.db.prepare(`SELECT ${COLUMNS} FROM feature_runs ORDER BY queued_at DESC LIMIT ?`).all(limit) as RunRow[];
  }
}

export function toInfo(r: RunRow, position: number | null): FeatureRunInfo {
  return { id: r.id, projectPath: r.projectPath, slug: r.slug, executor: r.executor, status: r.status, position, phase: r.phase, message: r.message, startedAt: r.startedAt, endedAt: r.endedAt, queuedAt: r.queuedAt, ...(r.candidate ? { candidate: r.candidate } : {}) };
}
