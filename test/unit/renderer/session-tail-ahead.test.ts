import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Client } from '../../../src-preload/client/client';
import type { AgentEvent } from '../../../src-preload/contract/agents';
import { readTailAhead, takeTailAhead } from '../../../src-renderer/src/agents/use-session-stream';
import { transcriptCache } from '../../../src-renderer/src/agents/transcript-cache';
import { applyEvents, emptyTranscript } from '../../../src-renderer/src/agents/transcript';

/** A client whose reads wait for the test and whose live events the test sends. */
function fakeClient() {
  const listeners = new Map<string, Set<(e: AgentEvent) => void>>();
  const reads: Array<{ input: Record<string, unknown>; answer: (v: unknown) => void }> = [];
  const statusListeners = new Set<(s: string) => void>();
  /** What the client was asked, in order. */
  const calls: string[] = [];
  const client = {
    transport: {
      onStatus(l: (s: string) => void) {
        statusListeners.add(l);
        l('open');
        return () => statusListeners.delete(l);
      },
    },
    on(topic: string, l: (e: AgentEvent) => void, key?: string) {
      calls.push(`on ${topic}`);
      const k = `${topic}/${key ?? ''}`;
      const set = listeners.get(k) ?? new Set();
      listeners.set(k, set);
      set.add(l);
      return () => set.delete(l);
    },
    invoke(channel: string, input: Record<string, unknown>) {
      if (channel !== 'agents.events.read') throw new Error(`unexpected ${channel}`);
      calls.push(`invoke ${channel}`);
      return new Promise((answer) => reads.push({ input, answer }));
    },
  } as unknown as Client;
  const emit = (sessionId: string, e: AgentEvent) => {
    for (const l of listeners.get(`agents.event/${sessionId}`) ?? []) l(e);
  };
  const listening = (sessionId: string) => listeners.get(`agents.event/${sessionId}`)?.size ?? 0;
  const setStatus = (s: string) => {
    for (const l of statusListeners) l(s);
  };
  return { client, reads, emit, listening, calls, setStatus, statusListeners };
}

const notice = (sessionId: string, seq: number, text: string): AgentEvent => ({ sessionId, seq, ts: 1, turnId: null, data: { type: 'notice', level: 'info', text } }) as AgentEvent;

afterEach(() => {
  vi.useRealTimers();
  transcriptCache.delete('s1');
});

describe('a session’s short read started as the app goes to it', () => {
  it('listens before it reads, and hands the view the read and every event heard since, then stops listening when told', async () => {
    const f = fakeClient();
    readTailAhead(f.client, 's1');
    expect(f.listening('s1')).toBe(1);
    expect(f.calls).toEqual(['on agents.event', 'invoke agents.events.read']);
    expect(f.reads.map((r) => r.input)).toEqual([{ sessionId: 's1', lastTurns: 20, limit: 5_000 }]);
    // The agent goes on before the view listens itself: the event is kept for it.
    f.emit('s1', notice('s1', 41, 'while the view was drawn'));
    const page = { events: [], lastSeq: 40, startSeq: 1, nextSeq: 41, more: false };
    f.reads[0]!.answer(page);
    const ahead = takeTailAhead('s1')!;
    expect(await ahead.tail).toBe(page);
    expect(ahead.events.map((e) => e.seq)).toEqual([41]);
    ahead.off();
    expect(f.listening('s1')).toBe(0);
    expect(f.statusListeners.size).toBe(0);
    // Taken once.
    expect(takeTailAhead('s1')).toBeNull();
  });

  it('a failed read hands over nothing to fold (the view reads the whole log)', async () => {
    const f = fakeClient();
    readTailAhead(f.client, 's1');
    const ahead = takeTailAhead('s1')!;
    f.reads[0]!.answer(Promise.reject(new Error('the disk is gone')));
    expect(await ahead.tail).toBeNull();
    ahead.off();
  });

  it('is not handed over when the connection dropped meanwhile (what was published during the drop is in neither): the view reads for itself', () => {
    const f = fakeClient();
    readTailAhead(f.client, 's1');
    f.setStatus('closed');
    f.setStatus('open');
    expect(takeTailAhead('s1')).toBeNull();
    expect(f.listening('s1')).toBe(0);
    expect(f.statusListeners.size).toBe(0);
  });

  it('starts one read per session, none for a session shown before (its fold is cached), and lets go of one no view takes', () => {
    vi.useFakeTimers();
    const f = fakeClient();
    readTailAhead(f.client, 's1');
    readTailAhead(f.client, 's1');
    expect(f.reads).toHaveLength(1);
    vi.advanceTimersByTime(2_000);
    expect(f.listening('s1')).toBe(0);
    expect(takeTailAhead('s1')).toBeNull();

    transcriptCache.put('s1', applyEvents(emptyTranscript, [notice('s1', 1, 'shown before')]));
    readTailAhead(f.client, 's1');
    expect(f.reads).toHaveLength(1);
    expect(takeTailAhead('s1')).toBeNull();
  });
});
