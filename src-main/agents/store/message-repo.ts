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

  /** The images attached to the input that started `turnId` (its first user message with any), compacted or not. */
  inputImages(sessionId: string, turnId: string): Array<Extract<StoredBlock, { type: 'image' }>> {
    const stored = (this.db.prepare("SELECT * FROM agent_messages WHERE session_id = ? AND turn_id = ? AND role = 'user' ORDER BY ord").all(sessionId, turnId) as Row[]).map(fromRow);
    const waiting = (this.unsaved.get(sessionId) ?? []).filter((m) => m.turnId === turnId && m.role === 'user');
    for (const m of [...stored, ...waiting]) {
      const images = m.blocks.filter((b): b is Extract<StoredBlock, { type: 'image' }> => b.type === 'image');
      if (images.length > 0) return images;
    }
    return [];
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

  /**
   * The session's chat turns in order (the turns the user numbers: a chat message starts each),
   * with the first ord of each. Messages a rewind hid are not counted.
   */
  chatTurns(sessionId: string): Array<{ turnId: string; ord: number; text: string }> {
    const rows = this.db.prepare("SELECT * FROM agent_messages WHERE session_id = ? AND compacted IN (0, 1) AND role = 'user' AND kind = 'chat' AND turn_id IS NOT NULL ORDER BY ord").all(sessionId) as Row[];
    const seen = new Set<string>();
    const out: Array<{ turnId: string; ord: number; text: string }> = [];
    for (const r of rows.map(fromRow)) {
      if (seen.has(r.turnId!)) continue;
      seen.add(r.turnId!);
      const text = r.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('').trim();
      out.push({ turnId: r.turnId!, ord: r.ord, text });
    }
    return out;
  }

  /** The highest ord of the session's messages, hidden ones included (0 when none). */
  maxOrd(sessionId: string): number {
    const { ord } = this.db.prepare('SELECT COALESCE(MAX(ord), 0) AS ord FROM agent_messages WHERE session_id = ?').get(sessionId) as { ord: number };
    return ord;
  }

  /**
   * Rewinds the conversation to the messages before ord `before`: later messages are hidden
   * (compacted + 2, so they can be brought back exactly), and messages up to there that a later
   * compaction summarized are shown again (the summary is one of the hidden ones). Atomic.
   */
  rewind(sessionId: string, before: number): { hidden: string[]; revived: string[] } {
    return this.db.transaction(() => {
      const hidden = (this.db.prepare('SELECT id FROM agent_messages WHERE session_id = ? AND ord >= ? AND compacted IN (0, 1)').all(sessionId, before) as Array<{ id: string }>).map((r) => r.id);
      this.db.prepare('UPDATE agent_messages SET compacted = compacted + 2 WHERE session_id = ? AND ord >= ? AND compacted IN (0, 1)').run(sessionId, before);
      // The newest summary left covers what precedes it; summarized messages after it lost theirs.
      const s = this.db.prepare("SELECT MAX(ord) AS ord FROM agent_messages WHERE session_id = ? AND ord < ? AND kind = 'summary' AND compacted IN (0, 1)").get(sessionId, before) as { ord: number | null };
      const from = s.ord ?? -Infinity;
      const revived = (this.db.prepare('SELECT id FROM agent_messages WHERE session_id = ? AND ord < ? AND ord >= ? AND compacted = 1').all(sessionId, before, from) as Array<{ id: string }>).map((r) => r.id);
      const show = this.db.prepare('UPDATE agent_messages SET compacted = 0 WHERE id = ? AND session_id = ?');
      for (const id of revived) show.run(id, sessionId);
      return { hidden, revived };
    })();
  }

  /** Takes a rewind back: the hidden messages return as they were, the revived ones are summarized again. */
  unrewind(sessionId: string, r: { hidden: readonly string[]; revived: readonly string[] }): void {
    this.db.transaction(() => {
      const unhide = this.db.prepare('UPDATE agent_messages SET compacted = compacted - 2 WHERE id = ? AND session_id = ? AND compacted IN (2, 3)');
      for (const id of r.hidden) unhide.run(id, sessionId);
      const hide = this.db.prepare('UPDATE agent_messages SET compacted = 1 WHERE id = ? AND session_id = ?');
      for (const id of r.revived) hide.run(id, sessionId);
    })();
  }

  /** Copies the live conversation before ord `before` into another session (a fork), in order. */
  copyTo(sessionId: string, before: number, toSessionId: string, now = Date.now()): number {
    const rows = this.live(sessionId).filter((m) => m.ord < before);
    for (const m of rows) this.append(toSessionId, { turnId: m.turnId, role: m.role, kind: m.kind, blocks: m.blocks }, now);
    return rows.length;
  }

  count(sessionId: string): number {
    const n = (this.db.prepare('SELECT COUNT(*) AS n FROM agent_messages WHERE session_id = ? AND compacted = 0').get(sessionId) as { n: number }).n;
    return n + (this.unsaved.get(sessionId)?.length ?? 0);
  }
}
