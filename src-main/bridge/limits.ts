import { AppError } from '../../src-preload/contract';

/**
 * What one connection (a window, a socket) may make the host hold. Each bound is far above
 * what the app's own renderer ever needs and far below what would hurt the host, so only a
 * buggy or hostile client meets it, and it gets a `limit_exceeded` error instead of memory.
 */

/**
 * Distinct (topic, key) pairs per connection. The renderer subscribes once per pair it shows
 * (a few global topics plus one pair per open session, terminal or run: hundreds at most);
 * each pair costs a few hundred bytes, so the bound caps a connection near a megabyte.
 */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 4_096;

/**
 * Requests a connection may have waiting for an answer. The renderer's bursts (lists at
 * start, terminal acknowledgements, typing) stay in the tens; every request in flight holds
 * its parsed input and a handler's work (a git process, a database read) until it answers.
 */
export const MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION = 256;

/**
 * Bytes of request frames a connection may have in flight. One frame may be up to
 * MAX_CLIENT_FRAME_BYTES (a large paste); this lets a few of those through at once but not
 * hundreds.
 */
export const MAX_IN_FLIGHT_REQUEST_BYTES_PER_CONNECTION = 32 * 1024 * 1024;

/**
 * Counts one connection's requests in flight. `start` either admits a request (call the
 * returned function when it has answered) or throws `limit_exceeded` without admitting it.
 */
export class InFlightRequests {
  private count = 0;
  private bytes = 0;

  constructor(
    private readonly maxRequests = MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
    private readonly maxBytes = MAX_IN_FLIGHT_REQUEST_BYTES_PER_CONNECTION,
  ) {}

  start(frameBytes: number): () => void {
    if (this.count >= this.maxRequests) {
      throw new AppError('limit_exceeded', `Too many requests waiting for an answer on one connection (the limit is ${this.maxRequests}); wait for answers before sending more.`, {
        limit: this.maxRequests,
      });
    }
    if (this.count > 0 && this.bytes + frameBytes > this.maxBytes) {
      // One request is always admitted whatever its size (the frame limit already bounds it).
      throw new AppError('limit_exceeded', `Too much request data waiting for an answer on one connection (the limit is ${Math.round(this.maxBytes / 1024 / 1024)} MB); wait for answers before sending more.`, {
        limitBytes: this.maxBytes,
      });
    }
    this.count++;
    this.bytes += frameBytes;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.count--;
      this.bytes -= frameBytes;
    };
  }

  get size(): number {
    return this.count;
  }
}
