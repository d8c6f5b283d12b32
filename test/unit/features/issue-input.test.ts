import { describe, expect, it } from 'vitest';
import { parseIssue, parseIssueDetail } from '../../../src-main/features/git-ops';
import { formatIssueRecord, issuePlanningInput, MAX_ISSUE_BODY_CHARS, parseIssueRecord, prBody, slugFromIssue } from '../../../src-main/features/issue-input';
import { slugProblem } from '../../../src-main/worktrees/worktree-model';

describe('a feature from an issue', () => {
  it('makes a valid slug from any title, numbered by the issue', () => {
    expect(slugFromIssue({ number: 12, title: 'Fix: login redirect!' })).toBe('fix-login-redirect-12');
    expect(slugFromIssue({ number: 3, title: 'Café crème — résumé' })).toBe('cafe-creme-resume-3');
    expect(slugFromIssue({ number: 7, title: '修复登录' })).toBe('issue-7');
    expect(slugFromIssue({ number: 8, title: '---' })).toBe('issue-8');
    const long = slugFromIssue({ number: 123456789, title: 'a very long title that goes on and on and on well past the limit of a slug' });
    for (const s of [long, slugFromIssue({ number: 1, title: 'x'.repeat(200) }), slugFromIssue({ number: 5, title: 'Trailing hyphen cut here-' })]) expect(slugProblem(s)).toBeNull();
  });

  it('puts title, link, body, labels and the discussion in the first message, bounded', () => {
    const text = issuePlanningInput({ number: 4, title: 'T', url: 'u', state: 'OPEN', labels: [], assignees: [], author: null, body: 'b'.repeat(MAX_ISSUE_BODY_CHARS + 10), comments: [{ author: null, body: '  ' }] });
    expect(text.startsWith('Plan this feature from issue #4: T\nu\n\n## The issue\n\n')).toBe(true);
    expect(text).toContain('… (10 more characters in the issue)');
    // A comment with nothing in it is no discussion.
    expect(text).not.toContain('## Discussion');
    expect(issuePlanningInput({ number: 4, title: 'T', url: 'u', state: 'OPEN', labels: [], assignees: [], author: 'a', body: '', comments: [] })).toContain('## The issue (opened by a)\n\n(no description)');
  });

  it('records the issue and reads back only a record, and the PR body closes it', () => {
    const ref = { number: 12, url: 'https://github.com/o/r/issues/12', title: 'Fix: "quotes" and\nnewlines' };
    expect(parseIssueRecord(formatIssueRecord(ref))).toEqual(ref);
    for (const bad of ['', 'number: -1\nurl: u\ntitle: t', '[1, 2]', 'number: 1', ': : :', '*a']) expect(parseIssueRecord(bad)).toBeNull();
    // The record is in the agent's worktree: its link must be the https page of the issue it names.
    for (const url of ['javascript:alert(1)', 'http://github.com/o/r/issues/12', 'https://github.com/o/r/issues/13', 'https://github.com/o/r/pull/12']) {
      expect(parseIssueRecord(formatIssueRecord({ ...ref, url }))).toBeNull();
    }
    expect(prBody('w', ref)).toBe('Feature w, implemented and verified by Flightdeck.\n\nCloses #12');
    expect(prBody('w', null)).toBe('Feature w, implemented and verified by Flightdeck.');
  });

  it('reads gh issues, and refuses what is not one', () => {
    expect(parseIssue({ number: 3, title: 't', url: 'u', state: 'open', labels: [{ name: 'bug' }, { x: 1 }], assignees: [{ login: 'a' }], author: { login: 'b' } })).toEqual({ number: 3, title: 't', url: 'u', state: 'OPEN', labels: ['bug'], assignees: ['a'], author: 'b' });
    expect(parseIssueDetail({ number: 3, title: 't', comments: [{ author: null, body: 'c' }, null] })).toMatchObject({ body: '', comments: [{ author: null, body: 'c' }, { author: null, body: '' }] });
    for (const bad of [null, {}, { number: '3', title: 't' }, { number: 0, title: 't' }, { number: 1.5, title: 't' }, { number: 3 }]) expect(() => parseIssue(bad)).toThrow(/unexpected issue/);
  });
});
