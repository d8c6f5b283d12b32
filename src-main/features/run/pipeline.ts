/**
 * The run's plan over a feature's state: whether it can run, where it resumes (the first phase
 * that is not completed; one found `running` was interrupted and resumes with what it already
 * did), and the state transitions of a phase. Pure: takes a state, returns a new one.
 */
import { FeatureError } from '../errors';
import type { FeatureState, PhaseRecord } from '../state';

/** Phase details keys the run keeps in state.yml (free-form `details` of a phase). */
export const DETAIL = {
  /** The commit the phase started from: a resumed phase is shown what it did since. */
  startCommit: 'start_commit',
  skipped: 'skipped',
  reason: 'reason',
  rounds: 'rounds',
  attempts: 'attempts',
} as const;

export type ResumePoint = { index: number; interrupted: boolean } | { index: null };

/**
 * Refuses a state a run cannot continue from, with the reason: finished or merged features, a
 * feature without its review and verify phases, a completed phase after an unfinished one (the
 * record was edited by hand into something no run produces).
 */
export function checkRunnable(state: FeatureState, path: string): void {
  if (state.status === 'merged') throw new FeatureError('state', `the feature "${state.feature.slug}" is merged; there is nothing left to run`, { path });
  if (state.status === 'completed') throw new FeatureError('state', `the feature "${state.feature.slug}" is already completed`, { path });
  const names = state.phases.map((p) => p.name);
  for (const q of ['review', 'verify']) {
    if (!state.phases.some((p) => p.name === q && p.kind === 'quality')) throw new FeatureError('state', `the phases have no "${q}" quality phase; a planned feature always ends with review and verify`, { path });
  }
  if (!state.phases.some((p) => p.kind === 'dev')) throw new FeatureError('state', 'the feature has no development phase', { path });
  let open = false;
  state.phases.forEach((p, i) => {
    if (p.status !== 'completed') open = true;
    else if (open) throw new FeatureError('state', `phase ${i} "${names[i]}" is completed but an earlier phase is not; fix phases[].status by hand`, { path });
  });
}

export function resumePoint(state: FeatureState): ResumePoint {
  const index = state.phases.findIndex((p) => p.status !== 'completed');
  if (index < 0) return { index: null };
  return { index, interrupted: state.phases[index]!.status === 'running' };
}

function withPhase(state: FeatureState, index: number, change: (p: PhaseRecord) => PhaseRecord): FeatureState {
  return { ...state, phases: state.phases.map((p, i) => (i === index ? change(p) : p)) };
}

export function markRunStarted(state: FeatureState): FeatureState {
  // A failed feature run again continues where it failed; a planned one starts.
  return { ...state, status: 'in_progress' };
}

export function markPhaseRunning(state: FeatureState, index: number, now: Date, startCommit: string | null): FeatureState {
  const next = withPhase(state, index, (p) => ({
    ...p,
    status: 'running',
    // A resumed phase keeps when it first started and the commit it started from.
    started_at: p.started_at ?? now.toISOString(),
    completed_at: null,
    details: { ...p.details, ...(p.details[DETAIL.startCommit] === undefined && startCommit ? { [DETAIL.startCommit]: startCommit } : {}) },
  }));
  return { ...next, status: 'in_progress', current_phase: index };
}

export function markPhaseCompleted(state: FeatureState, index: number, now: Date, details: Record<string, unknown> = {}): FeatureState {
  const next = withPhase(state, index, (p) => ({ ...p, status: 'completed', completed_at: now.toISOString(), details: { ...p.details, ...details } }));
  return { ...next, current_phase: Math.min(index + 1, state.phases.length) };
}

export function markPhaseFailed(state: FeatureState, index: number, now: Date, reason: string): FeatureState {
  const next = withPhase(state, index, (p) => ({ ...p, status: 'failed', completed_at: now.toISOString(), details: { ...p.details, [DETAIL.reason]: reason } }));
  return { ...next, status: 'failed', current_phase: index };
}

/** A cancelled or interrupted phase goes back to pending-with-progress: `running` tells the next run to resume it. */
export function markPhasePaused(state: FeatureState, index: number): FeatureState {
  return withPhase(state, index, (p) => ({ ...p, status: 'running' }));
}

export function updatePhase(state: FeatureState, index: number, change: (p: PhaseRecord) => PhaseRecord): FeatureState {
  return withPhase(state, index, change);
}
