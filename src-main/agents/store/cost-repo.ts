import type { CostSummary, CostTotals, TokenUsage } from '../../../src-preload/contract';
import type { Database } from '../../store/db';
import { writeOrKeep } from '../../store/storage-health';

export type CostPurpose = 'turn' | 'compaction' | 'review';

export interface CostRecord {
  sessionId: string;
  turnId: string | null;
  purpose: CostPurpose;
  profile: string;
  model: string;
  usage: TokenUsage;
  usd: number;
  /** Filled by the features/autopilot capabilities to report per feature and phase. */
  featureId?: string | null;
  phase?: string | null;
}

const TOTALS = `COUNT(*) AS calls, COALESCE(SUM(input_tokens), 0) AS inputTokens, COALESCE(SUM(output_tokens), 0) AS outputTokens,
  COALESCE(SUM(cache_read_tokens), 0) AS cacheReadTokens, COALESCE(SUM(cache_write_tokens), 0) AS cacheWriteTokens, COALESCE(SUM(usd), 0) AS usd`;

/** The cost of every model call, queryable per session (and per feature/phase once they fill those columns). */
export class CostRepo {
  constructor(private readonly db: Database) {}

  /** On a full disk the row is kept in memory and written when space returns: a paid call is never forgotten. */
  record(c: CostRecord, now = Date.now()): void {
    const insert = this.db.prepare(
        `INSERT INTO agent_costs (session_id, turn_id, purpose, profile, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, usd, feature_id, phase, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
    writeOrKeep(this.db, 'model call cost', () => {
      insert.run(c.sessionId, c.turnId, c.purpose, c.profile, c.model, c.usage.inputTokens, c.usage.outputTokens, c.usage.cacheReadTokens, c.usage.cacheWriteTokens, c.usd, c.featureId ?? null, c.phase ?? null, now);
    });
  }

  totals(sessionId: string): CostTotals {
    return this.db.prepare(`SELECT ${TOTALS} FROM agent_costs WHERE session_id = ?`).get(sessionId) as CostTotals;
  }

  summary(sessionId: string): CostSummary {
    const byModel = this.db.prepare(`SELECT profile, model, ${TOTALS} FROM agent_costs WHERE session_id = ? GROUP BY profile, model ORDER BY usd DESC`).all(sessionId) as CostSummary['byModel'];
    const byPurpose = this.db.prepare(`SELECT purpose, ${TOTALS} FROM agent_costs WHERE session_id = ? GROUP BY purpose ORDER BY purpose`).all(sessionId) as CostSummary['byPurpose'];
    return { sessionId, total: this.totals(sessionId), byModel, byPurpose };
  }

  /** Totals of any scope later capabilities tag (feature, phase). */
  totalsWhere(filter: { featureId?: string; phase?: string; turnId?: string }): CostTotals {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.turnId !== undefined) {
      where.push('turn_id = ?');
      args.push(filter.turnId);
    }
    if (filter.featureId !== undefined) {
      where.push('feature_id = ?');
      args.push(filter.featureId);
    }
    if (filter.phase !== undefined) {
      where.push('phase = ?');
      args.push(filter.phase);
    }
    return this.db.prepare(`SELECT ${TOTALS} FROM agent_costs ${where.length ? 'WHERE ' + where.join(' AND ') : ''}`).get(...args) as CostTotals;
  }
}
