/**
 * The answers to the composer's recent submits, by the id the page gave each input. A message
 * whose answer was lost with the connection (the host took it, the socket closed before the reply)
 * shows as not sent and stays in the box; sent again with the same id it is answered as before,
 * not run twice. Kept in memory, bounded by count and age: the case is a reconnect, seconds long
(the page forgets the id of a failed send after the same time).
 */
export const RECENT_SUBMITS_MAX = 500;
/**
 * Long enough for a reconnect and the user's resend; short enough that the same words typed again
 * later as a new message ("yes", "continue") are not taken for the lost one.
 */
export const RECENT_SUBMIT_TTL_MS = 2 * 60_000;

export class RecentSubmits<T> {
  private readonly seen = new Map<string, { answer: T; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The earlier answer to this session's input `inputId`, or undefined. */
  get(sessionId: string, inputId: string): T | undefined {
    const key = `${sessionId}\u0000${inputId}`;
    const hit = this.seen.get(key);
    if (!hit) return undefined;
    if (this.now() - hit.at > RECENT_SUBMIT_TTL_MS) {
      this.seen.delete(key);
      return undefined;
    }
    return hit.answer;
  }

  remember(sessionId: string, inputId: string, answer: T): void {
    this.seen.set(`${sessionId}\u0000${inputId}`, { answer, at: this.now() });
    // A Map keeps insertion order: the oldest go first.
    while (this.seen.size > RECENT_SUBMITS_MAX) this.seen.delete(this.seen.keys().next().value!);
  }
}
