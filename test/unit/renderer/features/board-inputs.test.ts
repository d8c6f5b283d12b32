import { describe, expect, it } from 'vitest';
import { createClient } from '../../../../src-preload/client/client';
import type { Transport } from '../../../../src-preload/client/transport';
import { createAppStore } from '../../../../src-renderer/src/store';

/** A transport whose featureRuns.list and autopilot.list answer what the test holds. */
function answering(answers: { runs: unknown[]; autopilot: unknown[] }) {
  const transport: Transport = {
    invoke(channel) {
      if (channel === 'featureRuns.list') return Promise.resolve({ ok: true, value: { runs: answers.runs, limit: 3 } });
      if (channel === 'autopilot.list') return Promise.resolve({ ok: true, value: { runs: answers.autopilot } });
      return Promise.resolve({ ok: true, value: [] });
    },
    subscribe: () => () => undefined,
  };
  return createAppStore(createClient(transport));
}

const run = { id: 'frun-abcdef01', projectPath: '/r', slug: 'alpha', executor: 'builtin', status: 'running', position: null, phase: 'api', message: null, startedAt: 1, endedAt: null, queuedAt: 1 };

describe("the board's inputs keep their identity when nothing is in them", () => {
  // The board builds its thousand cards again whenever one of its inputs is a new object: an
  // empty answer in place of an empty list must not be one (src-renderer/src/features/FeatureBoard.tsx).
  it('an empty run list in place of an empty one is the same list; one with runs is new', async () => {
    const answers = { runs: [] as unknown[], autopilot: [] as unknown[] };
    const store = answering(answers);
    const before = store.getState().featureRuns;
    await store.getState().loadFeatureRuns();
    expect(store.getState().featureRuns).toBe(before);
    store.getState().setFeatureRuns([]);
    expect(store.getState().featureRuns).toBe(before);

    answers.runs = [run];
    await store.getState().loadFeatureRuns();
    expect(store.getState().featureRuns).toEqual([run]);
    const withRun = store.getState().featureRuns;
    // And back to none: that is a change.
    store.getState().setFeatureRuns([]);
    expect(store.getState().featureRuns).not.toBe(withRun);
    expect(store.getState().featureRuns).toEqual([]);
  });

  it('an empty autopilot list in place of an empty one is the same list', async () => {
    const store = answering({ runs: [], autopilot: [] });
    const before = store.getState().autopilotRuns;
    await store.getState().loadAutopilotRuns();
    expect(store.getState().autopilotRuns).toBe(before);
    expect(store.getState().autopilotLoaded).toBe(true);
  });
});
