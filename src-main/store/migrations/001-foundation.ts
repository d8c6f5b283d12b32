import type { Database } from '../db';

export function m001Foundation(db: Database): void {
  db.exec(`
    CREATE TABLE projects (
      id         TEXT PRIMARY KEY,
      name       TEXT NOT NULL,
      path       TEXT NOT NULL UNIQUE,
      added_at   INTEGER NOT NULL
    );

    CREATE TABLE settings (
      key   TEXT PRIMARY KEY,
      value TEXT NOT NULL
    );

    -- The append-only log every agent run writes. (run_id, seq) orders a run; seq starts at 1.
    CREATE TABLE events (
      run_id  TEXT NOT NULL,
      seq     INTEGER NOT NULL,
      ts      INTEGER NOT NULL,
      type    TEXT NOT NULL,
      payload TEXT NOT NULL,
      PRIMARY KEY (run_id, seq)
    ) WITHOUT ROWID;
    CREATE INDEX events_type ON events (type, ts);
  `);
}
