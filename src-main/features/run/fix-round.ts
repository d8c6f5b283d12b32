/**
 * A fix round asked for after a run: the user's diff comments go to the agent, then review and
 * verify run again as after any fix round. The feature's review and verify phases are opened
 * again (their figures kept: a phase's totals add up every round it ran), and the next run
 * starts at review, where the comments are sent first.
 */
import { AppError } from '../../../src-preload/contract';
import { activeStatePath } from '../scanner';
import { updateState, type FeatureState } from '../state';
import { DETAIL } from './pipeline';

export function reopenForFix(state: FeatureState): FeatureState {
  const slug = state.feature.slug;
  if (state.status === 'merged') throw new AppError('conflict', `The feature "${slug}" is merged: there is no branch left to fix. Comment on a new feature instead.`);
  if (state.status === 'planned') throw new AppError('conflict', `The feature "${slug}" has not run yet: its comments go with its first run's review (feature run ${slug}).`);
  // A run owns the state file while the feature is in progress: reopening its phases under it
  // would reset what it is doing (and its run would refuse a second one anyway).
  if (state.status === 'in_progress') throw new AppError('conflict', `The feature "${slug}" is running or was stopped mid-run: let it finish, or resume or cancel it, then send the comments.`);
  const first = state.phases.findIndex((p) => p.kind === 'quality');
  if (first < 0) throw new AppError('conflict', `The feature "${slug}" has no review or verify phase to run again.`);
  // A run that failed before review reaches it anyway: nothing to reopen.
  if (state.phases.slice(0, first).some((p) => p.status !== 'completed')) return state;
  const phases = state.phases.map((p, i) => {
    if (i < first) return p;
    const { [DETAIL.startCommit]: _start, [DETAIL.reason]: _reason, ...details } = p.details;
    return { ...p, status: 'pending' as const, completed_at: null, details };
  });
  return { ...state, phases, status: 'in_progress', current_phase: first };
}

/** Opens review and verify of the feature's state file again; the next run sends the open comments. */
export async function reopenFeatureForFix(repoRoot: string, slug: string, now: Date): Promise<void> {
  await updateState(activeStatePath(repoRoot, slug), now, reopenForFix);
}
