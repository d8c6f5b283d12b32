import type { Database } from '../db';

/**
 * Best-of-N candidates of a feature (src-main/features/run/candidates-service.ts): a group is N
 * runs of one approved plan, each in its own worktree and branch, started from the same commit
 * of the feature's branch. The group stays open until one candidate is picked (it becomes the
 * feature's branch; the others are archived under refs/flightdeck/archive/, nothing deleted) or
 * the group is discarded. Each candidate's progress lives in its own state.yml and run rows.
 */
export function m013FeatureCandidates(db: Database): void {
  db.exec(`
    CREATE TABLE feature_candidate_groups (
      id            TEXT PRIMARY KEY,
      project_path  TEXT NOT NULL,
      slug          TEXT NOT NULL,
      -- The commit of the feature's branch every candidate started from.
      base_commit   TEXT NOT NULL,
      -- 'split': budget_usd is the whole, shared evenly; 'each': budget_usd is every candidate's.
      budget_mode   TEXT NOT NULL,
      budget_usd    REAL NOT NULL,
      -- open | picked | discarded
      status        TEXT NOT NULL,
      winner        INTEGER,
      -- The judge's ranking (JSON), when one was asked for.
      judge         TEXT,
      created_at    INTEGER NOT NULL,
      closed_at     INTEGER
    );
    CREATE INDEX feature_candidate_groups_feature ON feature_candidate_groups(project_path, slug, created_at);
    CREATE UNIQUE INDEX feature_candidate_groups_open ON feature_candidate_groups(project_path, slug) WHERE status = 'open';
    CREATE TABLE feature_candidates (
      group_id      TEXT NOT NULL REFERENCES feature_candidate_groups(id),
      idx           INTEGER NOT NULL,
      executor      TEXT NOT NULL,
      profile       TEXT,
      model         TEXT,
      -- JSON of the run placement, null: as the feature's.
      placement     TEXT,
      budget_usd    REAL NOT NULL,
      branch        TEXT NOT NULL,
      -- Relative to the project.
      worktree      TEXT NOT NULL,
      -- JSON array of the candidate's feature_runs ids, oldest first (a resumed candidate has several).
      run_ids       TEXT NOT NULL DEFAULT '[]',
      -- Where its branch was kept when the group closed.
      archived_ref  TEXT,
      PRIMARY KEY (group_id, idx)
    );
    -- A candidate's run names it (c1 …): the board and the feature page tell it from a run of the feature.
    ALTER TABLE feature_runs ADD COLUMN candidate TEXT;
  `);
}
