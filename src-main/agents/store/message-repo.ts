import type { Message } from '../../../src-preload/contract';
import type { Database } from '../../store/db';
import { storageProblem, writeOrKeep } from '../../store/storage-health';
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

/**
 * A session's conversation. Every append is its own committed write: a crash loses nothing said.
 * On a full disk an appended message is kept in memory (and read back with the rest) until the
 * database's health watcher writes it when space returns.
 */
export class MessageRepo {
  /** Messages appended while the disk was full, per session, waiting to be written. */
  private readonly unsaved = new Map<string, StoredMessage[]>();

  constructor(private readonly db: Database) {}

  append(sessionId: string, m: { turnId: string | null; role: MessageRole; kind: MessageKind; blocks: StoredBlock[] }, now = Date.now()): StoredMessage {
    const id = newId('msg');
    const { ord } = this.db.prepare('SELECT COALESCE(MAX(ord), 0) + 1 AS ord FROM agent_messages WHERE session_id = ?').get(sessionId) as { ord: number };
    const waiting = this.unsaved.get(sessionId) ?? [];
    const next = Math.max(Math.floor(ord), ...waiting.map((w) => Math.floor(w.ord) + 1));
    const msg: StoredMessage = { id, sessionId, turnId: m.turnId, role: m.role, kind: m.kind, blocks: m.blocks, ord: next, compacted: false, createdAt: now };
    const insert = this.db.prepare('INSERT INTO agent_messages (id, session_id, ord, turn_id, role, kind, content, compacted, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)');
    const write = () => {
      try {
        insert.run(id, sessionId, next, m.turnId, m.role, m.kind, JSON.stringify(m.blocks), now);
      } catch (e) {
        // Only a full or failing disk keeps the message waiting; any other failure is final.
        if (!storageProblem(e)) this.forget(sessionId, id);
        throw e;
      }
      this.forget(sessionId, id);
    };
    waiting.push(msg);
    this.unsaved.set(sessionId, waiting);
    writeOrKeep(this.db, 'conversation message', write);
    return msg;
  }

  private forget(sessionId: string, id: string): void {
    const left = (this.unsaved.get(sessionId) ?? []).filter((w) => w.id !== id);
    if (left.length) this.unsaved.set(sessionId, left);
    else this.unsaved.delete(sessionId);
  }

  /** The live conversation (compacted messages excluded), oldest first. */
  live(sessionId: string): StoredMessage[] {
    const stored = (this.db.prepare('SELECT * FROM agent_messages WHERE session_id = ? AND compacted = 0 ORDER BY ord').all(sessionId) as Row[]).map(fromRow);
    const waiting = this.unsaved.get(sessionId);
    return waiting ? [...stored, ...waiting].sort((a, b) => a.ord - b.ord) : stored;
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
    const n = (this.db.prepare('SELECT COUNT(*) AS n FROM agent_messages WHERE session_id = ? AND compacted = 0').get(sessionId) as { n: number }).n;
    return n + (this.unsaved.get(sessionId)?.length ?? 0);
  }
}
