/**
 * Listeners of (topic, key) subscriptions on one transport. The transport tells its peer to
 * subscribe when the first listener of a pair arrives and to unsubscribe when the last leaves,
 * so a view opening and closing many times costs the peer one subscription at most.
 */
export type Listener = (payload: unknown) => void;

export class ListenerRegistry {
  private readonly byPair = new Map<string, { topic: string; key: string | undefined; listeners: Set<Listener> }>();

  constructor(
    private readonly onFirst: (topic: string, key: string | undefined) => void,
    private readonly onLast: (topic: string, key: string | undefined) => void,
  ) {}

  add(topic: string, key: string | undefined, listener: Listener): () => void {
    const id = pairId(topic, key);
    let pair = this.byPair.get(id);
    if (!pair) {
      pair = { topic, key, listeners: new Set() };
      this.byPair.set(id, pair);
      this.onFirst(topic, key);
    }
    pair.listeners.add(listener);
    return () => {
      const p = this.byPair.get(id);
      if (!p || !p.listeners.delete(listener) || p.listeners.size > 0) return;
      this.byPair.delete(id);
      this.onLast(topic, key);
    };
  }

  dispatch(topic: string, key: string | undefined, payload: unknown): void {
    for (const l of this.byPair.get(pairId(topic, key))?.listeners ?? []) l(payload);
  }

  /** Every subscribed pair, to replay after a reconnect. */
  pairs(): Array<{ topic: string; key: string | undefined }> {
    return [...this.byPair.values()].map(({ topic, key }) => ({ topic, key }));
  }
}

function pairId(topic: string, key: string | undefined): string {
  return `${topic}\u0000${key ?? ''}`;
}
