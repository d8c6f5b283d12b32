import { describe, expect, it, vi } from 'vitest';
import { createClient } from '../../../src-preload/client/client';
import type { Transport } from '../../../src-preload/client/transport';
import type { Result } from '../../../src-preload/contract/wire';
import type { Approval, Session } from '../../../src-preload/contract/agents';
import { createAppStore } from '../../../src-renderer/src/store';

/** A store on a transport that answers from a table and records what was asked. */
function storeWith(answers: Record<string, (input: unknown) => Result>) {
  const calls: Array<{ channel: string; input: unknown }> = [];
  const transport: Transport = {
    async invoke(channel, input) {
      calls.push({ channel, input });
      return answers[channel]?.(input) ?? { ok: true, value: [] };
    },
    subscribe: () => () => undefined,
  };
  return { store: createAppStore(createClient(transport)), calls };
}

const approval = (id: string, sessionId = 'ses-aaaaaa1'): Approval => ({
  id,
  sessionId,
  turnId: null,
  toolUseId: 't',
  tool: 'write',
  input: {},
  summary: 'write a',
  risk: 'medium',
  reason: 'r',
  diff: null,
  sessionRule: 'write',
  status: 'pending',
  decision: null,
  decisionReason: null,
  source: 'builtin',
  createdAt: id === 'apr-aaaaaa1' ? 1 : 2,
  resolvedAt: null,
});

describe('session UI state', () => {
  it('"Later" puts an approval off; the badge or the card brings it back first; answering clears it', () => {
    const { store } = storeWith({});
    const s = store.getState();
    s.upsertApproval(approval('apr-aaaaaa1'));
    s.upsertApproval(approval('apr-aaaaaa2', 'ses-aaaaaa2'));
    store.getState().snoozeApproval('apr-aaaaaa1');
    store.getState().snoozeApproval('apr-aaaaaa2');
    expect([...store.getState().snoozedApprovals].sort()).toEqual(['apr-aaaaaa1', 'apr-aaaaaa2']);
    store.getState().reviewApproval({ sessionId: 'ses-aaaaaa2' });
    expect(store.getState().reviewingApproval).toBe('apr-aaaaaa2');
    expect(store.getState().snoozedApprovals.has('apr-aaaaaa2')).toBe(false);
    store.getState().upsertApproval({ ...approval('apr-aaaaaa2', 'ses-aaaaaa2'), status: 'approved' });
    expect(store.getState().reviewingApproval).toBeNull();
    expect(store.getState().approvals.map((a) => a.id)).toEqual(['apr-aaaaaa1']);
  });

  it('a request that failed because the connection dropped is a warning that goes when the connection is back', async () => {
    const { store } = storeWith({ 'agents.cancel': () => ({ ok: false, error: { code: 'unavailable', message: 'Lost the connection to Flightdeck. Retrying…' } }) });
    await store.getState().cancelTurn('ses-aaaaaa1');
    store.getState().toast({ level: 'error', title: 'Something else' });
    expect(store.getState().toasts.map((t) => t.level)).toEqual(['warning', 'error']);
    store.getState().setConnection('open');
    expect(store.getState().toasts.map((t) => t.title)).toEqual(['Something else']);
  });

  it("a turn that ends refreshes its project's git figures", () => {
    const { store, calls } = storeWith({ 'projects.refresh': () => ({ ok: true, value: [] }) });
    const session = { id: 'ses-aaaaaa1', projectId: 'prj-aaaaaa1', status: 'running', updatedAt: 1 } as unknown as Session;
    store.getState().upsertSession(session, null);
    expect(calls.filter((c) => c.channel === 'projects.refresh')).toHaveLength(0);
    store.getState().upsertSession({ ...session, status: 'idle', updatedAt: 2 }, null);
    expect(calls.filter((c) => c.channel === 'projects.refresh')).toEqual([{ channel: 'projects.refresh', input: { id: 'prj-aaaaaa1' } }]);
  });

  it('a message sent again after a failed send carries the same input id; a new message, or one sent after a success, a new one', async () => {
    let fail = true;
    const { store, calls } = storeWith({ 'agents.submit': () => (fail ? { ok: false, error: { code: 'unavailable', message: 'lost' } } : { ok: true, value: { outcome: 'started', sessionId: 'ses-aaaaaa1', turnId: 'turn-aaaaaa1' } }) });
    const idOf = (i: number) => (calls.filter((c) => c.channel === 'agents.submit')[i]!.input as { inputId: string }).inputId;
    expect(await store.getState().sendInput('ses-aaaaaa1', 'hello')).toBe(false);
    fail = false;
    expect(await store.getState().sendInput('ses-aaaaaa1', 'hello')).toBe(true);
    expect(idOf(1)).toBe(idOf(0));
    expect(idOf(0)).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
    // Sent again after it went through: another message, another id.
    await store.getState().sendInput('ses-aaaaaa1', 'hello');
    expect(idOf(2)).not.toBe(idOf(1));
    // Another text, or the same text to another session: another id.
    fail = true;
    await store.getState().sendInput('ses-aaaaaa1', 'hello, edited');
    await store.getState().sendInput('ses-aaaaaa2', 'hello');
    expect(new Set([idOf(2), idOf(3), idOf(4)]).size).toBe(3);
    // The same text with another image is another message.
    const img = (data: string) => [{ mediaType: 'image/png' as const, data }];
    await store.getState().sendInput('ses-aaaaaa1', 'look', img('AAAA'));
    await store.getState().sendInput('ses-aaaaaa1', 'look', img('BBBB'));
    expect(idOf(6)).not.toBe(idOf(5));
  });

  it('the same words sent long after a failed send are a new message, not the lost one', async () => {
    vi.useFakeTimers();
    try {
      const { store, calls } = storeWith({ 'agents.submit': () => ({ ok: false, error: { code: 'unavailable', message: 'lost' } }) });
      const idOf = (i: number) => (calls.filter((c) => c.channel === 'agents.submit')[i]!.input as { inputId: string }).inputId;
      await store.getState().sendInput('ses-aaaaaa1', 'yes');
      vi.advanceTimersByTime(60_000);
      await store.getState().sendInput('ses-aaaaaa1', 'yes');
      expect(idOf(1)).toBe(idOf(0));
      vi.advanceTimersByTime(3 * 60_000);
      await store.getState().sendInput('ses-aaaaaa1', 'yes');
      expect(idOf(2)).not.toBe(idOf(1));
    } finally {
      vi.useRealTimers();
    }
  });
});
