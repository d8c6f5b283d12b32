import type { Database } from '../db';

/**
 * Feature runs: one row per run of a feature (queued, running, finished), so the queue and the
 * history survive a restart, the events of each run can be found again (run id = event log run
 * id), and a second process can tell a live run (owner pid alive) from one a crash left behind.
 */
export function m007FeatureRuns(db: Database): void {
  db.exec(`
    CREATE TABLE feature_runs (
      id            TEXT PRIMARY KEY,
      project_path  TEXT NOT NULL,
      slug          TEXT NOT NULL,
      executor      TEXT NOT NULL,
      status        TEXT NOT NULL,
      phase         TEXT,
      message       TEXT,
      owner_pid     INTEGER,
      owner_id      TEXT,
      queued_at     INTEGER NOT NULL,
      started_at    INTEGER,
      ended_at      INTEGER
    );
    CREATE INDEX feature_runs_feature ON feature_runs (project_path, slug, queued_at);
    CREATE INDEX feature_runs_status ON feature_runs (status);
  `);
}
