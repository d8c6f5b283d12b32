import { describe, expect, it } from 'vitest';
import { createClient } from '../../../src-preload/client/client';
import type { Transport } from '../../../src-preload/client/transport';
import type { Result } from '../../../src-preload/contract/wire';
import type { AgentEvent, AgentEventData, Session } from '../../../src-preload/contract/agents';
import { createAppStore } from '../../../src-renderer/src/store';
import {
  caretAtEdge,
  contextTokens,
  formatElapsed,
  historyEntries,
  historyStart,
  historyStep,
  imageRefusal,
  insertMention,
  mentionAt,
  type HistoryState,
} from '../../../src-renderer/src/agents/composer-logic';
import { unsentText } from '../../../src-renderer/src/lib/unsent-text';
import { applyEvents, emptyTranscript } from '../../../src-renderer/src/agents/transcript';

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

describe('sending from the store', () => {
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
  const submitted = (calls: Array<{ channel: string; input: unknown }>) => calls.filter((c) => c.channel === 'agents.submit').map((c) => (c.input as { input: string }).input);

  it('hands every input to the main process whatever the session looks like here, and reports a refusal', async () => {
    let refuse = false;
    const { store, calls } = storeWith({
      'agents.submit': () => (refuse ? { ok: false, error: { code: 'conflict', message: 'busy' } } : { ok: true, value: { outcome: 'queued', sessionId: session.id, queuedId: 'q-aaaaaa1', position: 1 } }),
    });
    store.getState().upsertSession(session, null);
    expect(await store.getState().sendInput(session.id, 'while it runs')).toBe(true);
    store.getState().upsertSession({ ...session, status: 'idle', updatedAt: 2 }, null);
    expect(await store.getState().sendInput(session.id, 'when idle')).toBe(true);
    refuse = true;
    expect(await store.getState().sendInput(session.id, 'refused')).toBe(false);
    expect(submitted(calls)).toEqual(['while it runs', 'when idle', 'refused']);
    expect(calls.some((c) => c.channel === 'agents.input')).toBe(false);
  });

  it('messages an earlier version queued in the tab are handed to the main process once after the reload', async () => {
    const data = new Map<string, string>([['flightdeck.composerQueues', JSON.stringify({ [session.id]: { items: [{ id: 'q1', text: 'typed before the update' }], paused: false } })]]);
    const g = globalThis as { sessionStorage?: unknown };
    g.sessionStorage = { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v), removeItem: (k: string) => void data.delete(k) };
    try {
      const { store, calls } = storeWith({
        'agents.sessions.list': () => ({ ok: true, value: [{ ...session, status: 'idle', updatedAt: 5 }] }),
        'agents.approvals.list': () => ({ ok: true, value: [] }),
        'agents.profiles.list': () => ({ ok: true, value: [] }),
      });
      await store.getState().loadAgents();
      await store.getState().loadAgents();
      expect(submitted(calls)).toEqual(['typed before the update']);
      expect(data.size).toBe(0);
    } finally {
      delete g.sessionStorage;
    }
  });

  it('legacy messages stay in the tab while the sessions cannot be listed, or their send fails; they go on the next load', async () => {
    const data = new Map<string, string>([['flightdeck.composerQueues', JSON.stringify({ [session.id]: { items: [{ id: 'q1', text: 'first' }, { id: 'q2', text: 'second' }], paused: false } })]]);
    const g = globalThis as { sessionStorage?: unknown };
    g.sessionStorage = { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v), removeItem: (k: string) => void data.delete(k) };
    let listed = false;
    let refuse = 'second';
    try {
      const { store, calls } = storeWith({
        'agents.sessions.list': () => (listed ? { ok: true, value: [{ ...session, status: 'idle', updatedAt: 5 }] } : { ok: false, error: { code: 'unavailable', message: 'host restarting' } }),
        'agents.approvals.list': () => ({ ok: true, value: [] }),
        'agents.profiles.list': () => ({ ok: true, value: [] }),
        'agents.submit': (input) => ((input as { input: string }).input === refuse ? { ok: false, error: { code: 'unavailable', message: 'lost' } } : { ok: true, value: { outcome: 'queued', sessionId: session.id, queuedId: 'q-aaaaaa1', position: 1 } }),
      });
      await store.getState().loadAgents();
      expect(submitted(calls)).toEqual([]);
      expect(data.size).toBe(1);
      listed = true;
      await store.getState().loadAgents();
      expect(submitted(calls)).toEqual(['first', 'second']);
      expect(JSON.parse(data.get('flightdeck.composerQueues')!)).toEqual({ [session.id]: { items: [{ text: 'second' }] } });
      refuse = '';
      await store.getState().loadAgents();
      expect(submitted(calls)).toEqual(['first', 'second', 'second']);
      expect(data.size).toBe(0);
    } finally {
      delete g.sessionStorage;
    }
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

describe('what stays in the composer once a message is sent', () => {
  it('nothing of the box as sent; what was typed after it; an edited box whole', () => {
    expect(unsentText('first', 'first')).toBe('');
    expect(unsentText('first  ', ' first')).toBe('');
    // Typed on while the first was on its way: only the rest goes with the next Enter.
    expect(unsentText('first second', 'first')).toBe('second');
    expect(unsentText('first\n\nsecond', 'first')).toBe('second');
    expect(unsentText('first ', 'first')).toBe('');
    // Replaced or edited inside: the user decides, nothing is taken away.
    expect(unsentText('second', 'first')).toBe('second');
    expect(unsentText('firts and more', 'first')).toBe('firts and more');
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
