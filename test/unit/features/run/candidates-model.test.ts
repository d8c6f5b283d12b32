import { describe, expect, it } from 'vitest';
import { archiveRef, candidateBranch, candidateBudgets, candidateProgress, candidateWorktree, isTestFile, parseJudgeAnswer, parseNumstat } from '../../../../src-main/features/run/candidates-model';
import type { RunEventData } from '../../../../src-preload/contract';

describe('candidate names', () => {
  it('branch, worktree and archive ref carry the label; a slug never has two hyphens, so none collides with a feature', () => {
    expect(candidateBranch('feature/calc', 2)).toBe('feature/calc--c2');
    expect(candidateWorktree('calc', 3)).toBe('.trees/calc--c3');
    expect(archiveRef('calc', 'cand-x', 1)).toBe('refs/flightdeck/archive/calc/cand-x/c1');
  });
});

describe('candidate budgets', () => {
  it('split: the feature budget shared, rounded down to the cent so they never exceed it together; each: the same for all', () => {
    expect(candidateBudgets({ mode: 'split' }, 3, 20)).toEqual({ each: 6.66, total: 20 });
    expect(candidateBudgets({ mode: 'split', totalUsd: 10 }, 4, 20)).toEqual({ each: 2.5, total: 10 });
    expect(candidateBudgets({ mode: 'each', usd: 3 }, 5, 20)).toEqual({ each: 3, total: 15 });
    const s = candidateBudgets({ mode: 'split' }, 3, 1);
    expect(s.each * 3).toBeLessThanOrEqual(1);
  });
});

describe("a candidate from its runs' events", () => {
  const phases = (done: string[] = []): RunEventData => ({
    type: 'RunStarting',
    phases: ['library', 'review', 'verify', 'create-pr'].map((name) => ({ name, kind: name === 'create-pr' ? ('pr' as const) : name === 'library' ? ('dev' as const) : ('quality' as const), status: done.includes(name) ? ('completed' as const) : ('pending' as const) })),
    startIndex: done.length,
    executor: 'builtin',
    resumed: done.length > 0,
  });
  const completed = (name: string): RunEventData => ({ type: 'PhaseCompleted', name, index: 0, success: true, stats: { turns: 1, costUsd: 0, inputTokens: 1, outputTokens: 1, durationSecs: 1 }, commit: null, message: null });
  const check = (command: string, passed: boolean) => ({ command, exitCode: passed ? 0 : 1, passed, output: '', durationMs: 5, terminalId: null });
  const verify = (attempt: number, ...checks: ReturnType<typeof check>[]): RunEventData => ({ type: 'VerifyAttempt', attempt, checks, agentResult: 'pass', items: [], result: checks.every((c) => c.passed) ? 'pass' : 'fail' });
  const review = (parsed: boolean, ...severities: Array<'critical' | 'major' | 'minor' | 'info'>): RunEventData => ({ type: 'ReviewRound', round: 1, parsed, issues: severities.map((severity) => ({ severity, file: 'a.ts', description: 'x' })) });
  const finished = (success: boolean, outcome: 'completed' | 'failed' | 'cancelled' | 'interrupted'): RunEventData => ({ type: 'RunFinished', success, outcome, message: null, totals: { turns: 1, costUsd: 0, inputTokens: 1, outputTokens: 1, durationSecs: 1 }, delivery: null });

  it('finished: every phase completed and the run said so; each check of the last verify attempt; the issues of the last readable review round', () => {
    const events = [phases(), completed('library'), review(true, 'major', 'minor'), review(true, 'minor', 'info'), review(false), completed('review'), verify(1, check('npm test', false), check('tsc', true)), verify(2, check('npm test', true), check('tsc', true)), completed('verify'), finished(true, 'completed')];
    const p = candidateProgress(events, 'completed', ['npm test', 'tsc']);
    expect(p).toMatchObject({ status: 'finished', phase: null, phasesDone: 3, phasesTotal: 3, verifyAttempts: 2 });
    expect(p.checks).toEqual([
      { command: 'npm test', verdict: 'passed' },
      { command: 'tsc', verdict: 'passed' },
    ]);
    expect(p.reviewIssues).toEqual({ critical: 0, major: 0, minor: 1, info: 1 });
  });

  it('failed at verify names the failed check; a check never run is not_run; a live run wins; a killed one is stopped', () => {
    const failed = [phases(), completed('library'), completed('review'), verify(1, check('npm test', false)), finished(false, 'failed')];
    const p = candidateProgress(failed, 'failed', ['npm test', 'npm run lint']);
    expect(p).toMatchObject({ status: 'failed', phase: 'verify', phasesDone: 2 });
    expect(p.checks).toEqual([
      { command: 'npm test', verdict: 'failed' },
      { command: 'npm run lint', verdict: 'not_run' },
    ]);
    expect(candidateProgress([phases(), { type: 'PhaseStarting', name: 'library', index: 0, resumed: false }], 'running', ['npm test'])).toMatchObject({ status: 'running', phase: 'library', checks: [{ command: 'npm test', verdict: 'not_run' }] });
    expect(candidateProgress([], null, []).status).toBe('queued');
    expect(candidateProgress([], 'queued', []).status).toBe('queued');
    expect(candidateProgress([phases(), finished(false, 'cancelled')], 'cancelled', []).status).toBe('stopped');
    // SIGKILLed: no RunFinished at all; the row says interrupted.
    expect(candidateProgress([phases()], 'interrupted', []).status).toBe('stopped');
  });

  it('a resumed run starts from what was done; a run that ended successfully without every phase done is not finished', () => {
    const resumed = [phases(), completed('library'), phases(['library']), completed('review'), completed('verify'), finished(true, 'completed')];
    expect(candidateProgress(resumed, 'completed', []).status).toBe('finished');
    expect(candidateProgress([phases(), completed('library'), finished(true, 'completed')], 'completed', []).status).toBe('stopped');
  });
});

describe('numstat and test files', () => {
  it('counts text and binary files (a binary counts no lines)', () => {
    expect(parseNumstat('3\t1\tsrc/a.ts\0-\t-\timg.png\0\0')).toEqual([
      { path: 'src/a.ts', added: 3, deleted: 1 },
      { path: 'img.png', added: 0, deleted: 0 },
    ]);
    expect(parseNumstat('')).toEqual([]);
    expect(parseNumstat('garbage\0')).toEqual([]);
  });

  it('knows test files by the common runners\' names', () => {
    for (const t of ['sum.test.mjs', 'src/a.spec.ts', 'test/helpers.js', 'pkg/x_test.go', 'tests/test_api.py', 'app/__tests__/b.tsx', 'lib/a_spec.rb']) expect(isTestFile(t), t).toBe(true);
    for (const f of ['sum.mjs', 'src/testing.ts', 'contest.js', 'latest/a.ts']) expect(isTestFile(f), f).toBe(false);
  });
});

describe("the judge's answer", () => {
  it('takes the last yaml block: every candidate once, best first, c-labels or numbers', () => {
    const r = parseJudgeAnswer('thinking…\n```yaml\nranking: []\n```\nfinal:\n```yaml\nranking:\n  - candidate: c2\n    reason: best\n  - candidate: 1\n    reason: ok\nsummary: c2 wins\n```', [1, 2]);
    expect(r).toEqual({ ok: true, value: { ranking: [{ candidate: 2, reason: 'best' }, { candidate: 1, reason: 'ok' }], summary: 'c2 wins' } });
  });

  it('refuses what is not a full ranking of these candidates, saying why', () => {
    const bad = (text: string) => {
      const r = parseJudgeAnswer(text, [1, 2, 3]);
      return r.ok ? 'ok' : r.reason;
    };
    expect(bad('I like c2.')).toMatch(/no fenced yaml block/);
    expect(bad('```yaml\nranking: [\n```')).toMatch(/does not parse/);
    expect(bad('```yaml\nsummary: x\n```')).toMatch(/no "ranking" list/);
    expect(bad('```yaml\nranking:\n  - candidate: c4\n```')).toMatch(/"c4" is not one of the candidates/);
    expect(bad('```yaml\nranking:\n  - candidate: c1\n  - candidate: c1\n```')).toMatch(/c1 is ranked twice/);
    expect(bad('```yaml\nranking:\n  - candidate: c1\n  - candidate: c3\n```')).toMatch(/leaves out c2/);
    expect(bad('```yaml\nranking:\n  - candidate: {a: 1}\n```')).toMatch(/not one of the candidates/);
    expect(bad('```yaml\na: &x [1]\nb: *x\nranking: []\n```')).not.toBe('ok');
  });
});
