import type { Database } from '../db';

/**
 * Sessions in worktrees: the worktree a session was started in (its folder under `.trees/`, its
 * branch and the base it started from), and the archive ref once the user discarded it.
 */
export function m006SessionWorktrees(db: Database): void {
  db.exec(`
    CREATE TABLE session_worktrees (
      session_id   TEXT PRIMARY KEY REFERENCES agent_sessions(id) ON DELETE CASCADE,
      -- The main checkout (real path) the worktree belongs to.
      repo         TEXT NOT NULL,
      slug         TEXT NOT NULL,
      branch       TEXT NOT NULL,
      base         TEXT NOT NULL,
      path         TEXT NOT NULL,
      -- refs/flightdeck/archive/<slug>/<timestamp> once discarded; NULL while the worktree exists.
      archive_ref  TEXT,
      created_at   INTEGER NOT NULL,
      updated_at   INTEGER NOT NULL
    );
  `);
}
