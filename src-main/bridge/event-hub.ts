import { events, type PayloadOf, type Topic } from '../../src-preload/contract';

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

  publish<T extends Topic>(topic: T, payload: PayloadOf<T>, key?: string): void {
    const spec = events[topic];
    if (spec.keyed && key === undefined) throw new Error(`topic ${topic} needs a key`);
    if (this.validate) spec.payload.parse(payload);
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
 * subscribed to, so a closed window leaves no listener behind.
 */
export class Subscriptions {
  private readonly wanted = new Set<string>();
  private readonly off: () => void;

  constructor(hub: EventHub, deliver: (e: HubEvent) => void) {
    this.off = hub.subscribe((e) => {
      if (this.wanted.has(Subscriptions.id(e.topic, e.key))) deliver(e);
    });
  }

  static id(topic: string, key: string | undefined): string {
    return `${topic}\u0000${key ?? ''}`;
  }

  add(topic: Topic, key: string | undefined): void {
    this.wanted.add(Subscriptions.id(topic, key));
  }

  remove(topic: Topic, key: string | undefined): void {
    this.wanted.delete(Subscriptions.id(topic, key));
  }

  get size(): number {
    return this.wanted.size;
  }

  dispose(): void {
    this.wanted.clear();
    this.off();
  }
}
