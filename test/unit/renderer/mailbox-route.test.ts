import { describe, expect, it } from 'vitest';
import { hashToView, viewToHash } from '../../../src-renderer/src/lib/route';

describe('the mailbox route', () => {
  it('round-trips the mailbox, a project and an open report through the address hash', () => {
    for (const view of [{ name: 'mailbox' }, { name: 'mailbox', projectId: 'proj-abc123' }, { name: 'mailbox', projectId: 'proj-abc123', commandId: 'task-1.b_c' }] as const) {
      expect(hashToView(viewToHash(view))).toEqual(view);
    }
    expect(viewToHash({ name: 'mailbox', projectId: 'p x', commandId: 'a/b' })).toBe('#/mailbox/p%20x/a%2Fb');
    // A command id without a project means nothing: the mailbox opens on all projects.
    expect(hashToView('#/mailbox//task-1')).toEqual({ name: 'mailbox' });
  });
});
