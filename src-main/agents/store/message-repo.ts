import type { Message } from '../../../src-preload/contract';
import type { Database } from '../../store/db';
import { newId } from '../ids';
import { toContractBlocks, type MessageKind, type MessageRole, type StoredBlock } from './blocks';

export interface StoredMessage {
  id: string;
  sessionId: string;
  turnId: string | null;
  role: MessageRole;
  kind: MessageKind;
  blocks: StoredBlock[];
  ord: number;
  compacted: boolean;
  createdAt: number;
}

interface Row {
  id: string;
  session_id: string;
  ord: number;
  turn_id: string | null;
  role: MessageRole;
  kind: MessageKind;
  content: string;
  compacted: number;
  created_at: number;
}

function fromRow(r: Row): StoredMessage {
  return {
    id: r.id,
    sessionId: r.session_id,
    turnId: r.turn_id,
    role: r.role,
    kind: r.kind,
    blocks: JSON.parse(r.content) as StoredBlock[],
    ord: r.ord,
    compacted: r.compacted === 1,
    createdAt: r.created_at,
  };
}

export function toContractMessage(m: StoredMessage): Message {
  return { id: m.id, sessionId: m.sessionId, turnId: m.turnId, role: m.role, kind: m.kind, blocks: toContractBlocks(m.blocks), createdAt: m.createdAt };
}

/** A session's conversation. Every append is its own committed write: a crash loses nothing said. */
export class MessageRepo {
  constructor(private readonly db: Database) {}

  append(sessionId: string, m: { turnId: string | null; role: MessageRole; kind: MessageKind; blocks: StoredBlock[] }, now = Date.now()): StoredMessage {
    const id = newId('msg');
    const { ord } = this.db.prepare('SELECT COALESCE(MAX(ord), 0) + 1 AS ord FROM agent_messages WHERE session_id = ?').get(sessionId) as { ord: number };
    const next = Math.floor(ord);
    this.db
      .prepare('INSERT INTO agent_messages (id, session_id, ord, turn_id, role, kind, content, compacted, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)')
      .run(id, sessionId, next, m.turnId, m.role, m.kind, JSON.stringify(m.blocks), now);
    return { id, sessionId, turnId: m.turnId, role: m.role, kind: m.kind, blocks: m.blocks, ord: next, compacted: false, createdAt: now };
  }

  /** The live conversation (compacted messages excluded), oldest first. */
  live(sessionId: string): StoredMessage[] {
    return (this.db.prepare('SELECT * FROM agent_messages WHERE session_id = ? AND compacted = 0 ORDER BY ord').all(sessionId) as Row[]).map(fromRow);
  }

  /** Marks `ids` compacted and places the summary between them and the first kept message, atomically. */
  compact(sessionId: string, ids: readonly string[], summary: { turnId: string | null; blocks: StoredBlock[] }, firstKeptOrd: number | null, now = Date.now()): StoredMessage {
    return this.db.transaction(() => {
      const mark = this.db.prepare('UPDATE agent_messages SET compacted = 1 WHERE id = ? AND session_id = ?');
      let lastOrd = 0;
      for (const id of ids) {
        mark.run(id, sessionId);
        const r = this.db.prepare('SELECT ord FROM agent_messages WHERE id = ?').get(id) as { ord: number } | undefined;
        if (r && r.ord > lastOrd) lastOrd = r.ord;
      }
      const ord = firstKeptOrd === null ? lastOrd + 1 : (lastOrd + firstKeptOrd) / 2;
      const id = newId('msg');
      this.db
        .prepare('INSERT INTO agent_messages (id, session_id, ord, turn_id, role, kind, content, compacted, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)')
        .run(id, sessionId, ord, summary.turnId, 'user', 'summary', JSON.stringify(summary.blocks), now);
      return { id, sessionId, turnId: summary.turnId, role: 'user' as const, kind: 'summary' as const, blocks: summary.blocks, ord, compacted: false, createdAt: now };
    })();
  }

  count(sessionId: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM agent_messages WHERE session_id = ? AND compacted = 0').get(sessionId) as { n: number }).n;
  }
}
