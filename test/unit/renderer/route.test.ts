import { describe, expect, it } from 'vitest';
import { hashToView, viewToHash } from '../../../src-renderer/src/lib/route';

describe('view routes', () => {
  it('round-trips every view through the hash', () => {
    for (const v of [{ name: 'board' }, { name: 'settings' }, { name: 'project', projectId: 'abc-123456' }, { name: 'session', sessionId: 'ses-abc123' }, { name: 'plan', draftId: 'plan-abc123', screen: 'chat' }, { name: 'plan', draftId: 'plan-abc123', screen: 'review' }] as const) {
      expect(hashToView(viewToHash(v))).toEqual(v);
    }
  });
  it('links to one terminal by its id', () => {
    expect(viewToHash({ name: 'terminals', terminalId: 'trm-abc' })).toBe('#/terminals/trm-abc');
    expect(hashToView('#/terminals/trm-abc')).toEqual({ name: 'terminals', terminalId: 'trm-abc' });
    expect(hashToView('#/terminals')).toEqual({ name: 'terminals' });
  });
  it('falls back to the board for anything unknown', () => {
    expect(hashToView('')).toEqual({ name: 'board' });
    expect(hashToView('#/nowhere/x')).toEqual({ name: 'board' });
    expect(hashToView('#/session/')).toEqual({ name: 'board' });
  });
});
