import type { Database } from '../db';

/**
 * Agent engine: sessions, their messages, approvals and the cost of every model call.
 * Approvals and costs carry no foreign key to sessions: other executors (Claude Code) route
 * their tool requests through the same gate with their own session ids, and cost rows are
 * kept for reporting after a session is removed only if the caller chooses to.
 */
export function m002Agents(db: Database): void {
  db.exec(`
    CREATE TABLE agent_sessions (
      id             TEXT PRIMARY KEY,
      title          TEXT NOT NULL,
      root           TEXT NOT NULL,
      project_id     TEXT REFERENCES projects(id) ON DELETE SET NULL,
      mode           TEXT NOT NULL,
      profile        TEXT NOT NULL,
      model          TEXT NOT NULL,
      policy_preset  TEXT NOT NULL,
      disabled_tools TEXT NOT NULL DEFAULT '[]',
      status         TEXT NOT NULL,
      todos          TEXT NOT NULL DEFAULT '[]',
      -- Engine state that must survive a restart (session rules, undo snapshots, the turn in flight).
      state          TEXT NOT NULL DEFAULT '{}',
      turn_count     INTEGER NOT NULL DEFAULT 0,
      last_turn      TEXT,
      -- Which process runs the session's turn, so a restart can tell a crash from a live owner.
      owner_pid      INTEGER,
      owner_id       TEXT,
      created_at     INTEGER NOT NULL,
      updated_at     INTEGER NOT NULL
    );
    CREATE INDEX agent_sessions_project ON agent_sessions (project_id, updated_at);

    -- ord orders a session's messages; a compaction summary takes a fractional place
    -- between the last summarized message and the first kept one.
    CREATE TABLE agent_messages (
      id          TEXT PRIMARY KEY,
      session_id  TEXT NOT NULL REFERENCES agent_sessions(id) ON DELETE CASCADE,
      ord         REAL NOT NULL,
      turn_id     TEXT,
      role        TEXT NOT NULL,
      kind        TEXT NOT NULL,
      content     TEXT NOT NULL,
      compacted   INTEGER NOT NULL DEFAULT 0,
      created_at  INTEGER NOT NULL
    );
    CREATE INDEX agent_messages_session ON agent_messages (session_id, ord);

    CREATE TABLE agent_approvals (
      id              TEXT PRIMARY KEY,
      session_id      TEXT NOT NULL,
      turn_id         TEXT,
      tool_use_id     TEXT NOT NULL,
      tool            TEXT NOT NULL,
      input           TEXT NOT NULL,
      summary         TEXT NOT NULL,
      risk            TEXT NOT NULL,
      reason          TEXT NOT NULL,
      diff            TEXT,
      session_rule    TEXT NOT NULL,
      status          TEXT NOT NULL,
      decision        TEXT,
      decision_reason TEXT,
      source          TEXT NOT NULL,
      created_at      INTEGER NOT NULL,
      resolved_at     INTEGER
    );
    CREATE INDEX agent_approvals_pending ON agent_approvals (status, session_id, created_at);

    -- "Approve for this session" rules (command families, tool names).
    CREATE TABLE agent_session_rules (
      session_id TEXT NOT NULL,
      rule       TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (session_id, rule)
    ) WITHOUT ROWID;

    -- One row per model call. feature_id / phase are filled by later capabilities
    -- (features, autopilot) so cost can be reported per feature and phase too.
    CREATE TABLE agent_costs (
      id                 INTEGER PRIMARY KEY AUTOINCREMENT,
      session_id         TEXT NOT NULL,
      turn_id            TEXT,
      purpose            TEXT NOT NULL,
      profile            TEXT NOT NULL,
      model              TEXT NOT NULL,
      input_tokens       INTEGER NOT NULL,
      output_tokens      INTEGER NOT NULL,
      cache_read_tokens  INTEGER NOT NULL,
      cache_write_tokens INTEGER NOT NULL,
      usd                REAL NOT NULL,
      feature_id         TEXT,
      phase              TEXT,
      created_at         INTEGER NOT NULL
    );
    CREATE INDEX agent_costs_session ON agent_costs (session_id);
    CREATE INDEX agent_costs_feature ON agent_costs (feature_id, phase);
  `);
}
