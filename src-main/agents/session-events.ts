/**
 * The agent event sink. Events are appended to the event log with runId = session id and
 * published on `agents.event` only from the log's committed batches, so the UI never shows
 * what was not persisted. Consecutive deltas of the same block (and live command output) are
 * merged before they are appended: one row per burst instead of one per token.
 */
import { SessionId, type AgentEvent as AgentEventT, type AgentEventData as Data } from '../../src-preload/contract';
import type { EventHub } from '../bridge/event-hub';
import type { Logger } from '../platform/logger';
import type { EventLog, StoredEvent } from '../store/event-log';

/** How long a delta waits for the next one of the same block: one frame, invisible to the eye. */
const COALESCE_MS = 16;
/** A merged delta never grows past this, so one event stays small on the wire. */
const MAX_MERGED_CHARS = 16_384;

interface StoredPayload {
  turnId: string | null;
  data: Data;
}

type Mergeable = Extract<Data, { type: 'text.delta' | 'thinking.delta' | 'tool.input.delta' | 'tool.output' }>;

function mergeKey(d: Data): string | null {
  switch (d.type) {
    case 'text.delta':
    case 'thinking.delta':
      return `${d.type}:${d.step}:${d.index}`;
    case 'tool.input.delta':
      return `${d.type}:${d.toolUseId}`;
    case 'tool.output':
      return `${d.type}:${d.toolUseId}`;
    default:
      return null;
  }
}

function merge(a: Mergeable, b: Mergeable): Mergeable {
  if (a.type === 'tool.input.delta' && b.type === 'tool.input.delta') return { ...a, partialJson: a.partialJson + b.partialJson };
  if (a.type === 'tool.output' && b.type === 'tool.output') return { ...a, chunk: a.chunk + b.chunk };
  if ((a.type === 'text.delta' || a.type === 'thinking.delta') && a.type === b.type) return { ...a, text: a.text + (b as typeof a).text };
  return b;
}

function sizeOf(d: Mergeable): number {
  return d.type === 'tool.input.delta' ? d.partialJson.length : d.type === 'tool.output' ? d.chunk.length : d.text.length;
}

export class SessionEvents {
  private readonly open = new Map<string, { key: string; turnId: string | null; data: Mergeable; timer: NodeJS.Timeout }>();

  constructor(
    private readonly log: EventLog,
    private readonly hub: EventHub,
    private readonly logger: Logger,
  ) {}

  emit(sessionId: string, turnId: string | null, data: Data): void {
    const key = mergeKey(data);
    const pending = this.open.get(sessionId);
    if (pending && key !== null && pending.key === key && sizeOf(pending.data) < MAX_MERGED_CHARS) {
      pending.data = merge(pending.data, data as Mergeable);
      return;
    }
    this.closeOpen(sessionId);
    if (key !== null) {
      const timer = setTimeout(() => this.closeOpen(sessionId), COALESCE_MS);
      this.open.set(sessionId, { key, turnId, data: data as Mergeable, timer });
      return;
    }
    this.append(sessionId, turnId, data);
  }

  private closeOpen(sessionId: string): void {
    const pending = this.open.get(sessionId);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.open.delete(sessionId);
    this.append(sessionId, pending.turnId, pending.data);
  }

  private append(sessionId: string, turnId: string | null, data: Data): void {
    const payload: StoredPayload = { turnId, data };
    this.log.append(sessionId, data.type, payload);
  }

  /** Forgets a session's not-yet-appended merged event (the session is being removed). */
  discard(sessionId: string): void {
    const pending = this.open.get(sessionId);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.open.delete(sessionId);
  }

  /** Resolves once every event emitted so far is committed (and so published). */
  async flushed(): Promise<void> {
    for (const id of [...this.open.keys()]) this.closeOpen(id);
    await this.log.whenFlushed();
  }

  /** Publishes the agent events of a committed batch. Wired to AppServices.onEventsPersisted. */
  onPersisted(batch: readonly StoredEvent[]): void {
    for (const e of batch) {
      const event = toAgentEvent(e);
      if (!event) continue;
      try {
        this.hub.publish('agents.event', event, event.sessionId);
      } catch (err) {
        // A payload outside the contract is a bug; it is logged, the stream goes on.
        this.logger.error('agent event outside the contract', { type: e.type, error: err });
      }
    }
  }

  read(sessionId: string, fromSeq: number, limit: number): AgentEventT[] {
    return this.readPage(sessionId, fromSeq, limit).events;
  }

  /**
   * Up to `limit` stored rows from `fromSeq` on, as agent events. Rows that are not agent events
   * (a gap record) are left out, so `events` may be shorter than a full page: `more` (the page
   * was full) and `nextSeq` (one past the last row read) say where a reader goes on.
   */
  readPage(sessionId: string, fromSeq: number, limit: number): { events: AgentEventT[]; nextSeq: number; more: boolean } {
    const rows = this.log.read(sessionId, fromSeq, limit);
    const events: AgentEventT[] = [];
    for (const e of rows) {
      const a = toAgentEvent(e);
      if (a) events.push(a);
    }
    return { events, nextSeq: rows.length > 0 ? rows[rows.length - 1]!.seq + 1 : fromSeq, more: rows.length === limit };
  }

  lastSeq(sessionId: string): number {
    return this.log.lastSeq(sessionId);
  }

  /**
   * Where a read of a session's newest `turns` turns starts: the seq of the `turns`-th last
   * turn's start, or 1 when the session has no more turns than that or so little before them
   * (fewer than `minSkipped` events) that reading it all costs about the same.
   */
  tailStart(sessionId: string, turns: number, minSkipped: number): number {
    const seq = this.log.nthLastSeqOfType(sessionId, 'turn.started', turns);
    return seq !== null && seq - 1 >= minSkipped ? seq : 1;
  }

  dispose(): void {
    for (const id of [...this.open.keys()]) this.closeOpen(id);
  }
}

/** A stored event as an agent event, or null when it is not one (another capability's run). */
export function toAgentEvent(e: StoredEvent): AgentEventT | null {
  if (!SessionId.safeParse(e.runId).success) return null;
  const p = e.payload as Partial<StoredPayload> | null;
  if (!p || typeof p !== 'object' || !p.data || typeof p.data !== 'object' || typeof p.data.type !== 'string') return null;
  // Shapes are checked where they leave main: the hub validates what it publishes, the router what it returns.
  return { sessionId: e.runId, seq: e.seq, ts: e.ts, turnId: p.turnId ?? null, data: p.data };
}
