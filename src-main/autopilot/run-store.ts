import type { AutopilotIteration, AutopilotRun, AutopilotRunOptions, AutopilotRunStatus } from '../../src-preload/contract';
import type { Database } from '../store/db';
import { parseRunState, type RunState } from './state';

/** Rows of `autopilot_runs` and `autopilot_iterations` (migration 005). */

interface RunRow {
  id: string;
  project_id: string | null;
  repo: string;
  worktree: string;
  branch: string;
  goal: string;
  test_cmd: string;
  options: string;
  status: AutopilotRunStatus;
  message: string | null;
  control: string | null;
  state: string;
  session_id: string | null;
  owner_pid: number | null;
  owner_id: string | null;
  cost_usd: number;
  created_at: number;
  updated_at: number;
}

interface IterationRow {
  run_id: string;
  iteration: number;
  step_id: string | null;
  step_text: string | null;
  files_changed: string;
  verification: string | null;
  notes: string;
  cost_usd: number;
  duration_ms: number;
  started_at: number;
  ended_at: number | null;
}

export type RunControl = 'pause' | 'cancel';

export interface RunRecord extends AutopilotRun {
  ownerPid: number | null;
  ownerId: string | null;
  control: RunControl | null;
}

function fromRow(r: RunRow): RunRecord {
  return {
    id: r.id,
    projectId: r.project_id,
    repo: r.repo,
    worktree: r.worktree,
    branch: r.branch,
    goal: r.goal,
    testCmd: r.test_cmd,
    // Runs stored before acceptanceUnsandboxed existed ran it sandboxed from now on.
    options: { acceptanceUnsandboxed: false, ...(JSON.parse(r.options) as Partial<AutopilotRunOptions>) } as AutopilotRunOptions,
    status: r.status,
    message: r.message,
    state: parseRunState(r.state, `the saved state of run ${r.id}`),
    sessionId: r.session_id,
    costUsd: r.cost_usd,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    ownerPid: r.owner_pid,
    ownerId: r.owner_id,
    control: r.control === 'pause' || r.control === 'cancel' ? r.control : null,
  };
}

function iterationFromRow(r: IterationRow): AutopilotIteration {
  return {
    iteration: r.iteration,
    stepId: r.step_id,
    stepText: r.step_text,
    filesChanged: JSON.parse(r.files_changed) as string[],
    verification: r.verification ? (JSON.parse(r.verification) as AutopilotIteration['verification']) : null,
    notes: JSON.parse(r.notes) as string[],
    costUsd: r.cost_usd,
    durationMs: r.duration_ms,
    startedAt: r.started_at,
    endedAt: r.ended_at,
  };
}

/** The public view of a run (without the bookkeeping of who drives it). */
export function publicRun(r: RunRecord): AutopilotRun {
  const { ownerPid: _pid, ownerId: _id, control: _c, ...run } = r;
  return run;
}

export class RunStore {
  constructor(private readonly db: Database) {}

  insert(r: Omit<RunRecord, 'costUsd' | 'updatedAt' | 'control'>): void {
    this.db
      .prepare(
        `INSERT INTO autopilot_runs (id, project_id, repo, worktree, branch, goal, test_cmd, options, status, message, state, session_id, owner_pid, owner_id, cost_usd, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
      )
      .run(r.id, r.projectId, r.repo, r.worktree, r.branch, r.goal, r.testCmd, JSON.stringify(r.options), r.status, r.message, JSON.stringify(r.state), r.sessionId, r.ownerPid, r.ownerId, r.createdAt, r.createdAt);
  }

  get(id: string): RunRecord | null {
    const row = this.db.prepare('SELECT * FROM autopilot_runs WHERE id = ?').get(id) as RunRow | undefined;
    return row ? fromRow(row) : null;
  }

  list(projectId?: string): RunRecord[] {
    const rows = (projectId === undefined
      ? this.db.prepare('SELECT * FROM autopilot_runs ORDER BY created_at DESC, id DESC').all()
      : this.db.prepare('SELECT * FROM autopilot_runs WHERE project_id = ? ORDER BY created_at DESC, id DESC').all(projectId)) as RunRow[];
    return rows.map(fromRow);
  }

  saveState(id: string, state: RunState, status: AutopilotRunStatus, message: string | null): void {
    this.db.prepare('UPDATE autopilot_runs SET state = ?, status = ?, message = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(state), status, message, Date.now(), id);
  }

  setOwner(id: string, pid: number | null, ownerId: string | null): void {
    this.db.prepare('UPDATE autopilot_runs SET owner_pid = ?, owner_id = ?, control = NULL, updated_at = ? WHERE id = ?').run(pid, ownerId, Date.now(), id);
  }

  setSession(id: string, sessionId: string | null): void {
    this.db.prepare('UPDATE autopilot_runs SET session_id = ? WHERE id = ?').run(sessionId, id);
  }

  setControl(id: string, control: RunControl | null): void {
    this.db.prepare('UPDATE autopilot_runs SET control = ? WHERE id = ?').run(control, id);
  }

  control(id: string): RunControl | null {
    const row = this.db.prepare('SELECT control FROM autopilot_runs WHERE id = ?').get(id) as { control: string | null } | undefined;
    return row?.control === 'pause' || row?.control === 'cancel' ? row.control : null;
  }

  addCost(id: string, iteration: number, usd: number): void {
    if (usd === 0) return;
    this.db.prepare('UPDATE autopilot_runs SET cost_usd = cost_usd + ? WHERE id = ?').run(usd, id);
    this.db.prepare('UPDATE autopilot_iterations SET cost_usd = cost_usd + ? WHERE run_id = ? AND iteration = ?').run(usd, id, iteration);
  }

  startIteration(id: string, iteration: number, at: number): void {
    this.db.prepare('INSERT OR IGNORE INTO autopilot_iterations (run_id, iteration, started_at) VALUES (?, ?, ?)').run(id, iteration, at);
  }

  iteration(id: string, iteration: number): AutopilotIteration | null {
    const row = this.db.prepare('SELECT * FROM autopilot_iterations WHERE run_id = ? AND iteration = ?').get(id, iteration) as IterationRow | undefined;
    return row ? iterationFromRow(row) : null;
  }

  iterations(id: string): AutopilotIteration[] {
    return (this.db.prepare('SELECT * FROM autopilot_iterations WHERE run_id = ? ORDER BY iteration').all(id) as IterationRow[]).map(iterationFromRow);
  }

  updateIteration(id: string, iteration: number, patch: { stepId?: string | null; stepText?: string | null; addFiles?: readonly string[]; verification?: AutopilotIteration['verification']; addNote?: string; endedAt?: number }): void {
    const cur = this.iteration(id, iteration);
    if (!cur) return;
    const files = patch.addFiles ? [...new Set([...cur.filesChanged, ...patch.addFiles])].sort() : cur.filesChanged;
    const notes = patch.addNote ? [...cur.notes, patch.addNote] : cur.notes;
    const endedAt = patch.endedAt ?? cur.endedAt;
    this.db
      .prepare('UPDATE autopilot_iterations SET step_id = ?, step_text = ?, files_changed = ?, verification = ?, notes = ?, ended_at = ?, duration_ms = ? WHERE run_id = ? AND iteration = ?')
      .run(
        patch.stepId !== undefined ? patch.stepId : cur.stepId,
        patch.stepText !== undefined ? patch.stepText : cur.stepText,
        JSON.stringify(files),
        JSON.stringify(patch.verification !== undefined ? patch.verification : cur.verification),
        JSON.stringify(notes),
        endedAt,
        (endedAt ?? Date.now()) - cur.startedAt,
        id,
        iteration,
      );
  }
}
