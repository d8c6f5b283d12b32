import type { SliceCreator } from '.';
import { sameIfNone } from './lists';
import { BridgeError } from '../../../src-preload/client/client';
import type { PlanDraft, ProjectFeatures } from '../../../src-preload/contract/features';
import type { FeatureRunEvent, FeatureRunInfo } from '../../../src-preload/contract/feature-runs';

export interface FeaturesSlice {
  /** Open plan drafts (discussing, generating, in review) of every project, newest first. */
  drafts: PlanDraft[];
  draftsLoaded: boolean;
  loadDrafts(): Promise<void>;
  /** A draft changed (event or answer): kept while open, dropped once approved or discarded. */
  upsertDraft(draft: PlanDraft): void;

  /** The features of every project as their state files say (the board's source). */
  featureProjects: ProjectFeatures[];
  featuresLoaded: boolean;
  /** Why the list could not be read (shown on the board instead of an empty one). */
  featuresError: string | null;
  /** Re-reads the list; calls made while one is in flight are folded into one more read after it. */
  loadFeatures(): Promise<void>;

  /** Queued, running and recently finished feature runs. */
  featureRuns: FeatureRunInfo[];
  /** When the phase each running run is in started (run id → ms), from its PhaseStarting event. */
  phaseStartedAt: ReadonlyMap<string, number>;
  /** Why the runs could not be read: the board then shows the state files only, and says so. */
  featureRunsError: string | null;
  loadFeatureRuns(): Promise<void>;
  setFeatureRuns(runs: FeatureRunInfo[]): void;
  applyFeatureRunEvent(e: FeatureRunEvent): void;
}

const isOpen = (d: PlanDraft) => d.status !== 'approved' && d.status !== 'discarded';

export const createFeaturesSlice: SliceCreator<FeaturesSlice> = (set, get, client) => {
  let loading: Promise<void> | null = null;
  let again = false;

  const readAll = async () => {
    const { projects } = await client.invoke('features.list', {});
    set({ featureProjects: projects, featuresLoaded: true, featuresError: null });
  };

  /**
   * One project per request, all asked at once, each put in the store as it arrives: the board
   * shows the first project's cards without waiting for the last one's (a project whose state
   * files are being indexed for the first time), and until a project's answer is in it shows
   * what the store already held for it. The order is the projects' order, as one list gives it.
   */
  const readEach = async (ids: readonly string[], ask: readonly string[] = ids) => {
    const got = new Map<string, ProjectFeatures>();
    const gone = new Set<string>();
    const show = () => {
      const held = new Map(get().featureProjects.map((p) => [p.projectId, p]));
      const next = ids.filter((id) => !gone.has(id)).flatMap((id) => got.get(id) ?? held.get(id) ?? []);
      set({ featureProjects: next });
    };
    // Answers that arrive together (the index already made: all of them within a few
    // milliseconds) are shown in one render, not one each: each render of the board lays out
    // the page again. One that arrives alone is shown at once all the same.
    let showing: ReturnType<typeof setTimeout> | null = null;
    const showSoon = () => {
      showing ??= setTimeout(() => {
        showing = null;
        show();
      }, 0);
    };
    let failure: unknown = null;
    await Promise.all(
      ask.map(async (projectId) => {
        try {
          const { projects } = await client.invoke('features.list', { projectId });
          for (const p of projects) got.set(projectId, p);
        } catch (e) {
          // Removed since the projects were listed: its features leave the board with it.
          if (e instanceof BridgeError && e.code === 'not_found') gone.add(projectId);
          else failure ??= e;
        }
        showSoon();
      }),
    );
    if (showing !== null) clearTimeout(showing);
    show();
    if (failure !== null) throw failure;
    set({ featuresLoaded: true, featuresError: null });
  };

  /**
   * At the app's start the projects are not known yet. One list, sent with the app's first
   * requests, answers at once with every project already indexed (the host indexes at its start,
   * and a window usually opens on a warm index), and marks the others (being indexed, a change
   * waiting, or failed); those are then asked one by one and shown as each arrives. Waiting for
   * a projects.list before asking cost a round trip behind the page's first render.
   */
  const readAtStart = async () => {
    const { projects } = await client.invoke('features.list', { indexedOnly: true });
    const waiting = projects.flatMap((p) => (p.indexing && p.projectId !== null ? [p.projectId] : []));
    if (waiting.length === 0) return set({ featureProjects: projects, featuresLoaded: true, featuresError: null });
    // A project being indexed keeps what the store held for it (a read after the first: a reconcile under way), else waits.
    const held = new Map(get().featureProjects.map((p) => [p.projectId, p]));
    set({ featureProjects: projects.flatMap((p) => (!p.indexing ? [p] : (held.get(p.projectId) ?? []))) });
    await readEach(
      projects.flatMap((p) => (p.projectId !== null ? [p.projectId] : [])),
      waiting,
    );
  };

  const readFeatures = async () => {
    try {
      const { projects, projectsLoaded } = get();
      if (!projectsLoaded) return await readAtStart();
      const ids = projects.map((p) => p.id);
      if (ids.length > 1) await readEach(ids);
      else await readAll();
    } catch (e) {
      set({ featuresLoaded: true, featuresError: e instanceof Error ? e.message : String(e) });
    }
  };

  return {
    drafts: [],
    draftsLoaded: false,

    async loadDrafts() {
      try {
        const { drafts } = await client.invoke('features.plan.list', {});
        set({ drafts, draftsLoaded: true });
      } catch (e) {
        get().toastError('Could not load the feature plans', e);
      }
    },

    upsertDraft(draft) {
      set((s) => {
        const rest = s.drafts.filter((d) => d.id !== draft.id);
        return { drafts: isOpen(draft) ? [draft, ...rest].sort((a, b) => b.updatedAt - a.updatedAt) : rest };
      });
    },

    featureProjects: [],
    featuresLoaded: false,
    featuresError: null,

    async loadFeatures() {
      // A burst of features.changed (a run writing state after each phase, a clean removing ten
      // worktrees) becomes at most one read in flight and one after it, never one per event.
      if (loading) {
        again = true;
        return loading;
      }
      loading = (async () => {
        do {
          again = false;
          await readFeatures();
        } while (again);
      })();
      try {
        await loading;
      } finally {
        loading = null;
      }
    },

    featureRuns: [],
    phaseStartedAt: new Map(),
    featureRunsError: null,

    async loadFeatureRuns() {
      try {
        const { runs } = await client.invoke('featureRuns.list', {});
        set({ featureRuns: sameIfNone(runs, get().featureRuns), featureRunsError: null });
      } catch (e) {
        set({ featureRunsError: e instanceof Error ? e.message : String(e) });
      }
    },

    setFeatureRuns(runs) {
      set({ featureRuns: sameIfNone(runs, get().featureRuns), featureRunsError: null });
    },

    applyFeatureRunEvent(e) {
      if (e.data.type !== 'PhaseStarting') return;
      set((s) => ({ phaseStartedAt: new Map(s.phaseStartedAt).set(e.runId, e.ts) }));
    },
  };
};
