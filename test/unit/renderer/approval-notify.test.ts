import { describe, expect, it } from 'vitest';
import { newApprovals, shouldNotify } from '../../../src-renderer/src/lib/approval-notify';

describe('approval notifications', () => {
  const base = { enabled: true, permission: 'granted', hidden: false, openSessionId: 'ses-b', approvalSessionId: 'ses-a' };
  it('notify only when turned on, allowed, and the approval is not in front of the user', () => {
    expect(shouldNotify(base)).toBe(true);
    expect(shouldNotify({ ...base, openSessionId: null })).toBe(true);
    expect(shouldNotify({ ...base, openSessionId: 'ses-a' })).toBe(false);
    expect(shouldNotify({ ...base, openSessionId: 'ses-a', hidden: true })).toBe(true);
    expect(shouldNotify({ ...base, enabled: false })).toBe(false);
    expect(shouldNotify({ ...base, permission: 'default' })).toBe(false);
    expect(shouldNotify({ ...base, permission: 'denied', hidden: true })).toBe(false);
  });

  it('hand out each approval once', () => {
    const seen = new Set(['apr-1']);
    expect(newApprovals(seen, [{ id: 'apr-1' }, { id: 'apr-2' }]).map((a) => a.id)).toEqual(['apr-2']);
    expect(newApprovals(seen, [{ id: 'apr-1' }, { id: 'apr-2' }, { id: 'apr-3' }]).map((a) => a.id)).toEqual(['apr-3']);
  });
});
