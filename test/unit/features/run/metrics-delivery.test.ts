import { describe, expect, it } from 'vitest';
import { findPrUrl } from '../../../../src-main/features/run/delivery';
import { addToPhase, CumulativeTracker } from '../../../../src-main/features/run/metrics';
import { newFeatureState, sumPhases } from '../../../../src-main/features/state';

describe('CumulativeTracker (cumulative figures → per-interaction deltas)', () => {
  it('turns 0.50, 0.80, 1.20 into 0.50, 0.30, 0.40 (and tokens alike)', () => {
    const t = new CumulativeTracker();
    const d1 = t.delta({ turns: 2, costUsd: 0.5, inputTokens: 1000, outputTokens: 100 });
    const d2 = t.delta({ turns: 3, costUsd: 0.8, inputTokens: 1500, outputTokens: 180 });
    const d3 = t.delta({ turns: 5, costUsd: 1.2, inputTokens: 2600, outputTokens: 300 });
    expect([d1.costUsd, d2.costUsd, d3.costUsd]).toEqual([0.5, 0.3, 0.4]);
    expect([d1.inputTokens, d2.inputTokens, d3.inputTokens]).toEqual([1000, 500, 1100]);
    expect([d1.turns, d2.turns, d3.turns]).toEqual([2, 1, 2]);
  });

  it('treats a lower reading as a counter that started over', () => {
    const t = new CumulativeTracker({ turns: 4, costUsd: 1, inputTokens: 10, outputTokens: 10 });
    expect(t.delta({ turns: 1, costUsd: 0.2, inputTokens: 3, outputTokens: 2 })).toEqual({ turns: 1, costUsd: 0.2, inputTokens: 3, outputTokens: 2 });
  });

  it('accumulated per phase, the totals are the sum of the phases', () => {
    const s = newFeatureState({ slug: 'x', now: new Date(0), worktreePath: '.trees/x', branch: 'feature/x', baseBranch: 'main', devPhases: ['a'] });
    const t = new CumulativeTracker();
    let review = s.phases[1]!;
    // A review round (review + fix) twice: four interactions, one phase.
    for (const cum of [0.1, 0.25, 0.3, 0.55]) review = addToPhase(review, t.delta({ turns: 0, costUsd: cum, inputTokens: 0, outputTokens: 0 }), 1.5);
    expect(review.cost_usd).toBeCloseTo(0.55, 10);
    expect(review.duration_secs).toBe(6);
    const dev = addToPhase(s.phases[0]!, { turns: 3, costUsd: 0.2, inputTokens: 5, outputTokens: 6 }, 2);
    expect(sumPhases([dev, review, s.phases[2]!]).cost_usd).toBeCloseTo(0.75, 10);
  });
});

describe('PR URLs (compare pages: test/unit/git/forge.test.ts)', () => {
  it('finds the last PR URL in text or tool output', () => {
    expect(findPrUrl('Opened https://github.com/o/r/pull/41 then https://github.com/o/r/pull/42.')).toEqual({ url: 'https://github.com/o/r/pull/42', number: 42 });
    expect(findPrUrl('MR: https://gitlab.com/g/sub/r/-/merge_requests/7')).toEqual({ url: 'https://gitlab.com/g/sub/r/-/merge_requests/7', number: 7 });
    expect(findPrUrl('see https://github.com/o/r/pulls and https://github.com/o/r/pull/3/files')).toBeNull();
    expect(findPrUrl('nothing here')).toBeNull();
  });
});
