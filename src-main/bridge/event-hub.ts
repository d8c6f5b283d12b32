import { AppError, events, type PayloadOf, type Topic } from '../../src-preload/contract';
import { MAX_SUBSCRIPTIONS_PER_CONNECTION } from './limits';

export interface HubEvent {
  readonly topic: Topic;
  readonly key: string | undefined;
  readonly payload: unknown;
}
type Listener = (e: HubEvent) => void;

/**
 * Fan-out of contract events from services to transports. Payloads are checked against the
 * contract when published, so a subscriber never sees a shape the renderer does not expect.
 */
export class EventHub {
  private readonly listeners = new Set<Listener>();
  /** Validation costs little but high-volume topics (terminal bytes) may opt out after their tests. */
  constructor(private readonly validate = true) {}

  /**
   * `binary`: the payload's bulk as the bytes it arrived as (terminal output in UTF-8, see
   * TerminalDataBytes); transports find them on the payload itself.
   */
  publish<T extends Topic>(topic: T, payload: PayloadOf<T>, key?: string, binary?: Uint8Array): void {
    const spec = events[topic];
    if (spec.keyed && key === undefined) throw new Error(`topic ${topic} needs a key`);
    // A payload with a binary body is built by a service from bytes it counted itself
    // (terminal output); validating it would decode the bytes, which is the cost being avoided.
    if (this.validate && !binary) spec.payload.parse(payload);
    const e: HubEvent = { topic, key, payload };
    for (const l of this.listeners) l(e);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  private readonly closedListeners = new Set<(connectionId: string) => void>();

  /** Transports call this when a window or socket goes away, so per-connection state (terminal views) is dropped. */
  connectionClosed(connectionId: string): void {
    for (const l of this.closedListeners) l(connectionId);
  }

  onConnectionClosed(listener: (connectionId: string) => void): () => void {
    this.closedListeners.add(listener);
    return () => this.closedListeners.delete(listener);
  }
}

/**
 * One connection's subscriptions (a window, a socket). Disposing it removes everything it
 * subscribed to, so a closed window leaves no listener behind. The number of distinct
 * (topic, key) pairs is bounded: a client cannot make the host hold unbounded state.
 */
export class Subscriptions {
  private readonly wanted = new Set<string>();
  private off: (() => void) | null;

  constructor(
    hub: EventHub,
    deliver: (e: HubEvent) => void,
    private readonly limit = MAX_SUBSCRIPTIONS_PER_CONNECTION,
  ) {
    this.off = hub.subscribe((e) => {
      if (this.wanted.has(Subscriptions.id(e.topic, e.key))) deliver(e);
    });
  }

  static id(topic: string, key: string | undefined): string {
    return `${topic}\u0000${key ?? ''}`;
  }

  /** Throws `limit_exceeded` when a new pair would go past the limit; a pair already held is fine. */
  add(topic: Topic, key: string | undefined): void {
    if (this.off === null) return;
    const id = Subscriptions.id(topic, key);
    if (this.wanted.has(id)) return;
    if (this.wanted.size >= this.limit) {
      throw new AppError('limit_exceeded', `Too many subscriptions on one connection (the limit is ${this.limit}); unsubscribe from topics no longer shown before subscribing to more.`, {
        topic,
        limit: this.limit,
      });
    }
    this.wanted.add(id);
  }

  remove(topic: Topic, key: string | undefined): void {
    this.wanted.delete(Subscriptions.id(topic, key));
  }

  get size(): number {
    return this.wanted.size;
  }

  /** Safe to call more than once; later `add`s are ignored (the connection is gone). */
  dispose(): void {
    this.wanted.clear();
    this.off?.();
    this.off = null;
  }
}
