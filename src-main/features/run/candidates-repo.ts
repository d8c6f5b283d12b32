/** The feature_candidate_groups and feature_candidates tables (migration 013). */
import type { JudgeRanking, RunExecutor, RunPlacement } from '../../../src-preload/contract';
import type { Database } from '../../store/db';

export type GroupStatus = 'open' | 'picked' | 'discarded';

export interface GroupRow {
  id: string;
  projectPath: string;
  slug: string;
  baseCommit: string;
  budgetMode: 'split' | 'each';
  budgetUsd: number;
  status: GroupStatus;
  winner: number | null;
  judge: JudgeRanking | null;
  createdAt: number;
  closedAt: number | null;
}

export interface CandidateRow {
  groupId: string;
  index: number;
  executor: RunExecutor;
  profile: string | null;
  model: string | null;
  placement: RunPlacement | null;
  budgetUsd: number;
  branch: string;
  worktree: string;
  runIds: string[];
  archivedRef: string | null;
}

interface RawGroup extends Omit<GroupRow, 'judge'> {
  judge: string | null;
}
interface RawCandidate extends Omit<CandidateRow, 'placement' | 'runIds'> {
  placement: string | null;
  runIds: string;
}

const GROUP_COLUMNS = `id, project_path AS projectPath, slug, base_commit AS baseCommit, budget_mode AS budgetMode, budget_usd AS budgetUsd, status, winner, judge, created_at AS createdAt, closed_at AS closedAt`;
const CANDIDATE_COLUMNS = `group_id AS groupId, idx AS "index", executor, profile, model, placement, budget_usd AS budgetUsd, branch, worktree, run_ids AS runIds, archived_ref AS archivedRef`;

/** A stored JSON column; a value that no longer parses (edited by hand) reads as absent. */
function json<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    // Only Flightdeck writes these columns; a broken one loses that detail, never the row.
    return fallback;
  }
}

function group(r: RawGroup): GroupRow {
  return { ...r, judge: json<JudgeRanking | null>(r.judge, null) };
}

function candidate(r: RawCandidate): CandidateRow {
  return { ...r, placement: json<RunPlacement | null>(r.placement, null), runIds: json<string[]>(r.runIds, []) };
}

export class CandidateRepo {
  constructor(private readonly db: Database) {}

  insertGroup(g: GroupRow, candidates: readonly CandidateRow[]): void {
    this.db.transaction(() => {
      this.db
        .prepare(`INSERT INTO feature_candidate_groups (id, project_path, slug, base_commit, budget_mode, budget_usd, status, winner, judge, created_at, closed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
        .run(g.id, g.projectPath, g.slug, g.baseCommit, g.budgetMode, g.budgetUsd, g.status, g.winner, g.judge ? JSON.stringify(g.judge) : null, g.createdAt, g.closedAt);
      const ins = this.db.prepare(`INSERT INTO feature_candidates (group_id, idx, executor, profile, model, placement, budget_usd, branch, worktree, run_ids, archived_ref) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
      for (const c of candidates) ins.run(c.groupId, c.index, c.executor, c.profile, c.model, c.placement ? JSON.stringify(c.placement) : null, c.budgetUsd, c.branch, c.worktree, JSON.stringify(c.runIds), c.archivedRef);
    })();
  }

  /** The feature's open group, else its latest. */
  latest(projectPath: string, slug: string): GroupRow | null {
    const r = this.db.prepare(`SELECT ${GROUP_COLUMNS} FROM feature_candidate_groups WHERE project_path = ? AND slug = ? ORDER BY status = 'open' DESC, created_at DESC, rowid DESC LIMIT 1`).get(projectPath, slug) as RawGroup | undefined;
    return r ? group(r) : null;
  }

  open(projectPath: string, slug: string): GroupRow | null {
    const r = this.db.prepare(`SELECT ${GROUP_COLUMNS} FROM feature_candidate_groups WHERE project_path = ? AND slug = ? AND status = 'open'`).get(projectPath, slug) as RawGroup | undefined;
    return r ? group(r) : null;
  }

  allOpen(): GroupRow[] {
    return (this.db.prepare(`SELECT ${GROUP_COLUMNS} FROM feature_candidate_groups WHERE status = 'open' ORDER BY created_at`).all() as RawGroup[]).map(group);
  }

  candidates(groupId: string): CandidateRow[] {
    return (this.db.prepare(`SELECT ${CANDIDATE_COLUMNS} FROM feature_candidates WHERE group_id = ? ORDER BY idx`).all(groupId) as RawCandidate[]).map(candidate);
  }

  addRun(groupId: string, index: number, runId: string): void {
    const row = this.db.prepare(`SELECT run_ids AS runIds FROM feature_candidates WHERE group_id = ? AND idx = ?`).get(groupId, index) as { runIds: string } | undefined;
    if (!row) return;
    const ids = [...json<string[]>(row.runIds, []), runId];
    this.db.prepare(`UPDATE feature_candidates SET run_ids = ? WHERE group_id = ? AND idx = ?`).run(JSON.stringify(ids), groupId, index);
  }

  setArchived(groupId: string, index: number, ref: string): void {
    this.db.prepare(`UPDATE feature_candidates SET archived_ref = ? WHERE group_id = ? AND idx = ?`).run(ref, groupId, index);
  }

  setJudge(groupId: string, judge: JudgeRanking): void {
    this.db.prepare(`UPDATE feature_candidate_groups SET judge = ? WHERE id = ?`).run(JSON.stringify(judge), groupId);
  }

  close(groupId: string, status: Exclude<GroupStatus, 'open'>, winner: number | null, at: number): void {
    this.db.prepare(`UPDATE feature_candidate_groups SET status = ?, winner = ?, closed_at = ? WHERE id = ?`).run(status, winner, at, groupId);
  }

  /** The runs' rows the comparison needs (status, message, times). */
  runs(ids: readonly string[]): Array<{ id: string; status: string; message: string | null; startedAt: number | null; endedAt: number | null }> {
    if (ids.length === 0) return [];
    return this.db.prepare(`SELECT id, status, message, started_at AS startedAt, ended_at AS endedAt FROM feature_runs WHERE id IN (${ids.map(() => '?').join(',')})`).all(...ids) as Array<{ id: string; status: string; message: string | null; startedAt: number | null; endedAt: number | null }>;
  }
}
