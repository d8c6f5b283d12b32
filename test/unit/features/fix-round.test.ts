import { describe, expect, it } from 'vitest';
import { reopenForFix } from '../../../src-main/features/run/fix-round';
import { newFeatureState, type FeatureState } from '../../../src-main/features/state';

function state(status: FeatureState['status'], phaseStatus: Array<'pending' | 'running' | 'completed' | 'failed'>): FeatureState {
  const s = newFeatureState({ slug: 'widget', now: new Date('2026-01-01T00:00:00Z'), worktreePath: '.trees/widget', branch: 'feature/widget', baseBranch: 'main', devPhases: ['library'] });
  return { ...s, status, phases: s.phases.map((p, i) => ({ ...p, status: phaseStatus[i]!, details: { start_commit: 'abc', reason: 'x', rounds: [] } })) };
}

describe('a fix round reopens review and verify', () => {
  it('reopens them on a completed or failed feature, keeping their figures and other details', () => {
    const r = reopenForFix(state('completed', ['completed', 'completed', 'completed']));
    expect(r.status).toBe('in_progress');
    expect(r.phases.map((p) => p.status)).toEqual(['completed', 'pending', 'pending']);
    expect(r.phases[1]!.details).toEqual({ rounds: [] });
    expect(r.current_phase).toBe(1);
    expect(reopenForFix(state('failed', ['completed', 'completed', 'failed'])).phases.map((p) => p.status)).toEqual(['completed', 'pending', 'pending']);
    // Failed before review: the next run reaches review anyway.
    const early = state('failed', ['failed', 'pending', 'pending']);
    expect(reopenForFix(early)).toBe(early);
  });

  it('refuses a feature a run owns, one not run yet, and a merged one', () => {
    expect(() => reopenForFix(state('in_progress', ['completed', 'running', 'pending']))).toThrow(/is running or was stopped mid-run/);
    expect(() => reopenForFix(state('planned', ['pending', 'pending', 'pending']))).toThrow(/has not run yet/);
    expect(() => reopenForFix(state('merged', ['completed', 'completed', 'completed']))).toThrow(/is merged/);
  });
});
