import { describe, expect, it } from 'vitest';
import { CandidateStartInput, requests } from '../../../src-preload/contract';

const PROJECT = 'p-123456';

describe('featureCandidates contract', () => {
  const start = (over: Record<string, unknown>) => CandidateStartInput.safeParse({ projectId: PROJECT, slug: 'calc', candidates: [{}, {}], ...over });

  it('takes 2 to 5 candidates, each with an optional executor, model, profile and placement; the budget split by default', () => {
    const ok = start({ candidates: [{ executor: 'claude-code', model: 'claude-sonnet-5' }, { executor: 'builtin', profile: 'work', placement: { kind: 'host' } }] });
    expect(ok.success).toBe(true);
    expect(ok.data).toMatchObject({ budget: { mode: 'split' }, confirm: true });
    expect(start({ candidates: [{}, {}, {}, {}, {}] }).success).toBe(true);
    expect(start({ budget: { mode: 'each', usd: 2.5 } }).success).toBe(true);
  });

  it('refuses one, six, unknown keys, flag-like or spaced names, unknown executors, budgets at or below zero', () => {
    for (const bad of [
      { candidates: [{}] },
      { candidates: [{}, {}, {}, {}, {}, {}] },
      { candidates: [{ executor: 'gpt' }, {}] },
      { candidates: [{ model: '--dangerously-skip-permissions' }, {}] },
      { candidates: [{ profile: 'my profile' }, {}] },
      { candidates: [{ model: '' }, {}] },
      { candidates: [{ cwd: '/etc' }, {}] },
      { budget: { mode: 'each', usd: 0 } },
      { budget: { mode: 'each' } },
      { budget: { mode: 'split', totalUsd: -1 } },
      { budget: { mode: 'all' } },
      { slug: 'calc--c1' },
      { slug: '../x' },
      { extra: true },
    ]) {
      expect(start(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('pick, diff and the rest name a candidate 1–5 of a feature, nothing else', () => {
    const pick = requests['featureCandidates.pick'].input;
    expect(pick.safeParse({ projectId: PROJECT, slug: 'calc', candidate: 3 }).success).toBe(true);
    for (const candidate of [0, 6, 1.5, '2', null]) expect(pick.safeParse({ projectId: PROJECT, slug: 'calc', candidate }).success, String(candidate)).toBe(false);
    const diff = requests['featureCandidates.diff'].input;
    expect(diff.safeParse({ projectId: PROJECT, slug: 'calc', candidate: 1, against: 2 }).success).toBe(true);
    expect(diff.safeParse({ projectId: PROJECT, slug: 'calc', candidate: 1, against: 9 }).success).toBe(false);
    for (const ch of ['featureCandidates.compare', 'featureCandidates.judge', 'featureCandidates.cancel', 'featureCandidates.discard'] as const) {
      expect(requests[ch].input.safeParse({ projectId: PROJECT, slug: 'calc' }).success, ch).toBe(true);
      expect(requests[ch].input.safeParse({ projectId: PROJECT, slug: 'calc', candidate: 1 }).success, ch).toBe(false);
    }
  });
});
