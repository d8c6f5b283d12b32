import { describe, expect, it } from 'vitest';
import { AutopilotRunState, AutopilotStartInput, requests } from '../../../src-preload/contract';

describe('autopilot contract', () => {
  it('start input: defaults, and malformed input refused', () => {
    expect(AutopilotStartInput.parse({ repo: '/r', goal: ' g ', testCmd: 'npm test' })).toEqual({
      repo: '/r',
      goal: 'g',
      testCmd: 'npm test',
      seedFiles: [],
      maxIters: 20,
      maxFixAttempts: 3,
      executor: 'builtin',
      profile: null,
      commit: false,
      compactEvery: 5,
      acceptanceTimeoutS: 600,
      // The acceptance command runs sandboxed unless the run explicitly says otherwise.
      acceptanceUnsandboxed: false,
    });
    const bad: unknown[] = [
      { goal: 'g', testCmd: 't' }, // no repository
      { repo: '/r', goal: '   ', testCmd: 't' },
      { repo: '/r', goal: 'g', testCmd: '' },
      { repo: '/r', goal: 'g', testCmd: 't', maxIters: 0 },
      { repo: '/r', goal: 'g', testCmd: 't', maxFixAttempts: -1 },
      { repo: '/r', goal: 'g', testCmd: 't', executor: 'aider' },
      { repo: '/r', goal: 'g', testCmd: 't', extra: 1 },
      { repo: '/r', goal: 'x'.repeat(2001), testCmd: 't' },
      { repo: '/r', goal: 'g', testCmd: 't', acceptanceUnsandboxed: 'yes' }, // only an explicit boolean
    ];
    for (const b of bad) expect(AutopilotStartInput.safeParse(b).success, JSON.stringify(b).slice(0, 80)).toBe(false);
  });

  it('answer input: step ids are digits, the answer is not empty', () => {
    const answer = requests['autopilot.answer'].input;
    expect(answer.safeParse({ runId: 'ap-1', stepId: '001', answer: 'yes' }).success).toBe(true);
    expect(answer.safeParse({ runId: 'ap-1', stepId: '1', answer: 'yes' }).success).toBe(false);
    expect(answer.safeParse({ runId: 'ap-1', stepId: '001', answer: '  ' }).success).toBe(false);
  });

  it('a state written before `replans` existed still reads (it defaults to 0)', () => {
    const old = { version: 1, phase: 'S2_PLAN_UPDATE', iteration: 1, currentStepId: null, failures: {}, planRepairs: 0, lastVerification: null, exitReason: null, blockedStepId: null, exitDetail: null, limits: { maxIters: 3, maxFixAttemptsPerStep: 1, maxPlanRepairs: 3 } };
    expect(AutopilotRunState.parse(old).replans).toBe(0);
  });
});
