/**
 * A named async lock: tasks with the same key run one after another, in arrival order; other keys
 * are not held up. Keyed by a repository's real path so two spellings of one repository share it.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    // The previous task's failure is its caller's business; this one only waits for it to end.
    const result = prev.catch(() => undefined).then(fn);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with a task running or waiting (tests, diagnostics). */
  busyKeys(): string[] {
    return [...this.tails.keys()];
  }
}
