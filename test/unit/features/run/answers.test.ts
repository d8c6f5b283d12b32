import { describe, expect, it } from 'vitest';
import { blockingIssues, parseReviewIssues, parseVerifyResult } from '../../../../src-main/features/run/answers';

describe('parseReviewIssues', () => {
  it('reads the issues of the last fenced yaml block', () => {
    const text = 'Looked at it.\n```yaml\nissues: [{severity: minor, file: a.ts, description: old}]\n```\nOn second thought:\n```yaml\nissues:\n  - severity: MAJOR\n    file: src/x.ts\n    line: 12\n    description: off by one\n  - severity: info\n    file: README.md\n    description: typo\n```\n';
    const r = parseReviewIssues(text);
    expect(r).toEqual({ ok: true, value: [{ severity: 'major', file: 'src/x.ts', line: 12, description: 'off by one' }, { severity: 'info', file: 'README.md', description: 'typo' }] });
    expect(blockingIssues(r.ok ? r.value : [])).toHaveLength(1);
  });

  it('takes an empty list (and a null one) as a clean review', () => {
    expect(parseReviewIssues('```yaml\nissues: []\n```')).toEqual({ ok: true, value: [] });
    expect(parseReviewIssues('```yml\nissues:\n```')).toEqual({ ok: true, value: [] });
  });

  it('reports what is missing or malformed instead of guessing', () => {
    expect(parseReviewIssues('No problems found.')).toMatchObject({ ok: false, reason: expect.stringContaining('no fenced') });
    expect(parseReviewIssues('```yaml\nsummary: fine\n```')).toMatchObject({ ok: false, reason: expect.stringContaining('issues') });
    expect(parseReviewIssues('```yaml\nissues: lots\n```')).toMatchObject({ ok: false, reason: '"issues" is not a list' });
    expect(parseReviewIssues('```yaml\nissues:\n  - severity: blocker\n    file: a\n    description: x\n```')).toMatchObject({ ok: false, reason: expect.stringContaining('issues[0]') });
    expect(parseReviewIssues('```yaml\nissues:\n  - severity: major\n    file: a\n```')).toMatchObject({ ok: false, reason: expect.stringContaining('description') });
    expect(parseReviewIssues('```yaml\nissues: [\n```')).toMatchObject({ ok: false });
    // An alias bomb is refused rather than expanded.
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...['b', 'c', 'd', 'e'].map((k, i) => `${k}: &${k} [${Array(10).fill(`*${'abcd'[i]}`).join(', ')}]`), 'issues: []'].join('\n');
    expect(parseReviewIssues('```yaml\n' + bomb + '\n```')).toMatchObject({ ok: false });
  });
});

describe('parseVerifyResult', () => {
  it('reads result and items, tolerating the usual spellings', () => {
    const r = parseVerifyResult('Walked the plan.\n```yaml\nresult: PASS\nitems:\n  - item: login works\n    result: pass\n  - name: logout\n    status: failed\n    note: button missing\n  - plain string item\n```');
    expect(r).toEqual({
      ok: true,
      value: {
        result: 'pass',
        items: [
          { item: 'login works', result: 'pass' },
          { item: 'logout', result: 'fail', note: 'button missing' },
          { item: 'plain string item', result: 'pass' },
        ],
      },
    });
  });

  it('refuses an unknown verdict or a missing block', () => {
    expect(parseVerifyResult('```yaml\nresult: maybe\n```')).toMatchObject({ ok: false, reason: expect.stringContaining('pass or fail') });
    expect(parseVerifyResult('all good')).toMatchObject({ ok: false });
    expect(parseVerifyResult('```yaml\nitems: []\n```')).toMatchObject({ ok: false, reason: expect.stringContaining('result') });
  });
});
