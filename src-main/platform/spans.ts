/**
 * Named spans for the benches' breakdowns ("where did a feature run's time go": commits, state
 * writes, checks, diffs, trust, budget). Off unless a bench observes them: then each span's name
 * and duration goes to the observer. Spans may nest (a commit's git calls inside a phase); the
 * observer sees each one and sums per name, so nested names are not added to one another.
 */
let observer: ((name: string, ms: number) => void) | null = null;

/** Benches: every span as it ends, or null to stop. */
export function observeSpans(fn: ((name: string, ms: number) => void) | null): void {
  observer = fn;
}

export async function span<T>(name: string, fn: () => Promise<T>): Promise<T> {
  if (!observer) return fn();
  const t = performance.now();
  try {
    return await fn();
  } finally {
    observer?.(name, performance.now() - t);
  }
}

export function spanSync<T>(name: string, fn: () => T): T {
  if (!observer) return fn();
  const t = performance.now();
  try {
    return fn();
  } finally {
    observer?.(name, performance.now() - t);
  }
}

/** A part whose start and end are not one call's (a check until its terminal started): its measured time. */
export function spanTime(name: string, ms: number): void {
  observer?.(name, ms);
}
