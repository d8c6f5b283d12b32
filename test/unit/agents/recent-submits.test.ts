import { describe, expect, it } from 'vitest';
import { RECENT_SUBMIT_TTL_MS, RECENT_SUBMITS_MAX, RecentSubmits } from '../../../src-main/agents/recent-submits';

describe('RecentSubmits', () => {
  it('answers a repeated id of the same session as before, within the window only, and per session', () => {
    let now = 1_000;
    const r = new RecentSubmits<string>(() => now);
    r.remember('s1', 'id-aaaaaaaa', 'first answer');
    expect(r.get('s1', 'id-aaaaaaaa')).toBe('first answer');
    expect(r.get('s2', 'id-aaaaaaaa')).toBeUndefined();
    now += RECENT_SUBMIT_TTL_MS + 1;
    expect(r.get('s1', 'id-aaaaaaaa')).toBeUndefined();
  });

  it('keeps the newest RECENT_SUBMITS_MAX answers', () => {
    const r = new RecentSubmits<number>();
    for (let i = 0; i <= RECENT_SUBMITS_MAX; i++) r.remember('s', `id-${String(i).padStart(8, '0')}`, i);
    expect(r.get('s', 'id-00000000')).toBeUndefined();
    expect(r.get('s', `id-${String(RECENT_SUBMITS_MAX).padStart(8, '0')}`)).toBe(RECENT_SUBMITS_MAX);
  });
});
