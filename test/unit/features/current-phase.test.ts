import { describe, expect, it } from 'vitest';
import { currentPhaseOf } from '../../../src-main/features/feature-service';
import { newFeatureState } from '../../../src-main/features/state';
import { FeatureSummary } from '../../../src-preload/contract/features';

const state = () => newFeatureState({ slug: 'auth', now: new Date('2026-11-23T10:00:00Z'), worktreePath: '.trees/auth', branch: 'feature/auth', baseBranch: 'main', devPhases: ['types', 'api'] });

describe("a feature's current phase (the board's card)", () => {
  it('is the phase current_phase points at, with its place and status', () => {
    const s = state();
    expect(currentPhaseOf(s)).toEqual({ name: 'types', index: 0, count: 4, status: 'pending', startedAt: null });
    const running = { ...s, current_phase: 1, phases: s.phases.map((p, i) => (i === 1 ? { ...p, status: 'running' as const, started_at: '2026-11-23T10:05:00.000Z' } : p)) };
    expect(currentPhaseOf(running)).toEqual({ name: 'api', index: 1, count: 4, status: 'running', startedAt: '2026-11-23T10:05:00.000Z' });
  });

  it('is null once every phase is done (current_phase past the last)', () => {
    expect(currentPhaseOf({ ...state(), current_phase: 4 })).toBeNull();
  });

  it('fits the contract of features.list, and the contract refuses a malformed one', () => {
    const base = { projectId: null, repoRoot: '/r', slug: 'auth', source: 'active', status: 'planned', branch: 'feature/auth', baseBranch: 'main', worktreePath: '.trees/auth', turns: 0, costUsd: 0, createdAt: null, updatedAt: null, statePath: null, problem: null };
    expect(FeatureSummary.safeParse({ ...base, currentPhase: currentPhaseOf(state()) }).success).toBe(true);
    expect(FeatureSummary.safeParse({ ...base, currentPhase: null }).success).toBe(true);
    expect(FeatureSummary.safeParse({ ...base, currentPhase: { name: 'x', index: -1, count: 1, status: 'pending', startedAt: null } }).success).toBe(false);
    expect(FeatureSummary.safeParse({ ...base, currentPhase: { name: 'x', index: 0, count: 1, status: 'paused', startedAt: null } }).success).toBe(false);
  });
});
