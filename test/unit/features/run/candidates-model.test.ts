import { describe, expect, it } from 'vitest';
import { archiveRef, candidateBranch, candidateBudgets, candidateProgress, candidateWorktree, isTestFile, parseJudgeAnswer, parseNumstat } from '../../../../src-main/features/run/candidates-model';
import { newFeatureState, type FeatureState } from '../../../../src-main/features/state';

function stateWith(change: (s: FeatureState) => FeatureState): FeatureState {
  return change(newFeatureState({ slug: 'calc', now: new Date(0), worktreePath: '.trees/calc', branch: 'feature/calc', baseBranch: 'main', devPhases: ['library'] }));
}

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

describe('a candidate from its state file', () => {
  it('finished with each check of the last verify attempt, and the issues of the last readable review round', () => {
    const s = stateWith((x) => ({
      ...x,
      status: 'in_progress',
      phases: x.phases.map((p) =>
        p.name === 'review'
          ? { ...p, status: 'completed', details: { rounds: [{ round: 1, parsed: true, issues: [{ severity: 'major' }, { severity: 'minor' }] }, { round: 2, parsed: true, issues: [{ severity: 'minor' }, { severity: 'bogus' }] }, { round: 3, parsed: false, issues: [] }] } }
          : p.name === 'verify'
            ? { ...p, status: 'completed', details: { attempts: [{ attempt: 1, result: 'fail', failed_checks: ['npm test', 'npm run lint'] }, { attempt: 2, result: 'pass', failed_checks: [] }] } }
            : { ...p, status: 'completed' },
      ),
    }));
    const p = candidateProgress(s, 'completed', ['npm test', 'npm run lint']);
    expect(p.status).toBe('finished');
    expect(p.checks).toEqual([
      { command: 'npm test', verdict: 'passed' },
      { command: 'npm run lint', verdict: 'passed' },
    ]);
    expect(p.verifyAttempts).toBe(2);
    expect(p.reviewIssues).toEqual({ critical: 0, major: 0, minor: 1, info: 0 });
  });

  it('failed at verify names the failed checks; one that never reached verify has them not run; a live run wins over the file', () => {
    const failed = stateWith((x) => ({ ...x, status: 'failed', phases: x.phases.map((p) => (p.name === 'verify' ? { ...p, status: 'failed', details: { attempts: [{ attempt: 1, result: 'fail', failed_checks: ['npm test'] }] } } : { ...p, status: 'completed' })) }));
    expect(candidateProgress(failed, 'failed', ['npm test', 'tsc']).checks).toEqual([
      { command: 'npm test', verdict: 'failed' },
      { command: 'tsc', verdict: 'passed' },
    ]);
    expect(candidateProgress(failed, 'failed', []).status).toBe('failed');
    const fresh = stateWith((x) => x);
    expect(candidateProgress(fresh, 'running', ['npm test'])).toMatchObject({ status: 'running', phase: 'library', checks: [{ command: 'npm test', verdict: 'not_run' }] });
    expect(candidateProgress(fresh, null, []).status).toBe('queued');
    expect(candidateProgress(fresh, 'cancelled', []).status).toBe('stopped');
    expect(candidateProgress(null, 'interrupted', []).status).toBe('stopped');
  });

  it('details written by hand into odd shapes are read as absent, never thrown on', () => {
    const odd = stateWith((x) => ({ ...x, phases: x.phases.map((p) => ({ ...p, details: { attempts: 'x', rounds: [null, 3, { parsed: true, issues: 'no' }] } })) }));
    const p = candidateProgress(odd, 'failed', ['npm test']);
    expect(p.checks[0]!.verdict).toBe('not_run');
    expect(p.reviewIssues.major).toBe(0);
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
