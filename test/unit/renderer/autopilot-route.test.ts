import { describe, expect, it } from 'vitest';
import { hashToView, viewToHash } from '../../../src-renderer/src/lib/route';

describe('autopilot route', () => {
  it('the autopilot view has an address', () => {
    expect(viewToHash({ name: 'autopilot' })).toBe('#/autopilot');
    expect(viewToHash({ name: 'autopilot', runId: 'ap-12' })).toBe('#/autopilot/ap-12');
    expect(hashToView('#/autopilot/ap-12')).toEqual({ name: 'autopilot', runId: 'ap-12' });
    expect(hashToView('#/autopilot')).toEqual({ name: 'autopilot' });
  });
});
