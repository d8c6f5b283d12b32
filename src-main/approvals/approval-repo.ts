import type { Approval, ApprovalDecision, RiskLevel } from '../../src-preload/contract';
import type { Database } from '../store/db';

interface Row {
  id: string;
  session_id: string;
  turn_id: string | null;
  tool_use_id: string;
  tool: string;
  input: string;
  summary: string;
  risk: RiskLevel;
  reason: string;
  diff: string | null;
  session_rule: string;
  status: Approval['status'];
  decision: ApprovalDecision | null;
  decision_reason: string | null;
  source: string;
  created_at: number;
  resolved_at: number | null;
}

function fromRow(r: Row): Approval {
  let input: Record<string, unknown> = {};
  try {
    input = JSON.parse(r.input) as Record<string, unknown>;
  } catch {
    // Unreadable stored input: the approval stays answerable, the dialog shows no arguments.
  }
  return {
    id: r.id,
    sessionId: r.session_id,
    turnId: r.turn_id,
    toolUseId: r.tool_use_id,
    tool: r.tool,
    input,
    summary: r.summary,
    risk: r.risk,
    reason: r.reason,
    diff: r.diff,
    sessionRule: r.session_rule,
    status: r.status,
    decision: r.decision,
    decisionReason: r.decision_reason,
    source: r.source,
    createdAt: r.created_at,
    resolvedAt: r.resolved_at,
  };
}

/** Approvals and "approve for this session" rules, in SQLite so they survive reloads and restarts. */
export class ApprovalRepo {
  constructor(private readonly db: Database) {}

  insert(a: Approval): void {
    this.db
      .prepare(
        `INSERT INTO agent_approvals (id, session_id, turn_id, tool_use_id, tool, input, summary, risk, reason, diff, session_rule, status, decision, decision_reason, source, created_at, resolved_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(a.id, a.sessionId, a.turnId, a.toolUseId, a.tool, JSON.stringify(a.input), a.summary, a.risk, a.reason, a.diff, a.sessionRule, a.status, a.decision, a.decisionReason, a.source, a.createdAt, a.resolvedAt);
  }

  get(id: string): Approval | null {
    const r = this.db.prepare('SELECT * FROM agent_approvals WHERE id = ?').get(id) as Row | undefined;
    return r ? fromRow(r) : null;
  }

  pending(sessionId?: string): Approval[] {
    const rows = sessionId
      ? (this.db.prepare("SELECT * FROM agent_approvals WHERE status = 'pending' AND session_id = ? ORDER BY created_at, id").all(sessionId) as Row[])
      : (this.db.prepare("SELECT * FROM agent_approvals WHERE status = 'pending' ORDER BY created_at, id").all() as Row[]);
    return rows.map(fromRow);
  }

  /** The latest approval asked for one tool call (a resumed turn finds the one it was waiting on). */
  forToolUse(sessionId: string, toolUseId: string): Approval | null {
    const r = this.db.prepare('SELECT * FROM agent_approvals WHERE session_id = ? AND tool_use_id = ? ORDER BY created_at DESC, id DESC LIMIT 1').get(sessionId, toolUseId) as Row | undefined;
    return r ? fromRow(r) : null;
  }

  /** Resolves a pending approval; returns null when it was not pending any more (answered elsewhere). */
  resolve(id: string, status: Exclude<Approval['status'], 'pending'>, decision: ApprovalDecision | null, reason: string | null, now = Date.now()): Approval | null {
    const n = this.db
      .prepare("UPDATE agent_approvals SET status = ?, decision = ?, decision_reason = ?, resolved_at = ? WHERE id = ? AND status = 'pending'")
      .run(status, decision, reason, now, id).changes;
    return n === 1 ? this.get(id) : null;
  }

  countPending(sessionId: string): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM agent_approvals WHERE status = 'pending' AND session_id = ?").get(sessionId) as { n: number }).n;
  }

  addRule(sessionId: string, rule: string, now = Date.now()): void {
    this.db.prepare('INSERT OR IGNORE INTO agent_session_rules (session_id, rule, created_at) VALUES (?, ?, ?)').run(sessionId, rule, now);
  }

  /** Forgets one rule; false when the session had no such rule. */
  removeRule(sessionId: string, rule: string): boolean {
    return this.db.prepare('DELETE FROM agent_session_rules WHERE session_id = ? AND rule = ?').run(sessionId, rule).changes > 0;
  }

  rules(sessionId: string): string[] {
    return (this.db.prepare('SELECT rule FROM agent_session_rules WHERE session_id = ? ORDER BY created_at').all(sessionId) as Array<{ rule: string }>).map((r) => r.rule);
  }
}
