import { describe, expect, it } from 'vitest';
import { isMissingIdentity, pullRequestText, squashMessage, suggestSessionSlug } from '../../../src-main/session-worktrees/session-worktree-model';
import { requests } from '../../../src-preload/contract';

describe('session worktree names', () => {
  const at = new Date('2026-11-23T09:05:59.999Z');
  it('proposes session-<date>-<time> (UTC, to the minute) and numbers it when taken', () => {
    expect(suggestSessionSlug(at, () => false)).toBe('session-20261123-0905');
    const taken = new Set(['session-20261123-0905', 'session-20261123-0905-2']);
    expect(suggestSessionSlug(at, (s) => taken.has(s))).toBe('session-20261123-0905-3');
  });
});

describe('messages', () => {
  it('squash commits list the squashed subjects, oldest first, cut after 50', () => {
    expect(squashMessage('Add notes', 'feature/n', ['one', 'two'])).toBe('Add notes\n\nSquashed commits of feature/n:\n\n* one\n* two\n');
    const many = Array.from({ length: 53 }, (_, i) => `c${i}`);
    const text = squashMessage('', 'feature/n', many);
    expect(text.startsWith('Squashed feature/n\n')).toBe(true);
    expect(text).toContain('* c49\n* … and 3 more');
    expect(text).not.toContain('c50');
  });

  it('a pull request is titled by its only commit, else the session title, else the branch', () => {
    expect(pullRequestText('New session', 'feature/x', ['Fix it']).title).toBe('Fix it');
    expect(pullRequestText('Speed up', 'feature/x', ['a', 'b'])).toEqual({ title: 'Speed up', body: 'Opened from a Flightdeck session.\n\nCommits:\n- a\n- b' });
    expect(pullRequestText('New session', 'feature/x', []).title).toBe('Changes from feature/x');
  });

  it("recognizes git's missing-identity refusal", () => {
    expect(isMissingIdentity('*** Please tell me who you are.\n\nRun\n\n  git config --global user.email')).toBe(true);
    expect(isMissingIdentity('fatal: unable to auto-detect email address (got \'root@x.(none)\')')).toBe(true);
    expect(isMissingIdentity('fatal: not a git repository')).toBe(false);
  });
});

describe('the sessionWorktrees contract refuses malformed input', () => {
  const bad: Array<[keyof typeof requests, unknown]> = [
    ['sessionWorktrees.probe', {}],
    ['sessionWorktrees.probe', { projectId: 'ABC' }],
    ['sessionWorktrees.start', { projectId: 'proj-123456', placement: 'anywhere' }],
    ['sessionWorktrees.start', { projectId: 'proj-123456', placement: 'worktree', slug: '' }],
    ['sessionWorktrees.start', { projectId: 'proj-123456', placement: 'worktree', extra: 1 }],
    ['sessionWorktrees.commit', { sessionId: 'ses-abcdef12', message: '   ' }],
    ['sessionWorktrees.commit', { sessionId: 'nope', message: 'x' }],
    ['sessionWorktrees.merge', { sessionId: 'ses-abcdef12', strategy: 'rebase' }],
    ['sessionWorktrees.discard', { sessionId: 'ses-abcdef12', force: 'yes' }],
    ['sessionWorktrees.push', { sessionId: 'ses-abcdef12', remote: 'upstream' }],
  ];
  it.each(bad)('%s %j', (channel, input) => {
    expect(requests[channel].input.safeParse(input).success).toBe(false);
  });
  it('accepts the well-formed ones', () => {
    expect(requests['sessionWorktrees.start'].input.safeParse({ projectId: 'proj-123456', placement: 'checkout' }).success).toBe(true);
    expect(requests['sessionWorktrees.discard'].input.parse({ sessionId: 'ses-abcdef12' })).toEqual({ sessionId: 'ses-abcdef12', force: false });
  });
});
