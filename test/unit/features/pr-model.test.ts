import { describe, expect, it } from 'vitest';
import { decide, logTail, nextPollDelay, parseChecks, parseLineComments, parsePrView, prFixRoundText, quoteOf, roundSummary, runIdOf, type PrCheck, type PrSnapshot, type Seen } from '../../../src-main/features/pr/pr-model';

const check = (name: string, bucket: PrCheck['bucket'], id = `https://github.com/o/r/actions/runs/1${name.length}/job/9`): PrCheck => ({ id, name, workflow: 'CI', bucket, link: id });
const pr = (o: Partial<PrSnapshot['pr']> = {}): PrSnapshot['pr'] => ({ number: 7, url: 'u', state: 'OPEN', reviewDecision: '', headSha: 'abc', headRef: 'feature/x', crossRepository: false, reviews: [], ...o });
const none: Seen = { has: () => false };
const seenOf = (...keys: string[]): Seen => ({ has: (k, id) => keys.includes(`${k}:${id}`) });

describe('pull request loop: gh answers', () => {
  it('parses checks, and refuses what is not a list of checks', () => {
    expect(parseChecks([{ name: 'test', bucket: 'FAIL', link: 'L', workflow: 'CI', state: 'FAILURE' }, { name: 'lint', bucket: 'pass' }], 'sha')).toEqual([
      { id: 'L', name: 'test', workflow: 'CI', bucket: 'fail', link: 'L' },
      { id: 'lint@sha', name: 'lint', workflow: '', bucket: 'pass', link: '' },
    ]);
    expect(() => parseChecks({ name: 'x' }, 's')).toThrow(/list of checks/);
    expect(() => parseChecks([{ name: 'x', bucket: 'exploded' }], 's')).toThrow(/unexpected check/);
    expect(() => parseChecks([null], 's')).toThrow(/unexpected check/);
    expect(() => parseChecks([{ bucket: 'pass' }], 's')).toThrow(/unexpected check/);
  });

  it('parses the PR view; reviews of unknown states or without ids are left out; an odd decision is none', () => {
    const v = parsePrView({ number: 7, url: 'u', state: 'open', reviewDecision: 'WHATEVER', headRefOid: 'h', reviews: [{ id: 'R1', author: { login: 'al' }, state: 'APPROVED', body: 'ok' }, { id: 'R2', state: 'EXPLODED' }, { state: 'APPROVED' }, 'junk'] });
    expect(v).toEqual({ number: 7, url: 'u', state: 'OPEN', reviewDecision: '', headSha: 'h', headRef: '', crossRepository: true, reviews: [{ id: 'R1', author: 'al', state: 'APPROVED', body: 'ok' }] });
    expect(parsePrView({ number: 7, state: 'OPEN', headRefName: 'feature/x', isCrossRepository: false }).crossRepository).toBe(false);
    // Changes are requested only by those who can push: a stranger's request is a comment.
    const asked = (authorAssociation?: string) => parsePrView({ number: 7, state: 'OPEN', reviews: [{ id: 'R', author: { login: 'x' }, state: 'CHANGES_REQUESTED', body: 'b', authorAssociation }] }).reviews[0]!.state;
    expect([asked('OWNER'), asked('MEMBER'), asked('collaborator')]).toEqual(['CHANGES_REQUESTED', 'CHANGES_REQUESTED', 'CHANGES_REQUESTED']);
    expect([asked('NONE'), asked('CONTRIBUTOR'), asked('FIRST_TIME_CONTRIBUTOR'), asked(undefined)]).toEqual(['COMMENTED', 'COMMENTED', 'COMMENTED', 'COMMENTED']);
    expect(() => parsePrView({ number: '7', state: 'OPEN' })).toThrow(/unexpected pull request/);
    expect(() => parsePrView({ number: 7, state: 'DRAFTISH' })).toThrow(/unexpected pull request/);
    expect(() => parsePrView(null)).toThrow();
  });

  it('parses line comments: a range from start_line, outdated ones without lines, junk left out', () => {
    const c = parseLineComments([
      { id: 1, pull_request_review_id: 5, user: { login: 'bob' }, path: 'a.ts', line: 9, start_line: 7, body: 'x', diff_hunk: 'h' },
      { id: 2, path: 'b.ts', line: null, body: 'gone' },
      { id: -3, path: 'c.ts', line: 1 },
      { id: 4, path: '', line: 1 },
      null,
    ]);
    expect(c).toEqual([
      { id: '1', reviewId: '5', author: 'bob', path: 'a.ts', lineStart: 7, lineEnd: 9, body: 'x', diffHunk: 'h' },
      { id: '2', reviewId: null, author: 'someone', path: 'b.ts', lineStart: null, lineEnd: null, body: 'gone', diffHunk: '' },
    ]);
    expect(() => parseLineComments({ message: 'Not Found' })).toThrow(/list of review comments/);
  });

  it('finds the Actions run of a check link', () => {
    expect(runIdOf('https://github.com/o/r/actions/runs/123/job/456')).toBe('123');
    expect(runIdOf('https://ci.example.com/build/5')).toBeNull();
    expect(runIdOf('')).toBeNull();
  });
});

describe('pull request loop: what to do next', () => {
  it('merged and closed end the loop', () => {
    expect(decide({ pr: pr({ state: 'MERGED' }), checks: [check('t', 'fail')], comments: [] }, none, 0, 3)).toEqual({ kind: 'merged' });
    expect(decide({ pr: pr({ state: 'CLOSED' }), checks: [], comments: [] }, none, 0, 3)).toEqual({ kind: 'closed' });
  });

  it('waits while a check runs, even with another failed (one round carries every failure)', () => {
    expect(decide({ pr: pr(), checks: [check('t', 'fail'), check('build', 'pending')], comments: [] }, none, 0, 3)).toEqual({ kind: 'wait', why: '1 check running' });
  });

  it('a new failed check is a fix round; the same run already fed back is not', () => {
    const t = check('t', 'fail');
    expect(decide({ pr: pr(), checks: [t, check('lint', 'pass')], comments: [] }, none, 0, 3)).toMatchObject({ kind: 'fix', checks: [t], reviews: [] });
    expect(decide({ pr: pr(), checks: [t], comments: [] }, seenOf(`check:${t.id}`), 1, 3)).toMatchObject({ kind: 'wait' });
  });

  it('changes requested: the review and its author\'s new line comments; others\' comments and dismissed reviews stay out', () => {
    const review = { id: 'R1', author: 'bob', state: 'CHANGES_REQUESTED' as const, body: 'fix' };
    const mine = { id: '1', reviewId: '9', author: 'bob', path: 'a', lineStart: 1, lineEnd: 1, body: 'x', diffHunk: '' };
    const old = { ...mine, id: '0' };
    const other = { ...mine, id: '2', author: 'carol' };
    const d = decide({ pr: pr({ reviewDecision: 'CHANGES_REQUESTED', reviews: [review, { ...review, id: 'R0', state: 'DISMISSED' }] }), checks: [], comments: [mine, old, other] }, seenOf('comment:0'), 0, 3);
    expect(d).toEqual({ kind: 'fix', checks: [], reviews: [review], comments: [mine] });
    // Fed back already and still "changes requested": the reviewer is asked to look again.
    expect(decide({ pr: pr({ reviewDecision: 'CHANGES_REQUESTED', reviews: [review] }), checks: [], comments: [] }, seenOf('review:R1'), 1, 3)).toMatchObject({ kind: 'needs_review' });
  });

  it('at the limit, new feedback gives up with the reason instead of a round', () => {
    const d = decide({ pr: pr(), checks: [check('test', 'fail')], comments: [] }, none, 2, 2);
    expect(d.kind).toBe('give_up');
    expect(d.kind === 'give_up' && d.reason).toBe('1 check failed (test) after 2 fix rounds, the most pr.max_fix_rounds allows (2): look at the pull request, then fix it by hand or raise the limit.');
    expect(decide({ pr: pr(), checks: [check('test', 'fail')], comments: [] }, none, 0, 0).kind).toBe('give_up');
  });

  it('green: ready when approved or when no review is required; a required review is asked for', () => {
    expect(decide({ pr: pr({ reviewDecision: 'APPROVED' }), checks: [check('t', 'pass'), check('s', 'skipping')], comments: [] }, none, 0, 3)).toEqual({ kind: 'ready' });
    expect(decide({ pr: pr(), checks: [], comments: [] }, none, 0, 3)).toEqual({ kind: 'ready' });
    expect(decide({ pr: pr({ reviewDecision: 'REVIEW_REQUIRED' }), checks: [check('t', 'pass')], comments: [] }, none, 0, 3)).toMatchObject({ kind: 'needs_review' });
  });
});

describe('pull request loop: the fix round request', () => {
  it('quotes the log tail and anchors each comment with its lines; a fence longer than any backticks inside', () => {
    const text = prFixRoundText({
      number: 7,
      url: 'https://x/pull/7',
      round: 2,
      maxRounds: 3,
      checks: [{ check: check('test', 'fail'), log: 'a\x1b[31mred\x1b[0m\n```\nend' }, { check: check('lint', 'fail'), log: null }],
      reviews: [{ id: 'R', author: 'bob', state: 'CHANGES_REQUESTED', body: '' }],
      comments: [{ comment: { id: '1', reviewId: null, author: 'bob', path: 'a.ts', lineStart: 2, lineEnd: 3, body: ' Rename. ', diffHunk: '' }, quote: 'let x;\nlet y;' }],
    });
    expect(text).toContain('fix round 2 of at most 3');
    expect(text).toContain('## Failed checks (2)');
    expect(text).toContain("````\nared\n```\nend\n````");
    expect(text).toContain('Its log could not be read');
    expect(text).toContain('(no summary; see the line comments)');
    expect(text).toContain('### 1. a.ts, lines 2-3 (bob)\n\n```\nlet x;\nlet y;\n```\n\nRename.');
  });

  it('quotes from the file at the head, else from the end of the diff hunk', () => {
    const c = { id: '1', reviewId: null, author: 'b', path: 'a', lineStart: 2, lineEnd: 2, body: '', diffHunk: '@@ -1 +1,2 @@\n line one\n+line two' };
    expect(quoteOf(c, 'one\ntwo\nthree\n')).toBe('two');
    expect(quoteOf(c, 'only one line\n')).toBe('line two');
    expect(quoteOf(c, null)).toBe('line two');
    expect(quoteOf({ ...c, lineStart: null, lineEnd: null }, 'one\ntwo\n')).toBe('line one\nline two');
  });

  it('bounds a quote: a comment over a whole big file, or a huge diff hunk, is cut', () => {
    const big = Array.from({ length: 50_000 }, (_, i) => `const line${i} = ${i};`).join('\n');
    const c = { id: '1', reviewId: null, author: 'b', path: 'a', lineStart: 1, lineEnd: 50_000, body: '', diffHunk: `@@ -1 +1,50000 @@\n${big.split('\n').map((l) => `+${l}`).join('\n')}` };
    const fromFile = quoteOf(c, big);
    expect(fromFile.length).toBeLessThan(5_000);
    expect(fromFile.startsWith('const line0 = 0;')).toBe(true);
    expect(fromFile).toMatch(/more characters\)$/);
    expect(quoteOf(c, null).length).toBeLessThan(5_000);
  });

  it('keeps the end of a long log, and sums up a round', () => {
    expect(logTail('x'.repeat(10) + 'END', 5)).toBe('… xxEND');
    expect(roundSummary([check('a', 'fail'), check('b', 'fail')], [{ id: 'R', author: 'bob', state: 'CHANGES_REQUESTED', body: '' }], 1)).toBe('2 failed checks (a, b); changes requested by bob with 1 line comment');
  });

  it('backs off from the minimum to the maximum', () => {
    expect([0, 1, 2, 3, 10, 1000].map((n) => nextPollDelay(n, 30, 200))).toEqual([30, 60, 120, 200, 200, 200]);
  });
});
