import {
  AppError,
  AutopilotExitReason,
  AutopilotLimits,
  AutopilotPhase as AutopilotPhaseSchema,
  AutopilotRunState,
  AutopilotVerification,
} from '../../src-preload/contract';

/**
 * The autopilot's run state and its state machine, pure: the runner performs the side effects
 * (prompts, git, the acceptance command) and reports what happened as events; `transition`
 * says which state comes next and which plan edit the runner must make. Persisted as
 * `.flightdeck/autopilot/state.json` in the worktree, so a killed app resumes from it.
 */

// The schemas live in the contract (the renderer shows the state too); re-exported under the names the runner uses.
export const AutopilotPhase = AutopilotPhaseSchema;
export type AutopilotPhase = AutopilotPhaseSchema;
export const ExitReason = AutopilotExitReason;
export type ExitReason = AutopilotExitReason;
export const VerificationResult = AutopilotVerification;
export type VerificationResult = AutopilotVerification;
export const RunLimits = AutopilotLimits;
export type RunLimits = AutopilotLimits;

/** Three repairs: enough for a model to fix what the validator reported, few enough to stop a model that cannot. */
export const DEFAULT_MAX_PLAN_REPAIRS = 3;

export const RunState = AutopilotRunState;
export type RunState = AutopilotRunState;

/** Failures of the acceptance check made while no step was in Next (the plan said it was finished). */
export const NO_STEP = '(none)';

/** What the runner read from PLAN.md after a plan update. */
export interface PlanFacts {
  valid: boolean;
  nextStepId: string | null;
  backlogCount: number;
  blockedCount: number;
}

export type AutopilotEvent =
  | { type: 'bootstrapped' }
  | { type: 'snapshot_taken' }
  /** The plan update finished; `touchedOtherFiles`: it changed files besides PLAN.md (reverted by the runner). */
  | { type: 'plan_updated'; plan: PlanFacts; touchedOtherFiles: boolean }
  /** The execute prompt finished; `planChanged`: it edited PLAN.md (risk R3). */
  | { type: 'executed'; planChanged: boolean }
  | { type: 'verified'; passed: boolean; exitCode: number | null; summary: string }
  /** S5: the runner read the plan again (the backlog as it stands after the step). */
  | { type: 'decide'; backlogCount: number }
  | { type: 'cancel' }
  | { type: 'failed'; message: string };

/** What the runner has to do on entering the new state, beyond running its prompt. */
export type AutopilotEffect =
  | { type: 'revert_non_plan_changes' }
  | { type: 'revert_plan_change' }
  | { type: 'complete_step'; stepId: string }
  | { type: 'fix_or_replan'; stepId: string | null; summary: string }
  | { type: 'block_step'; stepId: string; reason: string };

export interface Transition {
  state: RunState;
  effects: AutopilotEffect[];
}

export function initialState(limits: Omit<RunLimits, 'maxPlanRepairs'> & { maxPlanRepairs?: number }): RunState {
  return RunState.parse({
    version: 1,
    phase: 'S0_BOOTSTRAP',
    iteration: 0,
    currentStepId: null,
    failures: {},
    planRepairs: 0,
    lastVerification: null,
    exitReason: null,
    blockedStepId: null,
    exitDetail: null,
    limits: { maxPlanRepairs: DEFAULT_MAX_PLAN_REPAIRS, ...limits },
  });
}

function stop(s: RunState, exitReason: ExitReason, detail: string | null, effects: AutopilotEffect[] = []): Transition {
  return { state: { ...s, phase: 'STOPPED', exitReason, exitDetail: detail }, effects };
}

/** Starts the next iteration, or stops when `maxIters` iterations have run. */
function nextIteration(s: RunState, effects: AutopilotEffect[]): Transition {
  if (s.iteration >= s.limits.maxIters) {
    return stop(s, 'max_iters', `${s.iteration} iteration(s) ran without reaching done`, effects);
  }
  return { state: { ...s, phase: 'S1_SNAPSHOT', iteration: s.iteration + 1, replans: 0 }, effects };
}

function unexpected(s: RunState, e: AutopilotEvent): never {
  throw new AppError('internal', `autopilot: event "${e.type}" cannot happen in state ${s.phase}`, { phase: s.phase, event: e.type });
}

/** The state machine. Throws (a programming error) for an event that cannot happen in the current state. */
export function transition(s: RunState, e: AutopilotEvent): Transition {
  if (s.phase === 'STOPPED') unexpected(s, e);
  if (e.type === 'cancel') return stop(s, 'cancelled', null);
  if (e.type === 'failed') return stop(s, 'error', e.message);

  switch (s.phase) {
    case 'S0_BOOTSTRAP':
      if (e.type !== 'bootstrapped') unexpected(s, e);
      return nextIteration(s, []);
    case 'S1_SNAPSHOT':
      if (e.type !== 'snapshot_taken') unexpected(s, e);
      return { state: { ...s, phase: 'S2_PLAN_UPDATE' }, effects: [] };
    case 'S2_PLAN_UPDATE': {
      if (e.type !== 'plan_updated') unexpected(s, e);
      if (e.touchedOtherFiles || !e.plan.valid) {
        const effects: AutopilotEffect[] = e.touchedOtherFiles ? [{ type: 'revert_non_plan_changes' }] : [];
        if (s.planRepairs >= s.limits.maxPlanRepairs) {
          const why = e.touchedOtherFiles ? 'the plan update kept changing files other than PLAN.md' : 'the plan update kept leaving PLAN.md invalid';
          return stop({ ...s, planRepairs: s.planRepairs + 1 }, 'plan_invalid', why, effects);
        }
        return { state: { ...s, planRepairs: s.planRepairs + 1 }, effects };
      }
      const ok = { ...s, planRepairs: 0, currentStepId: e.plan.nextStepId };
      if (e.plan.nextStepId !== null) return { state: { ...ok, phase: 'S3_EXECUTE_STEP' }, effects: [] };
      // Nothing in Next: a blocked step waits for a human; with an empty backlog the plan says
      // it is finished, which only the acceptance command can confirm.
      if (e.plan.blockedCount > 0) return stop({ ...ok, blockedStepId: s.blockedStepId }, 'blocked', 'a blocked step waits for a human decision');
      return { state: { ...ok, phase: 'S4_VERIFY' }, effects: [] };
    }
    case 'S3_EXECUTE_STEP':
      if (e.type !== 'executed') unexpected(s, e);
      if (e.planChanged) {
        // A model that keeps editing the plan while executing would loop S2 → S3 → S2 without
        // ever counting an iteration: it uses up the same repair budget as a bad plan update.
        const effects: AutopilotEffect[] = [{ type: 'revert_plan_change' }];
        if (s.replans >= s.limits.maxPlanRepairs) return stop({ ...s, replans: s.replans + 1 }, 'plan_invalid', 'the execute step kept changing PLAN.md', effects);
        return { state: { ...s, phase: 'S2_PLAN_UPDATE', replans: s.replans + 1 }, effects };
      }
      return { state: { ...s, phase: 'S4_VERIFY' }, effects: [] };
    case 'S4_VERIFY':
      if (e.type !== 'verified') unexpected(s, e);
      return {
        state: {
          ...s,
          phase: 'S5_DECIDE',
          lastVerification: { passed: e.passed, exitCode: e.exitCode, summary: e.summary, stepId: s.currentStepId, iteration: Math.max(1, s.iteration) },
        },
        effects: [],
      };
    case 'S5_DECIDE': {
      if (e.type !== 'decide') unexpected(s, e);
      const v = s.lastVerification!;
      const step = s.currentStepId;
      if (v.passed) {
        const effects: AutopilotEffect[] = step ? [{ type: 'complete_step', stepId: step }] : [];
        const failures = { ...s.failures };
        delete failures[step ?? NO_STEP];
        const after = { ...s, failures };
        if (e.backlogCount === 0) return stop(after, 'done', null, effects);
        return nextIteration(after, effects);
      }
      const key = step ?? NO_STEP;
      const count = (s.failures[key] ?? 0) + 1;
      const failed = { ...s, failures: { ...s.failures, [key]: count } };
      if (step && count > s.limits.maxFixAttemptsPerStep) {
        const reason = `verification failed ${count} time(s) (limit ${s.limits.maxFixAttemptsPerStep} fix attempts); last exit code ${v.exitCode ?? 'none'}`;
        return stop({ ...failed, blockedStepId: step }, 'blocked', reason, [{ type: 'block_step', stepId: step, reason }]);
      }
      return nextIteration(failed, [{ type: 'fix_or_replan', stepId: step, summary: v.summary }]);
    }
  }
}

/**
 * Reads a persisted state (`state.json`). A file that is not JSON or does not fit the schema
 * (edited by hand, written by a newer Flightdeck) is refused with what is wrong, never guessed at:
 * resuming from a wrong state could redo or skip steps.
 */
export function parseRunState(text: string, where = 'state.json'): RunState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new AppError('invalid_input', `${where} is not valid JSON: ${(e as Error).message}`);
  }
  const r = RunState.safeParse(raw);
  if (!r.success) {
    const what = r.error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(top level)'}: ${i.message}`).join('; ');
    throw new AppError('invalid_input', `${where} is not an autopilot run state: ${what}`, { issues: r.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) });
  }
  return r.data;
}
