import type { Database } from '../db';

/**
 * The index of features: one row per feature of a repository, mirroring its `state.yml` (the
 * file is the record; this row is what lists, the board and searches read). Reconciled with
 * the files at start, on every list and status, and when a watched state file changes
 * (src-main/features/feature-index.ts). A file that fails to parse keeps its last good row,
 * with the problem recorded next to it.
 */
export function m004FeatureIndex(db: Database): void {
  db.exec(`
    CREATE TABLE feature_index (
      -- Real path of the repository's main checkout (a repository need not be a registered project).
      repo_root     TEXT NOT NULL,
      slug          TEXT NOT NULL,
      -- 'active' (.trees/<slug>/.flightdeck/<slug>/state.yml) or 'merged' (.flightdeck/<slug>/state.yml);
      -- null while no good copy was ever read (only a problem is known).
      source        TEXT,
      state_path    TEXT,
      -- The last good state, as JSON (a merged copy with its status forced to 'merged').
      state         TEXT,
      status        TEXT,
      branch        TEXT,
      turns         INTEGER NOT NULL DEFAULT 0,
      cost_usd      REAL NOT NULL DEFAULT 0,
      updated_at    TEXT,
      -- The state file that could not be used the last time it was read: kind, message, path, line.
      problem_kind  TEXT,
      problem       TEXT,
      problem_path  TEXT,
      problem_line  INTEGER,
      indexed_at    INTEGER NOT NULL,
      PRIMARY KEY (repo_root, slug)
    ) WITHOUT ROWID;
  `);
}
