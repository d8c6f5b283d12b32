import { describe, expect, it } from 'vitest';
import { checkRunnable, markPhaseCompleted, markPhaseFailed, markPhaseRunning, resumePoint } from '../../../../src-main/features/run/pipeline';
import { newFeatureState, type FeatureState } from '../../../../src-main/features/state';

const base = (): FeatureState => newFeatureState({ slug: 'demo', now: new Date(0), worktreePath: '.trees/demo', branch: 'feature/demo', baseBranch: 'main', devPhases: ['one', 'two'] });

describe('run pipeline over state', () => {
  it('resumes from the first phase not completed, and says when it was interrupted', () => {
    let s = base();
    expect(resumePoint(s)).toEqual({ index: 0, interrupted: false });
    s = markPhaseRunning(s, 0, new Date(1000), 'abc');
    expect(s.status).toBe('in_progress');
    expect(s.phases[0]!.details.start_commit).toBe('abc');
    expect(resumePoint(s)).toEqual({ index: 0, interrupted: true });
    s = markPhaseCompleted(s, 0, new Date(2000));
    expect(s.current_phase).toBe(1);
    expect(resumePoint(s)).toEqual({ index: 1, interrupted: false });
    // A resumed phase keeps its first start and start commit.
    s = markPhaseRunning(s, 1, new Date(3000), 'def');
    s = markPhaseRunning(s, 1, new Date(9000), 'zzz');
    expect(s.phases[1]!.started_at).toBe(new Date(3000).toISOString());
    expect(s.phases[1]!.details.start_commit).toBe('def');
    s = markPhaseFailed(s, 1, new Date(4000), 'boom');
    expect(s.status).toBe('failed');
    expect(s.phases[1]!.details.reason).toBe('boom');
    for (const i of [1, 2, 3]) s = markPhaseCompleted(s, i, new Date(5000));
    expect(resumePoint(s)).toEqual({ index: null });
  });

  it('refuses states a run cannot continue from', () => {
    const done = { ...base(), status: 'completed' as const };
    expect(() => checkRunnable(done, 'p')).toThrow(/already completed/);
    expect(() => checkRunnable({ ...base(), status: 'merged' }, 'p')).toThrow(/merged/);
    const noVerify = { ...base(), phases: base().phases.filter((p) => p.name !== 'verify') };
    expect(() => checkRunnable(noVerify, 'p')).toThrow(/"verify"/);
    const gap = base();
    gap.phases[1] = { ...gap.phases[1]!, status: 'completed' };
    expect(() => checkRunnable(gap, 'p')).toThrow(/earlier phase is not/);
    expect(() => checkRunnable(base(), 'p')).not.toThrow();
  });
});
