/**
 * Concurrency: `ConcurrencyLimiter` runs at most N tasks at once globally and M per key (a
 * repository), queueing the rest, so a flood of requests cannot start thousands of processes.
 */
import { AppError } from '../../src-preload/contract';

export interface LimiterOptions {
  /** Tasks running at once, all keys together. */
  global: number;
  /** Tasks running at once for one key. */
  perKey: number;
  /** Tasks waiting, all keys together; one more is refused at once (the caller is flooding). */
  maxQueued: number;
  /** Tasks waiting for one key (default: maxQueued). */
  maxQueuedPerKey?: number;
  /** Names the work in the refusal message, e.g. "git commands". */
  what: string;
}

interface Waiter {
  key: string;
  start(): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/**
 * A queue with a global and a per-key bound. Waiters are started in arrival order per key and
 * round-robin across keys, so one busy repository cannot starve the others. Cheap with many
 * waiters: one FIFO per key, and only keys that have waiters are looked at.
 */
export class ConcurrencyLimiter {
  private running = 0;
  private readonly runningPerKey = new Map<string, number>();
  private readonly waiting = new Map<string, Waiter[]>();
  private queued = 0;
  private peak = 0;

  constructor(private readonly o: LimiterOptions) {}

  /** Runs `task` when a slot is free. Rejects (without running it) when aborted while waiting. */
  run<T>(key: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.hasRoom(key)) return this.execute(key, task);
    if (this.queued >= this.o.maxQueued || (this.waiting.get(key)?.length ?? 0) >= (this.o.maxQueuedPerKey ?? this.o.maxQueued)) {
      return Promise.reject(new AppError('unavailable', `Too many ${this.o.what} are waiting (${this.queued}); try again in a moment.`));
    }
    return new Promise<T>((resolve, reject) => {
      const w: Waiter = {
        key,
        start: () => this.execute(key, task).then(resolve, reject),
      };
      if (signal) {
        w.signal = signal;
        w.onAbort = () => {
          if (this.removeWaiter(w)) reject(signal.reason);
        };
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      const list = this.waiting.get(key);
      if (list) list.push(w);
      else this.waiting.set(key, [w]);
      this.queued++;
    });
  }

  /** Running and waiting tasks now, and the most that ever ran at once (tests, diagnostics). */
  stats(): { running: number; queued: number; peakRunning: number } {
    return { running: this.running, queued: this.queued, peakRunning: this.peak };
  }

  private hasRoom(key: string): boolean {
    return this.running < this.o.global && (this.runningPerKey.get(key) ?? 0) < this.o.perKey;
  }

  private execute<T>(key: string, task: () => Promise<T>): Promise<T> {
    this.running++;
    this.peak = Math.max(this.peak, this.running);
    this.runningPerKey.set(key, (this.runningPerKey.get(key) ?? 0) + 1);
    let p: Promise<T>;
    try {
      p = task();
    } catch (e) {
      p = Promise.reject(e);
    }
    return p.finally(() => this.release(key));
  }

  private release(key: string): void {
    this.running--;
    const n = (this.runningPerKey.get(key) ?? 1) - 1;
    if (n === 0) this.runningPerKey.delete(key);
    else this.runningPerKey.set(key, n);
    this.drain();
  }

  private drain(): void {
    if (this.running >= this.o.global) return;
    // Keys in the order they started waiting; a key that starts a task goes to the back.
    for (const [key, list] of [...this.waiting]) {
      if (this.running >= this.o.global) return;
      while (list.length > 0 && this.hasRoom(key)) {
        const w = list.shift()!;
        this.queued--;
        if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
        w.start();
      }
      this.waiting.delete(key);
      if (list.length > 0) this.waiting.set(key, list);
    }
  }

  private removeWaiter(w: Waiter): boolean {
    const list = this.waiting.get(w.key);
    const i = list?.indexOf(w) ?? -1;
    if (!list || i < 0) return false;
    list.splice(i, 1);
    this.queued--;
    if (list.length === 0) this.waiting.delete(w.key);
    return true;
  }
}
