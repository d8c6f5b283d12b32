import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src-preload/contract';
import { seedLongSession } from '../../fixtures/long-transcript';
import { startTestApp } from '../../support/app';
import { makeRepo } from '../../support/temp';

/**
 * `agents.events.read` with `lastTurns`: a long session's newest turns only, which a first open
 * shows before the whole conversation is read; a short session's whole log in the same request.
 */
const ctx = { origin: 'test' as const, connectionId: 't' };
type ReadValue = { events: AgentEvent[]; lastSeq: number; startSeq: number; nextSeq: number; more: boolean };

let t: Awaited<ReturnType<typeof startTestApp>>;
let repo: ReturnType<typeof makeRepo>;
let long: string;
let short: string;

beforeAll(async () => {
  t = await startTestApp();
  repo = makeRepo('fd-tail-read-');
  const project = await t.app.projects.add(repo.path);
  // 11 events a turn (test/fixtures/long-transcript.ts): 2,200 and 330 events.
  long = await seedLongSession(t.app, project.id, 'long', 0, 200);
  short = await seedLongSession(t.app, project.id, 'short', 1, 30);
});
afterAll(() => {
  t.cleanup();
  repo.cleanup();
});

async function read(input: Record<string, unknown>): Promise<ReadValue> {
  const r = await t.app.router.dispatch('agents.events.read', input, ctx);
  if (!r.ok) throw new Error(r.error.message);
  return r.value as ReadValue;
}

describe('agents.events.read with lastTurns', () => {
  it('reads a long session from the start of its 20th last turn, and says where it started', async () => {
    const all = await read({ sessionId: long, fromSeq: 1, limit: 10_000 });
    expect(all.events).toHaveLength(2_200);
    expect(all.startSeq).toBe(1);
    const starts = all.events.filter((e) => e.data.type === 'turn.started').map((e) => e.seq);
    const tail = await read({ sessionId: long, lastTurns: 20, limit: 5_000 });
    expect(tail.startSeq).toBe(starts[starts.length - 20]);
    expect(tail.startSeq).toBe(2_200 - 20 * 11 + 1);
    // Exactly the whole log's end, from that turn's start on.
    expect(tail.events).toEqual(all.events.slice(tail.startSeq - 1));
    expect(tail.lastSeq).toBe(all.lastSeq);
    // fromSeq is what lastTurns replaces.
    expect((await read({ sessionId: long, fromSeq: 7, lastTurns: 20 })).startSeq).toBe(tail.startSeq);
  });

  it('reads a session with little before its newest turns from its start: one request for all of it', async () => {
    const tail = await read({ sessionId: short, lastTurns: 20, limit: 5_000 });
    // 110 events before the 20th last turn: not worth a second request.
    expect(tail.startSeq).toBe(1);
    expect(tail.events).toHaveLength(330);
    // More turns asked for than the session has: from its start too.
    const more = await read({ sessionId: long, lastTurns: 500, limit: 5_000 });
    expect(more.startSeq).toBe(1);
    expect(more.events).toHaveLength(2_200);
  });

  it('says where to go on when a page leaves events out (an older shape): a reader does not stop at the short page', async () => {
    const project = t.app.projects.list()[0]!;
    const id = t.app.agents.createSession({ projectId: project.id, title: 'with an old event' }).id;
    for (let n = 1; n <= 12; n++) {
      const data = n === 5 ? { type: 'no.such.event', from: 'an older version' } : { type: 'text.delta', step: 1, index: 0, text: `part ${n}` };
      t.app.events.append(id, data.type, { turnId: null, data });
    }
    await t.app.events.whenFlushed();
    const first = await read({ sessionId: id, fromSeq: 1, limit: 5 });
    expect(first.events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(first).toMatchObject({ startSeq: 1, nextSeq: 6, more: true, lastSeq: 12 });
    const second = await read({ sessionId: id, fromSeq: first.nextSeq, limit: 5 });
    expect(second.events.map((e) => e.seq)).toEqual([6, 7, 8, 9, 10]);
    expect(second).toMatchObject({ nextSeq: 11, more: true });
    const last = await read({ sessionId: id, fromSeq: second.nextSeq, limit: 5 });
    expect(last.events.map((e) => e.seq)).toEqual([11, 12]);
    expect(last).toMatchObject({ nextSeq: 13, more: false });
    // Past the end: nothing, and where it asked.
    expect(await read({ sessionId: id, fromSeq: 13, limit: 5 })).toMatchObject({ events: [], nextSeq: 13, more: false });
  });

  it('refuses a lastTurns outside 1..1000 at the contract', async () => {
    for (const lastTurns of [0, -1, 1.5, 1_001, '20']) {
      expect(await t.app.router.dispatch('agents.events.read', { sessionId: long, lastTurns }, ctx)).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    }
  });
});
