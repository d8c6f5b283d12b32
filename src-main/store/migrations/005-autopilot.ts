import type { Database } from '../db';

/**
 * Autopilot runs: one row per run (its inputs, where it works, the state machine's state as
 * JSON — the same document as the worktree's `.flightdeck/autopilot/state.json`) and one row
 * per iteration for the timeline (the step, files changed, verification, cost, duration).
 */
export function m005Autopilot(db: Database): void {
  db.exec(`
    CREATE TABLE autopilot_runs (
      id          TEXT PRIMARY KEY,
      project_id  TEXT,
      repo        TEXT NOT NULL,
      worktree    TEXT NOT NULL,
      branch      TEXT NOT NULL,
      goal        TEXT NOT NULL,
      test_cmd    TEXT NOT NULL,
      -- JSON: seed files, executor, profile, commit per step, compaction interval, timeout.
      options     TEXT NOT NULL,
      -- running | paused | stopped (why it stopped is in state.exitReason)
      status      TEXT NOT NULL,
      -- Why it is paused (interrupted, an agent error), shown with the Resume button.
      message     TEXT,
      -- A pause or cancel asked for from another process (the CLI of another terminal, the app):
      -- the process driving the run polls it.
      control     TEXT,
      state       TEXT NOT NULL,
      session_id  TEXT,
      -- Which process drives the run, so a restart can tell a crash from a live owner.
      owner_pid   INTEGER,
      owner_id    TEXT,
      cost_usd    REAL NOT NULL DEFAULT 0,
      created_at  INTEGER NOT NULL,
      updated_at  INTEGER NOT NULL
    );
    CREATE INDEX autopilot_runs_project ON autopilot_runs(project_id, created_at);
    CREATE TABLE autopilot_iterations (
      run_id        TEXT NOT NULL REFERENCES autopilot_runs(id) ON DELETE CASCADE,
      iteration     INTEGER NOT NULL,
      step_id       TEXT,
      step_text     TEXT,
      -- JSON list of the files the iteration's prompts changed.
      files_changed TEXT NOT NULL DEFAULT '[]',
      -- JSON: { passed, exitCode, summary } of the acceptance run, or null before it ran.
      verification  TEXT,
      -- JSON list of what happened: plan repaired, changes reverted, re-plan, step completed…
      notes         TEXT NOT NULL DEFAULT '[]',
      cost_usd      REAL NOT NULL DEFAULT 0,
      duration_ms   INTEGER NOT NULL DEFAULT 0,
      started_at    INTEGER NOT NULL,
      ended_at      INTEGER,
      PRIMARY KEY (run_id, iteration)
    );
  `);
}
