import { spawn, spawnSync } from 'node:child_process';

/** Creates a FIFO (named pipe) with mkfifo. */
export function makeFifo(path: string): void {
  const r = spawnSync('mkfifo', [path]);
  if (r.status !== 0) throw new Error(`mkfifo ${path} failed: ${String(r.stderr)}`);
}

/**
 * Opens the FIFO for reading and writing for a moment every `everyMs`: anything blocked
 * opening, reading or writing it is released then. A regression that blocks on the FIFO then
 * shows up as a stall of a few seconds (which the test asserts against) instead of hanging the
 * test run for good.
 */
export function fifoValve(path: string, everyMs = 4_000): { stop(): void } {
  const child = spawn('bash', ['-c', `while :; do sleep ${everyMs / 1000}; exec 3<>"$0"; sleep 0.2; exec 3>&-; done`, path], { detached: true, stdio: 'ignore' });
  return {
    stop() {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    },
  };
}

/** The longest pause of the event loop while `body` runs, measured by a 20 ms interval timer. */
export async function longestStall<T>(body: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  let last = Date.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = Date.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 20);
  try {
    const value = await body();
    worst = Math.max(worst, Date.now() - last);
    return { value, stallMs: worst };
  } finally {
    clearInterval(timer);
  }
}
