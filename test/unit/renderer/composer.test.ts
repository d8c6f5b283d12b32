import { describe, expect, it } from 'vitest';
import { createClient } from '../../../src-preload/client/client';
import type { Transport } from '../../../src-preload/client/transport';
import type { Result } from '../../../src-preload/contract/wire';
import type { AgentEvent, AgentEventData, Session } from '../../../src-preload/contract/agents';
import { createAppStore } from '../../../src-renderer/src/store';
import {
  caretAtEdge,
  contextTokens,
  emptyQueue,
  formatElapsed,
  historyEntries,
  historyStart,
  historyStep,
  imageRefusal,
  insertMention,
  mentionAt,
  MAX_QUEUED_INPUTS,
  nextToSend,
  queueReducer,
  type HistoryState,
} from '../../../src-renderer/src/agents/composer-logic';
import { applyEvents, emptyTranscript } from '../../../src-renderer/src/agents/transcript';

describe('composer queue', () => {
  it('adds in order, removes by id, hands out the first only when the session is idle', () => {
    let q = queueReducer(emptyQueue, { type: 'add', item: { id: 'a', text: 'first' } });
    q = queueReducer(q, { type: 'add', item: { id: 'b', text: 'second' } });
    q = queueReducer(q, { type: 'add', item: { id: 'c', text: '   ' } });
    expect(q.items.map((x) => x.text)).toEqual(['first', 'second']);
    expect(nextToSend(q, false)).toBeNull();
    expect(nextToSend(q, true)?.id).toBe('a');
    q = queueReducer(q, { type: 'shift' });
    expect(q.items.map((x) => x.id)).toEqual(['b']);
    q = queueReducer(q, { type: 'unshift', item: { id: 'a', text: 'first' } });
    expect(q.items.map((x) => x.id)).toEqual(['a', 'b']);
    q = queueReducer(q, { type: 'remove', id: 'a' });
    expect(q.items.map((x) => x.id)).toEqual(['b']);
  });

  it('an interruption holds the queue until the user resumes it or queues another message', () => {
    let q = queueReducer(emptyQueue, { type: 'pause' });
    expect(q.paused).toBe(false);
    q = queueReducer(queueReducer(q, { type: 'add', item: { id: 'a', text: 'x' } }), { type: 'pause' });
    expect(nextToSend(q, true)).toBeNull();
    expect(nextToSend(queueReducer(q, { type: 'resume' }), true)?.id).toBe('a');
    expect(queueReducer(q, { type: 'add', item: { id: 'b', text: 'y' } }).paused).toBe(false);
  });

  it('stops growing at its bound', () => {
    let q = emptyQueue;
    for (let i = 0; i < MAX_QUEUED_INPUTS + 5; i++) q = queueReducer(q, { type: 'add', item: { id: `q${i}`, text: `m${i}` } });
    expect(q.items).toHaveLength(MAX_QUEUED_INPUTS);
  });
});

describe('composer history', () => {
  const entries = historyEntries(['one', 'two', 'two', '', 'three']);
  it('keeps inputs oldest first with repeats once', () => {
    expect(entries).toEqual(['one', 'two', 'three']);
  });

  it('walks up from the draft, stops at the oldest, and comes back down to the draft', () => {
    let h: HistoryState = historyStart;
    const texts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const step = historyStep(entries, h, i === 0 ? 'my draft' : texts[texts.length - 1]!, 'up')!;
      h = step.state;
      texts.push(step.text);
    }
    expect(texts).toEqual(['three', 'two', 'one']);
    expect(historyStep(entries, h, 'one', 'up')).toBeNull();
    const down: string[] = [];
    for (let i = 0; i < 3; i++) {
      const step = historyStep(entries, h, '', 'down')!;
      h = step.state;
      down.push(step.text);
    }
    expect(down).toEqual(['two', 'three', 'my draft']);
    expect(h).toEqual(historyStart);
    expect(historyStep(entries, h, 'my draft', 'down')).toBeNull();
    expect(historyStep([], historyStart, '', 'up')).toBeNull();
  });

  it('arrows leave the text only from its first or last line', () => {
    expect(caretAtEdge('a\nb', 1, 'up')).toBe(true);
    expect(caretAtEdge('a\nb', 3, 'up')).toBe(false);
    expect(caretAtEdge('a\nb', 1, 'down')).toBe(false);
    expect(caretAtEdge('a\nb', 2, 'down')).toBe(true);
  });
});

describe('progress figures', () => {
  it('formats elapsed time as m:ss or h:mm:ss', () => {
    expect(formatElapsed(7_400)).toBe('0:07');
    expect(formatElapsed(65_000)).toBe('1:05');
    expect(formatElapsed(3_723_000)).toBe('1:02:03');
    expect(formatElapsed(-5)).toBe('0:00');
  });

  it('the transcript keeps the context size of the latest turn call, and the compacted size after a compaction', () => {
    let seq = 0;
    const ev = (data: AgentEventData): AgentEvent => ({ sessionId: 'ses-aaaaaa1', seq: ++seq, ts: 5000 + seq, turnId: 'turn-aaaaaa1', data });
    const usage = { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 50_000, cacheWriteTokens: 300 };
    expect(contextTokens(usage)).toBe(51_500);
    let t = applyEvents(emptyTranscript, [
      ev({ type: 'tool.started', step: 1, index: 0, toolUseId: 'tu1', tool: 'bash' }),
      ev({ type: 'usage', step: 1, purpose: 'turn', profile: 'glm', model: 'm', usage, usd: 0, stopReason: 'tool_use' }),
      ev({ type: 'usage', step: 1, purpose: 'review', profile: 'other', model: 'm', usage: { ...usage, inputTokens: 1 }, usd: 0, stopReason: null }),
    ]);
    expect(t.context).toEqual({ tokens: 51_500, profile: 'glm' });
    expect(t.items[0]).toMatchObject({ kind: 'tool', id: 'tu1', startedAt: 5001 });
    t = applyEvents(t, [ev({ type: 'compaction', trigger: 'manual', summarizedMessages: 4, beforeTokens: 51_500, afterTokens: 9_000 })]);
    expect(t.context).toEqual({ tokens: 9_000, profile: 'glm' });
  });
});

describe('queue in the store', () => {
  function storeWith(answers: Record<string, (input: unknown) => Result>) {
    const calls: Array<{ channel: string; input: unknown }> = [];
    const transport: Transport = {
      async invoke(channel, input) {
        calls.push({ channel, input });
        return answers[channel]?.(input) ?? { ok: true, value: {} };
      },
      subscribe: () => () => undefined,
    };
    return { store: createAppStore(createClient(transport)), calls };
  }
  const session = { id: 'ses-aaaaaa1', projectId: null, status: 'running', updatedAt: 1 } as unknown as Session;
  const inputs = (calls: Array<{ channel: string; input: unknown }>) => calls.filter((c) => c.channel === 'agents.input').map((c) => (c.input as { input: string }).input);
  const settle = () => new Promise((r) => setTimeout(r, 0));

  it('sends queued messages one per finished turn, in order; removed ones never go', async () => {
    const { store, calls } = storeWith({});
    store.getState().upsertSession(session, null);
    store.getState().queueInput(session.id, 'first');
    store.getState().queueInput(session.id, 'dropped');
    store.getState().queueInput(session.id, 'second');
    const dropped = store.getState().composerQueues[session.id]!.items[1]!;
    store.getState().removeQueued(session.id, dropped.id);
    await settle();
    expect(inputs(calls)).toEqual([]);
    store.getState().upsertSession({ ...session, status: 'idle', updatedAt: 2 }, null);
    await settle();
    expect(inputs(calls)).toEqual(['first']);
    store.getState().upsertSession({ ...session, status: 'running', updatedAt: 3 }, null);
    store.getState().upsertSession({ ...session, status: 'idle', updatedAt: 4 }, null);
    await settle();
    expect(inputs(calls)).toEqual(['first', 'second']);
    expect(store.getState().composerQueues[session.id]!.items).toEqual([]);
  });

  it('survives a reload of the page (in the sessionStorage of the tab) and goes once the reloaded page sees the session idle', async () => {
    const data = new Map<string, string>();
    const g = globalThis as { sessionStorage?: unknown };
    g.sessionStorage = { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v), removeItem: (k: string) => void data.delete(k) };
    try {
      const first = storeWith({});
      first.store.getState().upsertSession(session, null);
      first.store.getState().queueInput(session.id, 'after the reload');
      await settle();
      expect(inputs(first.calls)).toEqual([]);
      // The reloaded page: a new store; the turn ended while it loaded.
      const second = storeWith({
        'agents.sessions.list': () => ({ ok: true, value: [{ ...session, status: 'idle', updatedAt: 5 }] }),
        'agents.approvals.list': () => ({ ok: true, value: [] }),
        'agents.profiles.list': () => ({ ok: true, value: [] }),
      });
      expect(second.store.getState().composerQueues[session.id]?.items.map((x) => x.text)).toEqual(['after the reload']);
      await second.store.getState().loadAgents();
      await settle();
      expect(inputs(second.calls)).toEqual(['after the reload']);
      expect(data.size).toBe(0);
    } finally {
      delete g.sessionStorage;
    }
  });

  it('after an interruption the queue waits; a refused send keeps the message queued', async () => {
    const { store, calls } = storeWith({ 'agents.input': () => ({ ok: false, error: { code: 'conflict', message: 'busy' } }) });
    store.getState().upsertSession(session, null);
    store.getState().queueInput(session.id, 'later');
    await store.getState().cancelTurn(session.id);
    store.getState().upsertSession({ ...session, status: 'idle', updatedAt: 2 }, null);
    await settle();
    expect(inputs(calls)).toEqual([]);
    await store.getState().flushQueue(session.id, { resume: true });
    expect(inputs(calls)).toEqual(['later']);
    expect(store.getState().composerQueues[session.id]).toMatchObject({ items: [{ text: 'later' }], paused: true });
  });
});

describe('the @ mention being typed', () => {
  it('is found only right before the caret, after a space or at the start', () => {
    expect(mentionAt('look at @src/ma', 15)).toEqual({ start: 8, query: 'src/ma' });
    expect(mentionAt('@', 1)).toEqual({ start: 0, query: '' });
    expect(mentionAt('mail me@example.com', 19)).toBeNull();
    expect(mentionAt('look at @src/ma and more', 24)).toBeNull();
    expect(mentionAt('look at @src/ma and more', 15)).toEqual({ start: 8, query: 'src/ma' });
  });

  it('is replaced by the chosen path, the rest of its word dropped, the caret after it', () => {
    expect(insertMention('see @comp please', 4, 9, 'src/agents/Composer.tsx')).toEqual({ text: 'see @src/agents/Composer.tsx please', caret: 29 });
    expect(insertMention('@ma', 0, 3, 'src/main.ts')).toEqual({ text: '@src/main.ts ', caret: 13 });
  });
});

describe('images attached in the composer', () => {
  it('takes PNG, JPEG, GIF and WebP within the size bounds and says why not otherwise', () => {
    expect(imageRefusal([], { name: 'a.png', type: 'image/png', size: 1000 })).toBeNull();
    expect(imageRefusal([], { name: 'a.bmp', type: 'image/bmp', size: 1000 })).toContain('not a PNG, JPEG, GIF or WebP');
    expect(imageRefusal([], { name: 'big.png', type: 'image/png', size: 6 * 1024 * 1024 })).toContain('at most 5.0 MB');
    expect(imageRefusal([{ bytes: 4 * 1024 * 1024 }], { name: 'b.jpg', type: 'image/jpeg', size: 2 * 1024 * 1024 })).toContain('together');
  });
});
