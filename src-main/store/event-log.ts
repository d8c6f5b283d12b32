import type { Statement } from 'better-sqlite3';
import type { Database } from './db';
import { translateSqliteError } from './db';

export interface StoredEvent<P = unknown> {
  readonly runId: string;
  readonly seq: number;
  readonly ts: number;
  readonly type: string;
  readonly payload: P;
}

interface PendingEvent {
  runId: string;
  ts: number;
  type: string;
  payload: unknown;
  /** Serialized at append, so a payload JSON cannot hold fails its caller, not a whole batch. */
  json: string;
}

export interface EventLogOptions {
  /**
   * How long appends wait to be batched into one transaction. One frame (16 ms) keeps the
   * UI live while turning a burst of token deltas into one fsync-free WAL commit.
   */
  flushDelayMs?: number;
  /** A batch this large flushes at once, bounding the memory a burst can hold. */
  maxBatch?: number;
  /** Called with each batch after it is committed: events are persisted before they are shown. */
  onPersisted?: (events: readonly StoredEvent[]) => void;
  /** Called when a flush fails; the batch stays queued and is retried on the next flush. */
  onError?: (error: unknown) => void;
  now?: () => number;
}

const DEFAULT_FLUSH_DELAY_MS = 16;
const DEFAULT_MAX_BATCH = 1_000;
/** After a failed flush (disk full, locked), wait before trying again rather than spinning. */
const RETRY_DELAY_MS = 1_000;

/**
 * The append-only event log of agent runs. Appends are buffered and written in one
 * transaction per flush; sequence numbers are assigned inside that transaction from the
 * stored maximum, so several writers (the app and a CLI run on the same file) never collide.
 */
export class EventLog {
  private buffer: PendingEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private waiters: Array<{ resolve(): void; reject(e: unknown): void }> = [];
  private readonly insert: Statement;
  private readonly maxSeq: Statement;
  private readonly selectFrom: Statement;
  private readonly flushDelayMs: number;
  private readonly maxBatch: number;
  private readonly now: () => number;
  private disposed = false;

  constructor(
    private readonly db: Database,
    private readonly opts: EventLogOptions = {},
  ) {
    this.flushDelayMs = opts.flushDelayMs ?? DEFAULT_FLUSH_DELAY_MS;
    this.maxBatch = opts.maxBatch ?? DEFAULT_MAX_BATCH;
    this.now = opts.now ?? Date.now;
    this.insert = db.prepare('INSERT INTO events (run_id, seq, ts, type, payload) VALUES (?, ?, ?, ?, ?)');
    this.maxSeq = db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM events WHERE run_id = ?');
    this.selectFrom = db.prepare(
      'SELECT run_id AS runId, seq, ts, type, payload FROM events WHERE run_id = ? AND seq >= ? ORDER BY seq LIMIT ?',
    );
  }

  append(runId: string, type: string, payload: unknown): void {
    if (this.disposed) throw new Error('event log is closed');
    this.buffer.push({ runId, ts: this.now(), type, payload, json: JSON.stringify(payload ?? null) });
    if (this.buffer.length >= this.maxBatch) this.flush();
    else this.schedule(this.flushDelayMs);
  }

  /** Resolves once everything appended so far is committed. */
  whenFlushed(): Promise<void> {
    if (this.buffer.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.schedule(0);
    });
  }

  get pending(): number {
    return this.buffer.length;
  }

  /** Writes the buffer in one transaction. Returns what was committed. */
  flush(): StoredEvent[] {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.buffer.length === 0) {
      this.settleWaiters(null);
      return [];
    }
    const batch = this.buffer;
    // Appends made by onPersisted listeners during this flush go into a fresh buffer.
    this.buffer = [];
    let stored: StoredEvent[];
    try {
      stored = this.db
        .transaction((items: PendingEvent[]) => {
          const next = new Map<string, number>();
          const out: StoredEvent[] = [];
          for (const e of items) {
            const seq = (next.get(e.runId) ?? (this.maxSeq.get(e.runId) as { seq: number }).seq) + 1;
            next.set(e.runId, seq);
            this.insert.run(e.runId, seq, e.ts, e.type, e.json);
            out.push({ runId: e.runId, seq, ts: e.ts, type: e.type, payload: e.payload });
          }
          return out;
        })
        .immediate(batch);
    } catch (e) {
      // Nothing of the batch was committed: put it back in front so order and content survive.
      this.buffer = batch.concat(this.buffer);
      const err = translateSqliteError(e);
      this.opts.onError?.(err);
      this.settleWaiters(err);
      if (!this.disposed) this.schedule(RETRY_DELAY_MS);
      return [];
    }
    this.opts.onPersisted?.(stored);
    if (this.buffer.length === 0) this.settleWaiters(null);
    return stored;
  }

  /** Replays a run from `fromSeq` (inclusive), in order. */
  read<P = unknown>(runId: string, fromSeq = 1, limit = 100_000): StoredEvent<P>[] {
    const rows = this.selectFrom.all(runId, fromSeq, limit) as Array<{ runId: string; seq: number; ts: number; type: string; payload: string }>;
    return rows.map((r) => ({ runId: r.runId, seq: r.seq, ts: r.ts, type: r.type, payload: JSON.parse(r.payload) as P }));
  }

  lastSeq(runId: string): number {
    return (this.maxSeq.get(runId) as { seq: number }).seq;
  }

  dispose(): void {
    this.flush();
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(delay: number): void {
    if (this.timer) {
      if (delay > 0) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, delay);
  }

  private settleWaiters(error: unknown): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) {
      if (error) w.reject(error);
      else w.resolve();
    }
  }
}
