import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter } from '../../../src-main/platform/concurrency';

describe('ConcurrencyLimiter', () => {
  function deferred() {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  }

  it('never runs more than the global and the per-key bound, and runs everything queued', async () => {
    const l = new ConcurrencyLimiter({ global: 3, perKey: 2, maxQueued: 1000, what: 'tasks' });
    let running = 0;
    let peak = 0;
    const perKey = new Map<string, number>();
    let peakPerKey = 0;
    const tasks = Array.from({ length: 60 }, (_, i) => {
      const key = `repo${i % 4}`;
      return l.run(key, async () => {
        running++;
        perKey.set(key, (perKey.get(key) ?? 0) + 1);
        peak = Math.max(peak, running);
        peakPerKey = Math.max(peakPerKey, perKey.get(key)!);
        await new Promise((r) => setTimeout(r, 1 + (i % 3)));
        running--;
        perKey.set(key, perKey.get(key)! - 1);
        return i;
      });
    });
    expect(await Promise.all(tasks)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(peak).toBe(3);
    expect(peakPerKey).toBeLessThanOrEqual(2);
    expect(l.stats()).toEqual({ running: 0, queued: 0, peakRunning: 3 });
  });

  it('starts one key’s waiters in arrival order and does not let one key starve another', async () => {
    const l = new ConcurrencyLimiter({ global: 2, perKey: 2, maxQueued: 100, what: 'tasks' });
    const gate = deferred();
    const order: string[] = [];
    const run = (key: string, name: string) => l.run(key, async () => {
      order.push(name);
      await gate.promise;
    });
    const all = [run('a', 'a1'), run('a', 'a2'), run('a', 'a3'), run('a', 'a4'), run('b', 'b1')];
    gate.resolve();
    await Promise.all(all);
    expect(order.slice(0, 2)).toEqual(['a1', 'a2']);
    // b1 waited behind a3 (it came later) but before a4 (round-robin across keys).
    expect(order.indexOf('b1')).toBeLessThan(order.indexOf('a4'));
    expect(order.indexOf('a3')).toBeLessThan(order.indexOf('a4'));
  });

  it('refuses at once when the queue is full, and a failing task frees its slot', async () => {
    const l = new ConcurrencyLimiter({ global: 1, perKey: 1, maxQueued: 2, what: 'git commands' });
    const gate = deferred();
    const first = l.run('k', () => gate.promise);
    const queued = [l.run('k', () => Promise.reject(new Error('boom'))), l.run('k', async () => 'ok')];
    await expect(l.run('k', async () => 'never')).rejects.toMatchObject({ code: 'unavailable', message: expect.stringMatching(/Too many git commands/) });
    gate.resolve();
    await first;
    await expect(queued[0]).rejects.toThrow('boom');
    expect(await queued[1]).toBe('ok');
  });

  it('bounds the waiters of one key without refusing other keys', async () => {
    const l = new ConcurrencyLimiter({ global: 1, perKey: 1, maxQueued: 10, maxQueuedPerKey: 1, what: 'tasks' });
    const gate = deferred();
    const first = l.run('a', () => gate.promise);
    const a2 = l.run('a', async () => 'a2');
    await expect(l.run('a', async () => 'a3')).rejects.toMatchObject({ code: 'unavailable' });
    const b = l.run('b', async () => 'b');
    gate.resolve();
    await first;
    expect(await Promise.all([a2, b])).toEqual(['a2', 'b']);
  });

  it('drops a waiter whose signal aborts, without running it', async () => {
    const l = new ConcurrencyLimiter({ global: 1, perKey: 1, maxQueued: 10, what: 'tasks' });
    const gate = deferred();
    const first = l.run('k', () => gate.promise);
    const ac = new AbortController();
    let ran = false;
    const waiting = l.run('k', async () => void (ran = true), ac.signal);
    expect(l.stats().queued).toBe(1);
    ac.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    expect(l.stats().queued).toBe(0);
    gate.resolve();
    await first;
    expect(ran).toBe(false);
  });
});
