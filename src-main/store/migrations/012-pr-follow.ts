import type { Database } from '../db';

/**
 * Pull requests Flightdeck follows after delivering a feature with gh (src-main/features/pr/):
 * the PR and where its loop stands, each fix round made from its checks or reviews (with the
 * text sent, so a round whose process died is sent again, and what it cost), the check runs,
 * reviews and line comments already fed back (never twice), and the PR's events for the
 * feature's timeline.
 */
export function m012PrFollow(db: Database): void {
  db.exec(`
    CREATE TABLE pr_follows (
      repo_root     TEXT NOT NULL,
      slug          TEXT NOT NULL,
      number        INTEGER NOT NULL,
      url           TEXT NOT NULL,
      branch        TEXT NOT NULL,
      -- watching | fixing | ready | needs_input | merged | closed | unavailable
      status        TEXT NOT NULL,
      reason        TEXT,
      checks_json   TEXT NOT NULL DEFAULT '[]',
      review_state  TEXT,
      next_poll_at  INTEGER NOT NULL DEFAULT 0,
      idle_polls    INTEGER NOT NULL DEFAULT 0,
      created_at    INTEGER NOT NULL,
      updated_at    INTEGER NOT NULL,
      PRIMARY KEY (repo_root, slug)
    );
    CREATE TABLE pr_rounds (
      repo_root     TEXT NOT NULL,
      slug          TEXT NOT NULL,
      round         INTEGER NOT NULL,
      -- pending (waiting for its run) | sent (its run asked the agent) | fixed | failed
      status        TEXT NOT NULL,
      kind          TEXT NOT NULL,
      summary       TEXT NOT NULL,
      prompt        TEXT NOT NULL,
      run_id        TEXT,
      cost_before   REAL NOT NULL DEFAULT 0,
      cost_usd      REAL,
      started_at    INTEGER NOT NULL,
      ended_at      INTEGER,
      PRIMARY KEY (repo_root, slug, round)
    );
    CREATE TABLE pr_seen (
      repo_root     TEXT NOT NULL,
      slug          TEXT NOT NULL,
      -- check | review | comment
      kind          TEXT NOT NULL,
      item_id       TEXT NOT NULL,
      round         INTEGER,
      PRIMARY KEY (repo_root, slug, kind, item_id)
    );
    CREATE TABLE pr_events (
      id            INTEGER PRIMARY KEY AUTOINCREMENT,
      repo_root     TEXT NOT NULL,
      slug          TEXT NOT NULL,
      ts            INTEGER NOT NULL,
      kind          TEXT NOT NULL,
      message       TEXT NOT NULL,
      round         INTEGER,
      cost_usd      REAL
    );
    CREATE INDEX pr_events_feature ON pr_events(repo_root, slug, id);
  `);
}
