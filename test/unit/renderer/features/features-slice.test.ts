import { describe, expect, it } from 'vitest';
import { createClient } from '../../../../src-preload/client/client';
import type { Transport } from '../../../../src-preload/client/transport';
import type { PlanDraft, ProjectFeatures } from '../../../../src-preload/contract/features';
import { createAppStore } from '../../../../src-renderer/src/store';

/** A transport whose features.list answers are released by the test, one at a time. */
function slowList() {
  const calls: string[] = [];
  const pending: Array<(projects: ProjectFeatures[]) => void> = [];
  const transport: Transport = {
    invoke(channel) {
      calls.push(channel);
      if (channel !== 'features.list') return Promise.resolve({ ok: true, value: [] });
      return new Promise((resolve) => pending.push((projects) => resolve({ ok: true, value: { projects } })));
    },
    subscribe: () => () => undefined,
  };
  return { store: createAppStore(createClient(transport)), calls, pending };
}

const project = (name: string): ProjectFeatures => ({ projectId: 'p1', name, repoRoot: `/r/${name}`, features: [], problems: [], error: null });
const draft = (id: string, over: Partial<PlanDraft> = {}): PlanDraft => ({
  id,
  projectId: 'p1',
  slug: 'add-auth',
  sessionId: 'ses-aaaaaa1',
  executor: 'builtin',
  status: 'discussing',
  revision: null,
  error: null,
  createdAt: 1,
  updatedAt: 1,
  ...over,
});

describe('the features slice', () => {
  it('a burst of features.changed while a list is read becomes one more read, with the newest answer kept', async () => {
    const { store, calls, pending } = slowList();
    const first = store.getState().loadFeatures();
    void store.getState().loadFeatures();
    void store.getState().loadFeatures();
    void store.getState().loadFeatures();
    expect(calls.filter((c) => c === 'features.list')).toHaveLength(1);
    pending.shift()!([project('old')]);
    await new Promise((r) => setTimeout(r, 0));
    expect(calls.filter((c) => c === 'features.list')).toHaveLength(2);
    pending.shift()!([project('new')]);
    await first;
    expect(store.getState().featureProjects.map((p) => p.name)).toEqual(['new']);
    expect(store.getState().featuresLoaded).toBe(true);
    // Idle again: the next change reads again.
    void store.getState().loadFeatures();
    expect(calls.filter((c) => c === 'features.list')).toHaveLength(3);
  });

  it('a failed list is kept as the board error, not thrown', async () => {
    const transport: Transport = { invoke: async () => ({ ok: false, error: { code: 'internal', message: 'index unreadable' } }), subscribe: () => () => undefined };
    const store = createAppStore(createClient(transport));
    await store.getState().loadFeatures();
    expect(store.getState().featuresError).toBe('index unreadable');
    expect(store.getState().featuresLoaded).toBe(true);
  });

  it('open drafts are kept newest first; approved or discarded ones leave the list', () => {
    const { store } = slowList();
    const s = () => store.getState();
    s().upsertDraft(draft('plan-aaaaaa1', { updatedAt: 5 }));
    s().upsertDraft(draft('plan-bbbbbb2', { updatedAt: 9 }));
    s().upsertDraft(draft('plan-aaaaaa1', { updatedAt: 12, status: 'review', revision: 1 }));
    expect(s().drafts.map((d) => [d.id, d.status])).toEqual([
      ['plan-aaaaaa1', 'review'],
      ['plan-bbbbbb2', 'discussing'],
    ]);
    s().upsertDraft(draft('plan-aaaaaa1', { status: 'approved' }));
    s().upsertDraft(draft('plan-bbbbbb2', { status: 'discarded' }));
    expect(s().drafts).toEqual([]);
  });

  it('a PhaseStarting event times the running phase of its run; other events change nothing', () => {
    const { store } = slowList();
    const s = () => store.getState();
    const base = { runId: 'frun-abcdef1', projectPath: '/r/a', slug: 'a', seq: 1 } as const;
    s().applyFeatureRunEvent({ ...base, ts: 100, data: { type: 'CreatingPr' } });
    expect(s().phaseStartedAt.size).toBe(0);
    s().applyFeatureRunEvent({ ...base, ts: 200, data: { type: 'PhaseStarting', name: 'api', index: 1, resumed: false } });
    expect(s().phaseStartedAt.get('frun-abcdef1')).toBe(200);
  });
});
