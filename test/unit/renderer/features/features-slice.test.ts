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

/** A transport whose features.list answers, per project asked, are released by the test in any order. */
function perProjectList(hostProjects: unknown[] = []) {
  const asked: Array<string | undefined> = [];
  const inputs: unknown[] = [];
  const answer = new Map<string, (r: { ok: true; value: { projects: ProjectFeatures[] } } | { ok: false; error: { code: 'not_found'; message: string } }) => void>();
  const transport: Transport = {
    invoke(channel, input) {
      if (channel === 'projects.list') return Promise.resolve({ ok: true, value: hostProjects });
      if (channel !== 'features.list') return Promise.resolve({ ok: true, value: [] });
      const id = (input as { projectId?: string }).projectId;
      asked.push(id);
      inputs.push(input);
      return new Promise((resolve) => answer.set(id ?? '*', resolve));
    },
    subscribe: () => () => undefined,
  };
  return { store: createAppStore(createClient(transport)), asked, answer, inputs };
}

const inProject = (projectId: string, slugs: string[]): ProjectFeatures => ({
  projectId,
  name: projectId,
  repoRoot: `/r/${projectId}`,
  features: slugs.map((slug) => ({ projectId, repoRoot: `/r/${projectId}`, slug, source: 'active', status: 'planned', branch: null, baseBranch: null, worktreePath: null, turns: 0, costUsd: 0, currentPhase: null, createdAt: null, updatedAt: null, statePath: null, problem: null, issue: null })),
  problems: [],
  error: null,
});
function projectRow(id: string) {
  return { id, name: id, path: `/r/${id}`, addedAt: 1, git: null, problem: null, refreshedAt: null };
}
/** Until the answers released so far are shown: the slice shows them once the task they arrived in is over. */
const flush = () => new Promise((r) => setTimeout(() => setTimeout(r, 0), 0));
const shown = (store: ReturnType<typeof createAppStore>) => store.getState().featureProjects.map((p) => `${p.projectId}:${p.features.map((f) => f.slug).join(',')}`);

describe('the features slice streams the board one project at a time', () => {
  it('shows each project as its answer arrives, in the projects order, keeping what the store held for the others', async () => {
    const { store, asked, answer } = perProjectList();
    store.getState().setProjects([projectRow('p1'), projectRow('p2'), projectRow('p3')]);
    // What the store already holds from an earlier list.
    store.setState({ featureProjects: [inProject('p1', ['old-a']), inProject('p2', ['old-b'])] });

    const loading = store.getState().loadFeatures();
    expect(asked).toEqual(['p1', 'p2', 'p3']);
    answer.get('p3')!({ ok: true, value: { projects: [inProject('p3', ['c'])] } });
    await flush();
    expect(shown(store)).toEqual(['p1:old-a', 'p2:old-b', 'p3:c']);
    answer.get('p1')!({ ok: true, value: { projects: [inProject('p1', ['a1', 'a2'])] } });
    await flush();
    expect(shown(store)).toEqual(['p1:a1,a2', 'p2:old-b', 'p3:c']);
    // p2 left Flightdeck meanwhile: its cards leave the board, nothing is reported as an error.
    answer.get('p2')!({ ok: false, error: { code: 'not_found', message: 'That project is no longer in Flightdeck.' } });
    await loading;
    expect(shown(store)).toEqual(['p1:a1,a2', 'p3:c']);
    expect(store.getState().featuresError).toBeNull();
    expect(store.getState().featuresLoaded).toBe(true);
  });

  it('at the start, one list shows every project already indexed at once; those still indexing are asked one by one and shown as each arrives', async () => {
    const { store, asked, answer, inputs } = perProjectList();
    const loading = store.getState().loadFeatures();
    // No projects.list first: the start's list goes out with the app's first requests, for what is indexed.
    expect(asked).toEqual([undefined]);
    expect(inputs[0]).toEqual({ indexedOnly: true });
    answer.get('*')!({ ok: true, value: { projects: [inProject('p1', ['a']), { ...inProject('p2', []), indexing: true }, { ...inProject('p3', []), indexing: true }] } });
    await flush();
    expect(asked).toEqual([undefined, 'p2', 'p3']);
    // The indexed project at once; the others are not shown empty while they are indexed.
    expect(shown(store)).toEqual(['p1:a']);
    answer.get('p3')!({ ok: true, value: { projects: [inProject('p3', ['c'])] } });
    await flush();
    expect(shown(store)).toEqual(['p1:a', 'p3:c']);
    answer.get('p2')!({ ok: true, value: { projects: [inProject('p2', ['b'])] } });
    await loading;
    expect(shown(store)).toEqual(['p1:a', 'p2:b', 'p3:c']);
    expect(store.getState().featuresLoaded).toBe(true);
  });

  it('a project being indexed keeps the cards the store held for it while it is asked alone', async () => {
    const { store, answer } = perProjectList();
    // Read before (the projects' own list failed, so the store still does not know them).
    store.setState({ featureProjects: [inProject('p1', ['old-a']), inProject('p2', ['old-b'])], featuresLoaded: true });
    const loading = store.getState().loadFeatures();
    answer.get('*')!({ ok: true, value: { projects: [inProject('p1', ['a']), { ...inProject('p2', []), indexing: true }] } });
    await flush();
    expect(shown(store)).toEqual(['p1:a', 'p2:old-b']);
    answer.get('p2')!({ ok: true, value: { projects: [inProject('p2', ['b'])] } });
    await loading;
    expect(shown(store)).toEqual(['p1:a', 'p2:b']);
  });

  it('at the start, a list with every project indexed is the whole board: nothing more is asked', async () => {
    const { store, asked, answer } = perProjectList();
    const loading = store.getState().loadFeatures();
    answer.get('*')!({ ok: true, value: { projects: [inProject('p1', ['a']), inProject('p2', ['b'])] } });
    await loading;
    expect(asked).toEqual([undefined]);
    expect(shown(store)).toEqual(['p1:a', 'p2:b']);
    expect(store.getState().featuresLoaded).toBe(true);
  });

  it('answers that arrive together are shown in one update, not one each', async () => {
    const { store, answer } = perProjectList();
    store.getState().setProjects([projectRow('p1'), projectRow('p2'), projectRow('p3')]);
    const updates: string[][] = [];
    const off = store.subscribe((s, before) => {
      if (s.featureProjects !== before.featureProjects) updates.push(shown(store));
    });
    const loading = store.getState().loadFeatures();
    answer.get('p1')!({ ok: true, value: { projects: [inProject('p1', ['a'])] } });
    answer.get('p2')!({ ok: true, value: { projects: [inProject('p2', ['b'])] } });
    await flush();
    answer.get('p3')!({ ok: true, value: { projects: [inProject('p3', ['c'])] } });
    await loading;
    off();
    // p1 and p2 together, then p3 (shown as the list ends).
    expect(updates).toEqual([
      ['p1:a', 'p2:b'],
      ['p1:a', 'p2:b', 'p3:c'],
    ]);
  });

  it('asks for every project in one list when there is only one', async () => {
    const { store, asked, answer } = perProjectList();
    store.getState().setProjects([projectRow('p1')]);
    const loading = store.getState().loadFeatures();
    await flush();
    expect(asked).toEqual([undefined]);
    answer.get('*')!({ ok: true, value: { projects: [inProject('p1', ['a'])] } });
    await loading;
    expect(shown(store)).toEqual(['p1:a']);
  });
});

describe('the features slice', () => {
  it('a burst of features.changed while a list is read becomes one more read, with the newest answer kept', async () => {
    const { store, calls, pending } = slowList();
    const first = store.getState().loadFeatures();
    void store.getState().loadFeatures();
    void store.getState().loadFeatures();
    void store.getState().loadFeatures();
    // (The projects are asked for first: the store does not know them yet.)
    await new Promise((r) => setTimeout(r, 0));
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
    await new Promise((r) => setTimeout(r, 0));
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
