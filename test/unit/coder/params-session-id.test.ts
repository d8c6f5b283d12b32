import { describe, expect, it } from 'vitest';
import { parseCoderParams } from '../../../src-main/coder/core/params';
import { failure, withSession } from '../../../src-main/coder/core/result';

describe('Coder SESSION_ID: empty means a new session', () => {
  it.each([[''], ['   '], [null], [undefined]])('SESSION_ID %j parses as "start a new session", not config_error', (value) => {
    const r = parseCoderParams({ PROMPT: 'x', cd: '/tmp', SESSION_ID: value });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.params.SESSION_ID).toBeUndefined();
  });

  it('a real id is kept (trimmed); a wrong type is still refused', () => {
    const r = parseCoderParams({ PROMPT: 'x', cd: '/tmp', SESSION_ID: ' c6d6dc84-8162-430f-b996-3aa93a227942 ' });
    expect(r.ok && r.params.SESSION_ID).toBe('c6d6dc84-8162-430f-b996-3aa93a227942');
    const bad = parseCoderParams({ PROMPT: 'x', cd: '/tmp', SESSION_ID: 42 });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message).toMatch(/SESSION_ID/);
  });

  it('a failure carries the session it ran in, right after `tool`, and only when there is one', () => {
    const f = failure('empty_result', 'nothing', { idle_timeout_s: 300, max_duration_s: 1800 });
    const kept = withSession(f, 'sess-1');
    expect(Object.keys(kept)).toEqual(['success', 'tool', 'SESSION_ID', 'error', 'error_kind', 'error_detail']);
    expect(kept).toMatchObject({ success: false, SESSION_ID: 'sess-1', error_kind: 'empty_result' });
    expect(withSession(f, null)).toEqual(f);
    expect('SESSION_ID' in withSession(f, null)).toBe(false);
  });
});
