import type { Statement } from 'better-sqlite3';
import type { Database } from './db';
import { translateSqliteError } from './db';
import { storageHealthOf } from './storage-health';

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
  /** Called when a flush fails; the batch stays queued and is retried with backoff. */
  onError?: (error: unknown) => void;
  /** Bytes of unsaved events kept in memory while writes fail; past it new bulk events are counted, not kept. */
  maxPendingBytes?: number;
  /**
   * Which event types are bulk (streamed output, deltas) and may be left out past the memory
   * bound. Others (a turn's end, a status) are always kept: they are few and small. Default: all.
   */
  droppable?: (type: string) => boolean;
  retryBaseMs?: number;
  retryMaxMs?: number;
  now?: () => number;
}

const DEFAULT_FLUSH_DELAY_MS = 16;
const DEFAULT_MAX_BATCH = 1_000;
/** After a failed flush (disk full, locked), the first retry is soon: freeing space should show quickly. */
const RETRY_BASE_MS = 1_000;
/** …and later ones back off, so a disk that stays full costs one attempt per half minute. */
const RETRY_MAX_MS = 30_000;
/**
 * While the disk is full, events wait in memory. A command printing without end must not take
 * the host's memory with it: past this much, further events are counted and recorded as a gap.
 */
const DEFAULT_MAX_PENDING_BYTES = 64 * 1024 * 1024;
/** The event type recording how much a run lost while the disk was full. */
export const GAP_EVENT_TYPE = 'log.gap';

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
  private readonly nthLastOfType: Statement;
  private readonly flushDelayMs: number;
  private readonly maxBatch: number;
  private readonly now: () => number;
  private readonly maxPendingBytes: number;
  private pendingBytes = 0;
  /** Per run: events not kept because the memory bound was reached while writes failed. */
  private readonly dropped = new Map<string, { events: number; bytes: number; from: number }>();
  private retryDelay: number;
  private failing = false;
  private disposed = false;

  constructor(
    private readonly db: Database,
    private readonly opts: EventLogOptions = {},
  ) {
    this.flushDelayMs = opts.flushDelayMs ?? DEFAULT_FLUSH_DELAY_MS;
    this.maxBatch = opts.maxBatch ?? DEFAULT_MAX_BATCH;
    this.now = opts.now ?? Date.now;
    this.maxPendingBytes = opts.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES;
    this.retryDelay = opts.retryBaseMs ?? RETRY_BASE_MS;
    this.insert = db.prepare('INSERT INTO events (run_id, seq, ts, type, payload) VALUES (?, ?, ?, ?, ?)');
    this.maxSeq = db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM events WHERE run_id = ?');
    this.selectFrom = db.prepare(
      'SELECT run_id AS runId, seq, ts, type, payload FROM events WHERE run_id = ? AND seq >= ? ORDER BY seq LIMIT ?',
    );
    // Walks the run backwards from its end (the primary key), so it reads only the rows after the one it finds.
    this.nthLastOfType = db.prepare('SELECT seq FROM events WHERE run_id = ? AND type = ? ORDER BY seq DESC LIMIT 1 OFFSET ?');
  }

  append(runId: string, type: string, payload: unknown): void {
    if (this.disposed) throw new Error('event log is closed');
    const json = JSON.stringify(payload ?? null);
    if (this.failing && this.pendingBytes + json.length > this.maxPendingBytes && (this.opts.droppable?.(type) ?? true)) {
      // Never shown (only committed events are published), so nothing acknowledged is lost; the gap is recorded.
      const d = this.dropped.get(runId) ?? { events: 0, bytes: 0, from: this.now() };
      d.events++;
      d.bytes += json.length;
      this.dropped.set(runId, d);
      return;
    }
    this.buffer.push({ runId, ts: this.now(), type, payload, json });
    this.pendingBytes += json.length;
    // While writes fail, a full batch waits for the retry instead of hitting the disk on every append.
    if (this.buffer.length >= this.maxBatch && !this.failing) this.flush();
    else if (!this.failing) this.schedule(this.flushDelayMs);
  }

  /** True while the last flush failed and unsaved events wait in memory. */
  get isFailing(): boolean {
    return this.failing;
  }

  /** Bytes of serialized events waiting in memory. */
  get pendingSize(): number {
    return this.pendingBytes;
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
    this.pendingBytes = 0;
    for (const [runId, d] of this.dropped) {
      const payload = { events: d.events, bytes: d.bytes, from: d.from, to: this.now(), reason: 'Not kept while the disk was full: the memory bound for unsaved events was reached.' };
      batch.push({ runId, ts: this.now(), type: GAP_EVENT_TYPE, payload, json: JSON.stringify(payload) });
    }
    // Only a flush after a memory-bound overflow has anything to copy (the common flush allocates nothing).
    const droppedBefore = this.dropped.size > 0 ? new Map(this.dropped) : null;
    this.dropped.clear();
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
      const kept = droppedBefore ? batch.filter((b) => b.type !== GAP_EVENT_TYPE || !droppedBefore.has(b.runId)) : batch;
      this.buffer = kept.concat(this.buffer);
      for (const b of this.buffer) this.pendingBytes += b.json.length;
      if (droppedBefore) for (const [runId, d] of droppedBefore) this.dropped.set(runId, d);
      const err = translateSqliteError(e, this.db);
      this.failing = true;
      this.opts.onError?.(err);
      this.settleWaiters(err);
      if (!this.disposed) {
        this.schedule(this.retryDelay);
        this.retryDelay = Math.min(this.retryDelay * 2, this.opts.retryMaxMs ?? RETRY_MAX_MS);
      }
      return [];
    }
    const recovered = this.failing;
    this.failing = false;
    this.retryDelay = this.opts.retryBaseMs ?? RETRY_BASE_MS;
    this.opts.onPersisted?.(stored);
    if (this.buffer.length === 0) this.settleWaiters(null);
    else if (recovered) this.schedule(0);
    const health = storageHealthOf(this.db);
    if (health && (recovered || health.state !== 'ok')) health.succeeded();
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

  /** The seq of the `n`-th last event of `type` in a run (n ≥ 1), or null when it has fewer. */
  nthLastSeqOfType(runId: string, type: string, n: number): number | null {
    const row = this.nthLastOfType.get(runId, type, n - 1) as { seq: number } | undefined;
    return row?.seq ?? null;
  }

  dispose(): void {
    this.flush();
    if (this.buffer.length > 0) {
      // The process is ending with the disk still refusing: these events cannot be kept anywhere.
      this.opts.onError?.(new Error(`${this.buffer.length} agent events could not be saved before closing (the disk still refuses writes)`));
    }
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
