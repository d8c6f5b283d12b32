import type { Database } from '../db';

/**
 * Review comments on a feature's diff or a session's changes: anchored to a file, a line range and
 * the lines they quote, on the commit they were made on (a session's: the file as it was, kept
 * in base_text, since its changes need not be committed). A comment is open until sent to the agent in a fix round; after
 * the fix it is addressed (its lines changed), outdated (its lines are gone) or open again (the fix
 * left them as they were). The user can reopen one.
 */
export function m009ReviewComments(db: Database): void {
  db.exec(`
    CREATE TABLE review_comments (
      id            TEXT PRIMARY KEY,
      repo_root     TEXT NOT NULL,
      -- Exactly one of the two: the feature's slug, or the agent session's id.
      feature_slug  TEXT,
      session_id    TEXT,
      file          TEXT NOT NULL,
      line_start    INTEGER NOT NULL,
      line_end      INTEGER NOT NULL,
      quote         TEXT NOT NULL,
      body          TEXT NOT NULL,
      revision      TEXT NOT NULL,
      status        TEXT NOT NULL,
      sent_revision TEXT,
      base_text     TEXT,
      created_at    INTEGER NOT NULL,
      updated_at    INTEGER NOT NULL
    );
    CREATE INDEX review_comments_feature ON review_comments(repo_root, feature_slug, created_at);
    CREATE INDEX review_comments_session ON review_comments(session_id, created_at);
  `);
}
