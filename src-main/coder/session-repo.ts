/** Per-session Claude Code state (migration 003). */
import type { CoderSessionConfig, Executor, InjectedFile } from '../../src-preload/contract';
import type { Database } from '../store/db';

interface Row {
  session_id: string;
  executor: string;
  inject_constraints: number;
  claude_session_id: string | null;
  goal: string | null;
  injected: string;
  updated_at: number;
}

export interface CoderSessionRecord extends CoderSessionConfig {
  goal: string | null;
}

function parseInjected(text: string): InjectedFile[] {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? (v as InjectedFile[]) : [];
  } catch {
    // A hand-edited or truncated row: showing no injected files is the safe reading.
    return [];
  }
}

export class CoderSessionRepo {
  constructor(private readonly db: Database) {}

  get(sessionId: string): CoderSessionRecord {
    const row = this.db.prepare('SELECT * FROM coder_sessions WHERE session_id = ?').get(sessionId) as Row | undefined;
    if (!row) return { sessionId, executor: 'builtin', injectConstraints: true, claudeSessionId: null, injected: [], goal: null, updatedAt: 0 };
    return {
      sessionId: row.session_id,
      executor: row.executor === 'claude-code' ? 'claude-code' : 'builtin',
      injectConstraints: row.inject_constraints === 1,
      claudeSessionId: row.claude_session_id,
      injected: parseInjected(row.injected),
      goal: row.goal,
      updatedAt: row.updated_at,
    };
  }

  update(sessionId: string, patch: Partial<{ executor: Executor; injectConstraints: boolean; claudeSessionId: string | null; goal: string | null; injected: InjectedFile[] }>, now = Date.now()): CoderSessionRecord {
    const cur = this.get(sessionId);
    const next = { ...cur, ...patch, updatedAt: now };
    this.db
      .prepare(
        `INSERT INTO coder_sessions (session_id, executor, inject_constraints, claude_session_id, goal, injected, updated_at)
         VALUES (@session_id, @executor, @inject, @claude, @goal, @injected, @updated)
         ON CONFLICT(session_id) DO UPDATE SET executor = excluded.executor, inject_constraints = excluded.inject_constraints,
           claude_session_id = excluded.claude_session_id, goal = excluded.goal, injected = excluded.injected, updated_at = excluded.updated_at`,
      )
      .run({
        session_id: sessionId,
        executor: next.executor,
        inject: next.injectConstraints ? 1 : 0,
        claude: next.claudeSessionId,
        goal: next.goal,
        injected: JSON.stringify(next.injected),
        updated: now,
      });
    return next;
  }

  /** Sessions whose turns Claude Code runs. */
  claudeCodeSessions(): string[] {
    return (this.db.prepare("SELECT session_id FROM coder_sessions WHERE executor = 'claude-code'").all() as Array<{ session_id: string }>).map((r) => r.session_id);
  }
}
