import { describe, expect, it } from 'vitest';
import { createClient } from '../../../src-preload/client/client';
import type { Transport, TransportStatus } from '../../../src-preload/client/transport';
import { createAppStore } from '../../../src-renderer/src/store';
import { startApp } from '../../../src-renderer/src/store/start';

/** A transport that records, in order, what the app subscribed to and asked for. */
function recording() {
  const log: string[] = [];
  const inputs = new Map<string, unknown>();
  const listeners = new Map<string, (payload: unknown) => void>();
  let status: ((s: TransportStatus) => void) | null = null;
  const transport: Transport = {
    invoke(channel, input) {
      log.push(`invoke ${channel}`);
      inputs.set(channel, input);
      if (channel === 'features.list') return Promise.resolve({ ok: true, value: { projects: [] } });
      if (channel === 'featureRuns.list') return Promise.resolve({ ok: true, value: { runs: [], limit: 3 } });
      if (channel === 'features.plan.list') return Promise.resolve({ ok: true, value: { drafts: [] } });
      return Promise.resolve({ ok: true, value: [] });
    },
    subscribe(topic, _key, listener) {
      log.push(`subscribe ${topic}`);
      listeners.set(topic, listener);
      return () => {
        log.push(`unsubscribe ${topic}`);
        listeners.delete(topic);
      };
    },
    onStatus(listener) {
      status = listener;
      return () => (status = null);
    },
  };
  const store = createAppStore(createClient(transport));
  return { store, client: createClient(transport), log, inputs, listeners, setStatus: (s: TransportStatus) => status?.(s) };
}

const invoked = (log: string[]) => log.filter((l) => l.startsWith('invoke ')).map((l) => l.slice('invoke '.length));
const flush = () => new Promise((r) => setTimeout(r, 0));

describe('startApp', () => {
  it("subscribes to the host's events before its first reads, and asks for the board's list first", () => {
    const r = recording();
    startApp(r.store, r.client);
    const firstRead = r.log.findIndex((l) => l.startsWith('invoke '));
    const lastSubscribe = r.log.map((l) => l.startsWith('subscribe ')).lastIndexOf(true);
    // A change between a read's answer and its subscription would be missed: subscriptions go first.
    expect(lastSubscribe).toBeLessThan(firstRead);
    expect(r.log.slice(0, firstRead)).toEqual(expect.arrayContaining(['subscribe projects.changed', 'subscribe features.changed', 'subscribe featureRuns.changed', 'subscribe agents.sessions.changed']));
    expect(invoked(r.log)[0]).toBe('features.list');
    // The settings (the theme) right after it, before the board paints.
    expect(invoked(r.log).slice(1, 4)).toEqual(['app.info', 'settings.get', 'app.storage']);
    expect(r.inputs.get('features.list')).toEqual({ indexedOnly: true });
    expect(new Set(invoked(r.log))).toEqual(new Set(['features.list', 'featureRuns.list', 'projects.list', 'agents.sessions.list', 'agents.approvals.list', 'agents.profiles.list', 'agents.settings.get', 'features.plan.list', 'app.info', 'settings.get', 'app.storage']));
  });

  it('reads everything again when the connection comes back after it was lost, not when it first opens', async () => {
    const r = recording();
    startApp(r.store, r.client);
    await flush();
    const first = invoked(r.log).length;
    r.setStatus('open');
    await flush();
    expect(r.store.getState().connection).toBe('open');
    expect(invoked(r.log)).toHaveLength(first);
    r.setStatus('closed');
    expect(r.store.getState().connection).toBe('closed');
    r.setStatus('connecting');
    r.setStatus('open');
    await flush();
    const again = invoked(r.log).slice(first);
    expect(again[0]).toBe('features.list');
    expect(new Set(again)).toEqual(new Set(['features.list', 'featureRuns.list', 'projects.list', 'agents.sessions.list', 'agents.approvals.list', 'agents.profiles.list', 'agents.settings.get', 'features.plan.list', 'app.info', 'settings.get', 'app.storage']));
  });

  it('is connected at once over a transport with no connection state (Electron)', () => {
    const r = recording();
    const transport = { ...r.client.transport, onStatus: undefined };
    const store = createAppStore(createClient(transport));
    expect(store.getState().connection).not.toBe('open');
    startApp(store, createClient(transport));
    expect(store.getState().connection).toBe('open');
  });

  it("applies the host's events to the store, and stops listening when stopped", async () => {
    const r = recording();
    const stop = startApp(r.store, r.client);
    await flush();
    const before = invoked(r.log).filter((c) => c === 'features.list').length;
    r.listeners.get('features.changed')!({});
    await flush();
    expect(invoked(r.log).filter((c) => c === 'features.list').length).toBe(before + 1);
    stop();
    expect(r.listeners.size).toBe(0);
  });
});
