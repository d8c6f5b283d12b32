import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '../../../src-preload/client/client';
import type { TerminalInfo } from '../../../src-preload/contract';
import { giveBackHistoryAhead, HISTORY_AHEAD_MAX_CHARS, historyAheadCounts, readHistoriesAhead, retainHistoryAhead, takeHistoryAhead } from '../../../src-renderer/src/terminals/history-ahead';

function terminal(id: string, startedAt: number, status: 'running' | 'exited' = 'running'): TerminalInfo {
  return { id, startedAt, status, kind: 'shell', owner: {}, title: id, cwd: '/tmp', cols: 80, rows: 24 } as unknown as TerminalInfo;
}

/**
 * A client whose reads the test answers one by one, as the main process would: each terminal's
 * output is `outputs[id]` (grown by the test), its scrollback the last `scrollback` characters of
 * it; `since` and `maxChars` as the contract says. And an idle moment the test makes happen.
 */
function fakes(sizes: Record<string, number>, scrollback = 1_000_000) {
  const asked: string[] = [];
  const inputs: Array<{ id: string; since?: number; maxChars?: number }> = [];
  const outputs: Record<string, string> = Object.fromEntries(Object.entries(sizes).map(([id, n]) => [id, 'x'.repeat(n)]));
  const pending: Array<{ id: string; answer: () => void; fail: () => void }> = [];
  const client = {
    invoke(channel: string, input: { id: string; since?: number; maxChars?: number }) {
      if (channel !== 'terminals.history') throw new Error(`unexpected ${channel}`);
      asked.push(input.id);
      inputs.push(input);
      return new Promise((resolve, reject) => {
        const answer = () => {
          const all = outputs[input.id] ?? '';
          const start0 = Math.max(0, all.length - scrollback);
          const start = input.since !== undefined && input.since >= start0 && input.since <= all.length ? input.since : start0;
          resolve(input.maxChars !== undefined && all.length - start > input.maxChars ? null : { data: all.slice(start), start, end: all.length });
        };
        pending.push({ id: input.id, answer, fail: () => reject(new Error('gone')) });
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
  return { client, asked, inputs, outputs, whenIdle, next, runIdle, answer };
}

afterEach(() => {
  retainHistoryAhead(new Set());
});

describe('reading terminal scrollbacks ahead of their first show', () => {
  it("reads one terminal per idle moment in the tab bar's order (running first, newest first) and hands each to its view once", async () => {
    const list = [terminal('old', 1), terminal('new', 3), terminal('done', 5, 'exited'), terminal('mid', 2)];
    const f = fakes({ old: 10, new: 20, done: 30, mid: 40 });
    readHistoriesAhead(f.client, { current: () => list, hasView: () => false, whenIdle: f.whenIdle });
    // Nothing before the page is idle.
    expect(f.asked).toEqual([]);
    for (let i = 0; i < 4; i++) await f.next();
    expect(f.asked).toEqual(['new', 'mid', 'old', 'done']);
    expect(historyAheadCounts()).toEqual({ terminals: 4, chars: 100 });
    expect(takeHistoryAhead('mid')?.history).toEqual({ data: 'x'.repeat(40), start: 0, end: 40 });
    expect(takeHistoryAhead('mid')).toBeNull();
    expect(historyAheadCounts()).toEqual({ terminals: 3, chars: 60 });
  });

  it('stays within its budget, skipping one that does not fit for smaller ones after it', async () => {
    const list = [terminal('a', 4), terminal('b', 3), terminal('c', 2), terminal('d', 1)];
    const f = fakes({ a: 60, b: 50, c: 30, d: 20 });
    readHistoriesAhead(f.client, { current: () => list, hasView: () => false, whenIdle: f.whenIdle, maxChars: 100 });
    for (let i = 0; i < 4; i++) await f.next();
    // a (60) fits, b (60 + 50) does not, c (90) does, d (110) does not: each asked with what is left, and answered nothing when over it.
    expect(f.inputs).toEqual([
      { id: 'a', maxChars: 100 },
      { id: 'b', maxChars: 40 },
      { id: 'c', maxChars: 40 },
      { id: 'd', maxChars: 10 },
    ]);
    expect(historyAheadCounts()).toEqual({ terminals: 2, chars: 90 });
    expect(takeHistoryAhead('b')).toBeNull();
  });

  it('reads none for a terminal with a view here, keeps none shown or closed meanwhile, and skips a failed read', async () => {
    let list = [terminal('viewed', 5), terminal('shown-meanwhile', 4), terminal('closed-meanwhile', 3), terminal('fails', 2), terminal('last', 1)];
    const views = new Set(['viewed']);
    const f = fakes({ 'shown-meanwhile': 5, 'closed-meanwhile': 5, fails: 5, last: 5 });
    readHistoriesAhead(f.client, { current: () => list, hasView: (id) => views.has(id), whenIdle: f.whenIdle });
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

  it('brings a read ahead up to date by what came after it, once it is older than asked; one read after its terminal ended is final', async () => {
    let list = [terminal('busy', 4), terminal('rolled', 3), terminal('ended', 2, 'exited'), terminal('ends-later', 1)];
    const f = fakes({ busy: 10, rolled: 10, ended: 10, 'ends-later': 10 }, 20);
    let clock = 1_000;
    const o = { current: () => list, hasView: () => false, whenIdle: f.whenIdle, now: () => clock };
    const current = () => list;
    readHistoriesAhead(f.client, { ...o, current });
    for (let i = 0; i < 4; i++) await f.next();
    f.outputs.busy += 'y'.repeat(5);
    f.outputs.rolled += 'z'.repeat(30); // more than its scrollback of 20 holds
    f.outputs.ended += 'never printed';
    f.outputs['ends-later'] += 'its last words';
    list = list.map((t) => (t.id === 'ends-later' ? { ...t, status: 'exited' as const } : t));
    // Not old enough yet: nothing is asked.
    clock += 30_000;
    readHistoriesAhead(f.client, { ...o, current, refreshOlderThanMs: 60_000 });
    for (let i = 0; i < 4; i++) await f.runIdle();
    expect(f.inputs).toHaveLength(4);
    clock += 60_000;
    readHistoriesAhead(f.client, { ...o, current, refreshOlderThanMs: 60_000 });
    for (let i = 0; i < 4; i++) await f.next();
    // Each asked with what is left of the budget: 16 M less the 40 held, then less busy's 5 more, then less rolled's 10 more.
    expect(f.inputs.slice(4)).toEqual([
      { id: 'busy', since: 10, maxChars: HISTORY_AHEAD_MAX_CHARS - 40 },
      { id: 'rolled', since: 10, maxChars: HISTORY_AHEAD_MAX_CHARS - 45 },
      { id: 'ends-later', since: 10, maxChars: HISTORY_AHEAD_MAX_CHARS - 55 },
    ]);
    // What came after, joined on; or, where the scrollback no longer reaches back, the scrollback as it is.
    expect(takeHistoryAhead('busy')).toEqual({ history: { data: 'x'.repeat(10) + 'y'.repeat(5), start: 0, end: 15 }, readAt: clock, running: true });
    expect(takeHistoryAhead('rolled')?.history).toEqual({ data: 'z'.repeat(20), start: 20, end: 40 });
    expect(takeHistoryAhead('ended')).toMatchObject({ history: { end: 10 }, running: false });
    // Read while it ran, ended since: brought up to date once more, final from then on.
    expect(takeHistoryAhead('ends-later')).toMatchObject({ history: { data: 'x'.repeat(10) + 'its last words' }, running: false });
  });

  it('keeps a read ahead whose update does not fit (its first show attaches from its end), and takes back one a view took but never showed', async () => {
    const list = [terminal('a', 2), terminal('b', 1)];
    const f = fakes({ a: 40, b: 50 });
    let clock = 0;
    const o = { current: () => list, hasView: () => false, whenIdle: f.whenIdle, now: () => clock, maxChars: 100 };
    readHistoriesAhead(f.client, o);
    await f.next();
    await f.next();
    expect(historyAheadCounts()).toEqual({ terminals: 2, chars: 90 });
    f.outputs.a += 'y'.repeat(20);
    clock = 120_000;
    readHistoriesAhead(f.client, { ...o, refreshOlderThanMs: 60_000 });
    await f.next();
    // 40 + 20 + 50 is over 100: asked with the 10 left, the update is not sent, and a's stays as it was.
    expect(f.inputs.at(-1)).toEqual({ id: 'a', since: 40, maxChars: 10 });
    expect(historyAheadCounts()).toEqual({ terminals: 2, chars: 90 });
    expect(takeHistoryAhead('a')?.history.end).toBe(40);
    const taken = takeHistoryAhead('b')!;
    expect(historyAheadCounts()).toEqual({ terminals: 0, chars: 0 });
    giveBackHistoryAhead('b', taken, 100);
    expect(historyAheadCounts()).toEqual({ terminals: 1, chars: 50 });
    // Not over a newer one, nor past the budget.
    giveBackHistoryAhead('b', { history: { data: 'old', start: 0, end: 3 }, readAt: 0, running: true }, 100);
    expect(takeHistoryAhead('b')).toBe(taken);
    giveBackHistoryAhead('b', taken, 49);
    expect(takeHistoryAhead('b')).toBeNull();
  });

  it('forgets the read aheads of closed terminals, and stops when told', async () => {
    const list = [terminal('a', 3), terminal('b', 2), terminal('c', 1)];
    const f = fakes({ a: 1, b: 2, c: 3 });
    const stop = readHistoriesAhead(f.client, { current: () => list, hasView: () => false, whenIdle: f.whenIdle });
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
