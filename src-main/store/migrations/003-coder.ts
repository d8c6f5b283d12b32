import type { Database } from '../db';

/**
 * Claude Code executor: per agent session, which executor runs its turns, whether the `ai/`
 * engineering constraints are injected, and the Claude Code session to resume (so a
 * conversation continues across turns and restarts).
 */
export function m003Coder(db: Database): void {
  db.exec(`
    CREATE TABLE coder_sessions (
      session_id         TEXT PRIMARY KEY REFERENCES agent_sessions(id) ON DELETE CASCADE,
      executor           TEXT NOT NULL DEFAULT 'builtin',
      inject_constraints INTEGER NOT NULL DEFAULT 1,
      claude_session_id  TEXT,
      -- The session's first task: the "goal" of the context pack when a Claude session is lost.
      goal               TEXT,
      -- JSON list of the constraint files injected on the last run, for the session header.
      injected           TEXT NOT NULL DEFAULT '[]',
      updated_at         INTEGER NOT NULL
    );
  `);
}
