import { describe, expect, it } from 'vitest';
import { decideCandidate } from '../../../src-main/features/clean-candidates';
import { parsePr, prNumberFromUrl, type PrInfo } from '../../../src-main/features/git-ops';
import { parseCherry } from '../../../src-main/features/merge-detect';

const pr = (number: number, state: PrInfo['state']): PrInfo => ({ number, state, url: `https://github.com/o/r/pull/${number}`, title: `PR ${number}` });

describe('decideCandidate', () => {
  it('merged and closed PRs are candidates, open ones and none are not', () => {
    expect(decideCandidate({ source: 'gh', prs: [pr(1, 'MERGED')] })).toEqual({ candidate: true, reason: 'pr_merged', pr: pr(1, 'MERGED') });
    expect(decideCandidate({ source: 'gh', prs: [pr(2, 'CLOSED')] })).toEqual({ candidate: true, reason: 'pr_closed', pr: pr(2, 'CLOSED') });
    expect(decideCandidate({ source: 'gh', prs: [pr(3, 'OPEN')] })).toEqual({ candidate: false, why: 'pull request #3 is open' });
    expect(decideCandidate({ source: 'gh', prs: [] })).toEqual({ candidate: false, why: 'no pull request for the branch' });
  });

  it('with several PRs for a branch, a merged one wins, then an open one over a closed one', () => {
    expect(decideCandidate({ source: 'gh', prs: [pr(5, 'CLOSED'), pr(4, 'MERGED')] })).toMatchObject({ reason: 'pr_merged', pr: { number: 4 } });
    expect(decideCandidate({ source: 'gh', prs: [pr(7, 'CLOSED'), pr(8, 'OPEN')] })).toEqual({ candidate: false, why: 'pull request #8 is open' });
  });

  it('local verdicts and errors', () => {
    expect(decideCandidate({ source: 'local', verdict: { merged: true, method: 'tree' } })).toEqual({ candidate: true, reason: 'merged_locally', method: 'tree' });
    expect(decideCandidate({ source: 'local', verdict: { merged: false } })).toMatchObject({ candidate: false });
    expect(decideCandidate({ source: 'error', message: 'gh auth required' })).toEqual({ candidate: false, why: 'gh auth required' });
  });
});

describe('parsers', () => {
  it('parseCherry counts the commits whose patch is already upstream', () => {
    expect(parseCherry('- abc\n- def\n')).toEqual({ total: 2, onBase: 2 });
    expect(parseCherry('- abc\n+ def\n')).toEqual({ total: 2, onBase: 1 });
    expect(parseCherry('')).toEqual({ total: 0, onBase: 0 });
  });

  it('parsePr accepts gh state spellings and rejects garbage', () => {
    expect(parsePr({ number: 3, state: 'merged', url: 'u', title: 't' })).toEqual({ number: 3, state: 'MERGED', url: 'u', title: 't' });
    expect(() => parsePr({ number: 3, state: 'DRAFTY' })).toThrow(/unexpected PR/);
    expect(() => parsePr(null)).toThrow(/unexpected PR/);
  });

  it('prNumberFromUrl', () => {
    expect(prNumberFromUrl('https://github.com/o/r/pull/42\n')).toBe(42);
    expect(prNumberFromUrl('https://github.com/o/r/issues/42')).toBeNull();
  });
});
