import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import {
  NO_STEP,
  RunState,
  initialState,
  parseRunState,
  transition,
  type AutopilotEvent,
  type AutopilotPhase,
  type PlanFacts,
  type RunState as RunStateT,
} from '../../../src-main/autopilot/state';

const LIMITS = { maxIters: 5, maxFixAttemptsPerStep: 2 };

function at(phase: AutopilotPhase, patch: Partial<RunStateT> = {}): RunStateT {
  return RunState.parse({ ...initialState(LIMITS), iteration: phase === 'S0_BOOTSTRAP' ? 0 : 1, phase, ...patch });
}

function plan(p: Partial<PlanFacts> = {}): PlanFacts {
  return { valid: true, nextStepId: '001', backlogCount: 1, blockedCount: 0, ...p };
}

/** Runs events from a state; every intermediate state must still satisfy the schema (it is persisted). */
function run(s: RunStateT, events: AutopilotEvent[]) {
  const effects = [];
  for (const e of events) {
    const t = transition(s, e);
    s = RunState.parse(t.state);
    effects.push(...t.effects);
  }
  return { state: s, effects };
}

const passIteration = (stepId: string | null, backlogCount: number): AutopilotEvent[] => [
  { type: 'snapshot_taken' },
  { type: 'plan_updated', plan: plan({ nextStepId: stepId, backlogCount }), touchedOtherFiles: false },
  ...(stepId ? [{ type: 'executed', planChanged: false } as const] : []),
  { type: 'verified', passed: true, exitCode: 0, summary: 'ok' },
  { type: 'decide', backlogCount },
];

describe('autopilot state machine: transition table', () => {
  const table: Array<[string, RunStateT, AutopilotEvent, Partial<RunStateT>, string[]]> = [
    ['S0 bootstrapped → S1, iteration 1', at('S0_BOOTSTRAP'), { type: 'bootstrapped' }, { phase: 'S1_SNAPSHOT', iteration: 1 }, []],
    ['S1 snapshot → S2', at('S1_SNAPSHOT'), { type: 'snapshot_taken' }, { phase: 'S2_PLAN_UPDATE' }, []],
    ['S2 valid plan with Next → S3', at('S2_PLAN_UPDATE'), { type: 'plan_updated', plan: plan(), touchedOtherFiles: false }, { phase: 'S3_EXECUTE_STEP', currentStepId: '001' }, []],
    ['S2 other files touched → revert, retry S2', at('S2_PLAN_UPDATE'), { type: 'plan_updated', plan: plan(), touchedOtherFiles: true }, { phase: 'S2_PLAN_UPDATE', planRepairs: 1 }, ['revert_non_plan_changes']],
    ['S2 invalid plan → retry S2 (repair)', at('S2_PLAN_UPDATE'), { type: 'plan_updated', plan: plan({ valid: false }), touchedOtherFiles: false }, { phase: 'S2_PLAN_UPDATE', planRepairs: 1 }, []],
    ['S2 repairs exhausted → stopped plan_invalid', at('S2_PLAN_UPDATE', { planRepairs: 3 }), { type: 'plan_updated', plan: plan({ valid: false }), touchedOtherFiles: false }, { phase: 'STOPPED', exitReason: 'plan_invalid' }, []],
    ['S2 no Next, backlog empty → S4 (only acceptance decides)', at('S2_PLAN_UPDATE'), { type: 'plan_updated', plan: plan({ nextStepId: null, backlogCount: 0 }), touchedOtherFiles: false }, { phase: 'S4_VERIFY', currentStepId: null }, []],
    ['S2 no Next, a step blocked → stopped blocked', at('S2_PLAN_UPDATE'), { type: 'plan_updated', plan: plan({ nextStepId: null, blockedCount: 1 }), touchedOtherFiles: false }, { phase: 'STOPPED', exitReason: 'blocked' }, []],
    ['S3 executed → S4', at('S3_EXECUTE_STEP', { currentStepId: '001' }), { type: 'executed', planChanged: false }, { phase: 'S4_VERIFY' }, []],
    ['S3 PLAN.md changed during execute → re-plan (S2)', at('S3_EXECUTE_STEP', { currentStepId: '001' }), { type: 'executed', planChanged: true }, { phase: 'S2_PLAN_UPDATE' }, ['revert_plan_change']],
    ['S4 verified → S5 with the result', at('S4_VERIFY', { currentStepId: '001' }), { type: 'verified', passed: false, exitCode: 1, summary: 'boom' }, { phase: 'S5_DECIDE', lastVerification: { passed: false, exitCode: 1, summary: 'boom', stepId: '001', iteration: 1 } }, []],
    ['S5 pass, backlog empty → done', at('S5_DECIDE', { currentStepId: '001', lastVerification: { passed: true, exitCode: 0, summary: '', stepId: '001', iteration: 1 } }), { type: 'decide', backlogCount: 0 }, { phase: 'STOPPED', exitReason: 'done' }, ['complete_step']],
    ['S5 pass, backlog left → next iteration', at('S5_DECIDE', { currentStepId: '001', failures: { '001': 1 }, lastVerification: { passed: true, exitCode: 0, summary: '', stepId: '001', iteration: 1 } }), { type: 'decide', backlogCount: 2 }, { phase: 'S1_SNAPSHOT', iteration: 2, failures: {} }, ['complete_step']],
    ['S5 fail under the limit → fix or re-plan, next iteration', at('S5_DECIDE', { currentStepId: '001', failures: { '001': 1 }, lastVerification: { passed: false, exitCode: 1, summary: 'x', stepId: '001', iteration: 1 } }), { type: 'decide', backlogCount: 2 }, { phase: 'S1_SNAPSHOT', iteration: 2, failures: { '001': 2 } }, ['fix_or_replan']],
    ['S5 fail over max_fix_attempts_per_step → blocked', at('S5_DECIDE', { currentStepId: '001', failures: { '001': 2 }, lastVerification: { passed: false, exitCode: 1, summary: 'x', stepId: '001', iteration: 1 } }), { type: 'decide', backlogCount: 2 }, { phase: 'STOPPED', exitReason: 'blocked', blockedStepId: '001', failures: { '001': 3 } }, ['block_step']],
    ['S5 fail with no step → counted under no-step, fix or re-plan', at('S5_DECIDE', { currentStepId: null, lastVerification: { passed: false, exitCode: 2, summary: 'x', stepId: null, iteration: 1 } }), { type: 'decide', backlogCount: 0 }, { phase: 'S1_SNAPSHOT', failures: { [NO_STEP]: 1 } }, ['fix_or_replan']],
    ['S5 at max_iters → stopped max_iters', at('S5_DECIDE', { iteration: 5, currentStepId: '001', lastVerification: { passed: true, exitCode: 0, summary: '', stepId: '001', iteration: 5 } }), { type: 'decide', backlogCount: 1 }, { phase: 'STOPPED', exitReason: 'max_iters', iteration: 5 }, ['complete_step']],
    ['cancel from any state → stopped cancelled', at('S3_EXECUTE_STEP'), { type: 'cancel' }, { phase: 'STOPPED', exitReason: 'cancelled' }, []],
    ['failure from any state → stopped error with the message', at('S4_VERIFY'), { type: 'failed', message: 'git missing' }, { phase: 'STOPPED', exitReason: 'error', exitDetail: 'git missing' }, []],
  ];

  for (const [name, from, event, expected, effects] of table) {
    it(name, () => {
      const t = transition(from, event);
      expect(RunState.safeParse(t.state).success).toBe(true);
      expect(t.state).toMatchObject(expected);
      expect(t.effects.map((e) => e.type)).toEqual(effects);
    });
  }

  it('refuses events that cannot happen in a state, and any event after the run stopped', () => {
    expect(() => transition(at('S1_SNAPSHOT'), { type: 'executed', planChanged: false })).toThrow(AppError);
    expect(() => transition(at('S0_BOOTSTRAP'), { type: 'decide', backlogCount: 0 })).toThrow(/cannot happen in state S0_BOOTSTRAP/);
    const stopped = transition(at('S1_SNAPSHOT'), { type: 'cancel' }).state;
    expect(() => transition(stopped, { type: 'snapshot_taken' })).toThrow(/STOPPED/);
  });
});

describe('autopilot state machine: whole runs', () => {
  it('reaches done after two passing steps', () => {
    const r = run(initialState(LIMITS), [{ type: 'bootstrapped' }, ...passIteration('001', 1), ...passIteration('002', 0)]);
    expect(r.state).toMatchObject({ phase: 'STOPPED', exitReason: 'done', iteration: 2 });
    expect(r.effects).toEqual([
      { type: 'complete_step', stepId: '001' },
      { type: 'complete_step', stepId: '002' },
    ]);
  });

  it('is done at once when the plan is finished and acceptance already passes', () => {
    const r = run(initialState(LIMITS), [{ type: 'bootstrapped' }, ...passIteration(null, 0)]);
    expect(r.state).toMatchObject({ phase: 'STOPPED', exitReason: 'done', iteration: 1 });
    expect(r.effects).toEqual([]);
  });

  it('blocks a step after max_fix_attempts_per_step failed fixes, with the reason', () => {
    const fail: AutopilotEvent[] = [
      { type: 'snapshot_taken' },
      { type: 'plan_updated', plan: plan(), touchedOtherFiles: false },
      { type: 'executed', planChanged: false },
      { type: 'verified', passed: false, exitCode: 1, summary: 'AssertionError' },
      { type: 'decide', backlogCount: 1 },
    ];
    const r = run(initialState(LIMITS), [{ type: 'bootstrapped' }, ...fail, ...fail, ...fail]);
    expect(r.state).toMatchObject({ phase: 'STOPPED', exitReason: 'blocked', blockedStepId: '001', iteration: 3 });
    expect(r.effects.map((e) => e.type)).toEqual(['fix_or_replan', 'fix_or_replan', 'block_step']);
    expect(r.effects[2]).toMatchObject({ stepId: '001', reason: expect.stringMatching(/failed 3 time\(s\).*limit 2.*exit code 1/) });
  });

  it('stops at max_iters when the acceptance keeps failing without a step', () => {
    const events: AutopilotEvent[] = [{ type: 'bootstrapped' }];
    for (let i = 0; i < LIMITS.maxIters; i++) {
      events.push(
        { type: 'snapshot_taken' },
        { type: 'plan_updated', plan: plan({ nextStepId: null, backlogCount: 0 }), touchedOtherFiles: false },
        { type: 'verified', passed: false, exitCode: 1, summary: 'red' },
        { type: 'decide', backlogCount: 0 },
      );
    }
    const r = run(initialState(LIMITS), events);
    expect(r.state).toMatchObject({ phase: 'STOPPED', exitReason: 'max_iters', iteration: 5 });
  });

  it('a good plan update resets the repair count', () => {
    const r = run(at('S2_PLAN_UPDATE'), [
      { type: 'plan_updated', plan: plan({ valid: false }), touchedOtherFiles: false },
      { type: 'plan_updated', plan: plan({ valid: false }), touchedOtherFiles: false },
      { type: 'plan_updated', plan: plan(), touchedOtherFiles: false },
    ]);
    expect(r.state).toMatchObject({ phase: 'S3_EXECUTE_STEP', planRepairs: 0 });
  });

  it('the persisted state rejects malformed input', () => {
    const good = initialState(LIMITS);
    expect(RunState.safeParse(JSON.parse(JSON.stringify(good))).success).toBe(true);
    for (const bad of [
      { ...good, phase: 'S9_DREAM' },
      { ...good, iteration: -1 },
      { ...good, version: 2 },
      { ...good, failures: { '001': 1.5 } },
      { ...good, limits: { ...good.limits, maxIters: 0 } },
      { ...good, exitReason: 'bored' },
    ]) {
      expect(RunState.safeParse(bad).success).toBe(false);
    }
  });

  it('reads a persisted state back, and refuses a damaged one with what is wrong', () => {
    const mid = run(initialState(LIMITS), [{ type: 'bootstrapped' }, { type: 'snapshot_taken' }]).state;
    expect(parseRunState(JSON.stringify(mid, null, 2))).toEqual(mid);
    expect(() => parseRunState('{"version":1,')).toThrow(/state.json is not valid JSON/);
    expect(() => parseRunState(JSON.stringify({ ...mid, iteration: 'two' }), '/w/.flightdeck/autopilot/state.json')).toThrow(
      /\/w\/.flightdeck\/autopilot\/state.json is not an autopilot run state: iteration: /,
    );
    expect(() => parseRunState('null')).toThrow(/\(top level\)/);
  });
});
