import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '../../../src-preload/client/client';
import type { TerminalInfo } from '../../../src-preload/contract';
import { historyAheadCounts, readHistoriesAhead, retainHistoryAhead, takeHistoryAhead } from '../../../src-renderer/src/terminals/history-ahead';

function terminal(id: string, startedAt: number, status: 'running' | 'exited' = 'running'): TerminalInfo {
  return { id, startedAt, status, kind: 'shell', owner: {}, title: id, cwd: '/tmp', cols: 80, rows: 24 } as unknown as TerminalInfo;
}

/** A client whose reads the test answers one by one; and an idle moment the test makes happen. */
function fakes(sizes: Record<string, number>) {
  const asked: string[] = [];
  const pending: Array<{ id: string; answer: () => void; fail: () => void }> = [];
  const client = {
    invoke(channel: string, input: { id: string }) {
      if (channel !== 'terminals.history') throw new Error(`unexpected ${channel}`);
      asked.push(input.id);
      return new Promise((resolve, reject) => {
        const n = sizes[input.id] ?? 0;
        pending.push({ id: input.id, answer: () => resolve({ data: 'x'.repeat(n), start: 0, end: n }), fail: () => reject(new Error('gone')) });
      });
    },
  } as unknown as Client;
  const idle: Array<() => void> = [];
  const whenIdle = (fn: () => void) => {
    idle.push(fn);
    return () => {
      const i = idle.indexOf(fn);
      if (i >= 0) idle.splice(i, 1);
    };
  };
  const flush = () => new Promise((r) => setTimeout(r, 0));
  /** One idle moment. */
  async function runIdle() {
    idle.shift()?.();
    await flush();
  }
  /** The oldest read under way answered (or failed). */
  async function answer(how: 'answer' | 'fail' = 'answer') {
    pending.shift()?.[how]();
    await flush();
  }
  /** One idle moment, and the read it started answered. */
  async function next(how: 'answer' | 'fail' = 'answer') {
    await runIdle();
    await answer(how);
  }
  return { client, asked, whenIdle, next, runIdle, answer };
}

afterEach(() => {
  retainHistoryAhead(new Set());
});

describe('reading terminal scrollbacks ahead of their first show', () => {
  it("reads one terminal per idle moment in the tab bar's order (running first, newest first) and hands each to its view once", async () => {
    const list = [terminal('old', 1), terminal('new', 3), terminal('done', 5, 'exited'), terminal('mid', 2)];
    const f = fakes({ old: 10, new: 20, done: 30, mid: 40 });
    readHistoriesAhead(f.client, list, { current: () => list, hasView: () => false, whenIdle: f.whenIdle });
    // Nothing before the page is idle.
    expect(f.asked).toEqual([]);
    for (let i = 0; i < 4; i++) await f.next();
    expect(f.asked).toEqual(['new', 'mid', 'old', 'done']);
    expect(historyAheadCounts()).toEqual({ terminals: 4, chars: 100 });
    expect(takeHistoryAhead('mid')).toEqual({ data: 'x'.repeat(40), start: 0, end: 40 });
    expect(takeHistoryAhead('mid')).toBeNull();
    expect(historyAheadCounts()).toEqual({ terminals: 3, chars: 60 });
  });

  it('stays within its budget, skipping one that does not fit for smaller ones after it', async () => {
    const list = [terminal('a', 4), terminal('b', 3), terminal('c', 2), terminal('d', 1)];
    const f = fakes({ a: 60, b: 50, c: 30, d: 20 });
    readHistoriesAhead(f.client, list, { current: () => list, hasView: () => false, whenIdle: f.whenIdle, maxChars: 100 });
    for (let i = 0; i < 4; i++) await f.next();
    // a (60) fits, b (60 + 50) does not, c (90) does; then the budget is not yet spent, d (110) does not fit.
    expect(f.asked).toEqual(['a', 'b', 'c', 'd']);
    expect(historyAheadCounts()).toEqual({ terminals: 2, chars: 90 });
    expect(takeHistoryAhead('b')).toBeNull();
  });

  it('reads none for a terminal with a view here, keeps none shown or closed meanwhile, and skips a failed read', async () => {
    let list = [terminal('viewed', 5), terminal('shown-meanwhile', 4), terminal('closed-meanwhile', 3), terminal('fails', 2), terminal('last', 1)];
    const views = new Set(['viewed']);
    const f = fakes({ 'shown-meanwhile': 5, 'closed-meanwhile': 5, fails: 5, last: 5 });
    readHistoriesAhead(f.client, list, { current: () => list, hasView: (id) => views.has(id), whenIdle: f.whenIdle });
    await f.runIdle(); // 'viewed': no read
    expect(f.asked).toEqual([]);
    await f.runIdle();
    expect(f.asked).toEqual(['shown-meanwhile']);
    views.add('shown-meanwhile');
    await f.answer(); // its answer comes after its view was made
    await f.runIdle();
    list = list.filter((t) => t.id !== 'closed-meanwhile');
    await f.answer(); // and this one after it was closed
    await f.next('fail');
    await f.next();
    expect(f.asked).toEqual(['shown-meanwhile', 'closed-meanwhile', 'fails', 'last']);
    expect(historyAheadCounts()).toEqual({ terminals: 1, chars: 5 });
    expect(takeHistoryAhead('last')).not.toBeNull();
  });

  it('forgets the read aheads of closed terminals, and stops when told', async () => {
    const list = [terminal('a', 3), terminal('b', 2), terminal('c', 1)];
    const f = fakes({ a: 1, b: 2, c: 3 });
    const stop = readHistoriesAhead(f.client, list, { current: () => list, hasView: () => false, whenIdle: f.whenIdle });
    await f.next();
    await f.next();
    retainHistoryAhead(new Set(['b', 'c']));
    expect(historyAheadCounts()).toEqual({ terminals: 1, chars: 2 });
    stop();
    await f.next();
    expect(f.asked).toEqual(['a', 'b']);
    expect(takeHistoryAhead('c')).toBeNull();
  });
});
