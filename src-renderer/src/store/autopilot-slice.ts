import type { SliceCreator } from '.';
import { sameIfNone } from './lists';
import type { AutopilotIteration, AutopilotPlanView, AutopilotRun, AutopilotStartInput } from '../../../src-preload/contract';

export interface AutopilotDetail {
  plan: AutopilotPlanView | null;
  iterations: AutopilotIteration[];
}

export interface AutopilotSlice {
  /** Every run, newest first. */
  autopilotRuns: AutopilotRun[];
  autopilotLoaded: boolean;
  /** Why the runs could not be read (shown instead of an empty list). */
  autopilotError: string | null;
  /** Plan and timeline of the runs that were opened (run id → detail). */
  autopilotDetails: ReadonlyMap<string, AutopilotDetail>;
  loadAutopilotRuns(): Promise<void>;
  loadAutopilotRun(runId: string): Promise<void>;
  /** A run changed (the `autopilot.changed` event). */
  applyAutopilotChange(run: AutopilotRun, iteration: AutopilotIteration | null): void;
  startAutopilotRun(input: AutopilotStartInput): Promise<AutopilotRun>;
  autopilotAction(action: 'pause' | 'resume' | 'cancel', runId: string): Promise<void>;
  answerAutopilotStep(runId: string, stepId: string, answer: string): Promise<void>;
}

function upsert(runs: AutopilotRun[], run: AutopilotRun): AutopilotRun[] {
  const i = runs.findIndex((r) => r.id === run.id);
  if (i === -1) return [run, ...runs].sort((a, b) => b.createdAt - a.createdAt);
  const next = runs.slice();
  next[i] = run;
  return next;
}

export const createAutopilotSlice: SliceCreator<AutopilotSlice> = (set, get, client) => {
  /** Plan re-reads are folded: a burst of changes (one per state) reads the plan once more after the one in flight. */
  const reading = new Map<string, { again: boolean }>();

  const readDetail = async (runId: string): Promise<void> => {
    const r = reading.get(runId);
    if (r) {
      r.again = true;
      return;
    }
    const entry = { again: false };
    reading.set(runId, entry);
    try {
      do {
        entry.again = false;
        const { run, plan, iterations } = await client.invoke('autopilot.get', { runId });
        const details = new Map(get().autopilotDetails);
        details.set(runId, { plan, iterations });
        set({ autopilotDetails: details, autopilotRuns: upsert(get().autopilotRuns, run) });
      } while (entry.again);
    } finally {
      reading.delete(runId);
    }
  };

  return {
    autopilotRuns: [],
    autopilotLoaded: false,
    autopilotError: null,
    autopilotDetails: new Map(),
    async loadAutopilotRuns() {
      try {
        const { runs } = await client.invoke('autopilot.list', {});
        set({ autopilotRuns: sameIfNone(runs, get().autopilotRuns), autopilotLoaded: true, autopilotError: null });
      } catch (e) {
        set({ autopilotLoaded: true, autopilotError: e instanceof Error ? e.message : String(e) });
      }
    },
    loadAutopilotRun: (runId) => readDetail(runId),
    applyAutopilotChange(run) {
      set({ autopilotRuns: upsert(get().autopilotRuns, run) });
      // Only runs someone opened keep a plan and timeline in memory.
      // A failed re-read keeps the last plan on screen; the next change (or reopening the run) reads it again.
      if (get().autopilotDetails.has(run.id)) void readDetail(run.id).catch(() => undefined);
    },
    async startAutopilotRun(input) {
      const { run } = await client.invoke('autopilot.start', input);
      set({ autopilotRuns: upsert(get().autopilotRuns, run) });
      return run;
    },
    async autopilotAction(action, runId) {
      const { run } = await client.invoke(`autopilot.${action}`, { runId });
      set({ autopilotRuns: upsert(get().autopilotRuns, run) });
    },
    async answerAutopilotStep(runId, stepId, answer) {
      const { run } = await client.invoke('autopilot.answer', { runId, stepId, answer });
      set({ autopilotRuns: upsert(get().autopilotRuns, run) });
      await readDetail(runId);
    },
  };
};
