import { describe, expect, it } from 'vitest';
import { compareUrl, isMissingIdentity, parseRemoteUrl, pullRequestText, squashMessage, suggestSessionSlug } from '../../../src-main/session-worktrees/session-worktree-model';
import { requests } from '../../../src-preload/contract';

describe('session worktree names', () => {
  const at = new Date('2026-11-23T09:05:59.999Z');
  it('proposes session-<date>-<time> (UTC, to the minute) and numbers it when taken', () => {
    expect(suggestSessionSlug(at, () => false)).toBe('session-20261123-0905');
    const taken = new Set(['session-20261123-0905', 'session-20261123-0905-2']);
    expect(suggestSessionSlug(at, (s) => taken.has(s))).toBe('session-20261123-0905-3');
  });
});

describe('compare URLs', () => {
  it('reads the URL forms git accepts', () => {
    expect(parseRemoteUrl('git@github.com:acme/widgets.git')).toEqual({ host: 'github.com', path: 'acme/widgets' });
    expect(parseRemoteUrl('https://github.com/acme/widgets')).toEqual({ host: 'github.com', path: 'acme/widgets' });
    expect(parseRemoteUrl('https://user@github.example.com:8443/team/app.git/')).toEqual({ host: 'github.example.com', path: 'team/app' });
    expect(parseRemoteUrl('ssh://git@gitlab.com/group/sub/project.git')).toEqual({ host: 'gitlab.com', path: 'group/sub/project' });
    for (const local of ['/srv/git/app.git', '../origin', 'file:///srv/git/app.git', 'C:\\repos\\app', '', 'not a url']) expect(parseRemoteUrl(local)).toBeNull();
  });

  it("builds GitHub's compare page, GitLab's and Bitbucket's new request pages, and nothing for a local remote", () => {
    expect(compareUrl('git@github.com:acme/widgets.git', 'main', 'feature/session-1')).toBe('https://github.com/acme/widgets/compare/main...feature/session-1?expand=1');
    expect(compareUrl('https://github.com/acme/widgets.git', 'release/2.0', 'feature/a#b')).toBe('https://github.com/acme/widgets/compare/release/2.0...feature/a%23b?expand=1');
    expect(compareUrl('git@gitlab.com:group/app.git', 'main', 'feature/x')).toBe('https://gitlab.com/group/app/-/merge_requests/new?merge_request%5Bsource_branch%5D=feature%2Fx&merge_request%5Btarget_branch%5D=main');
    expect(compareUrl('https://bitbucket.org/team/app.git', 'main', 'feature/x')).toBe('https://bitbucket.org/team/app/pull-requests/new?source=feature%2Fx&dest=main');
    expect(compareUrl('/tmp/origin.git', 'main', 'feature/x')).toBeNull();
    expect(compareUrl('https://example.com/single', 'main', 'feature/x')).toBeNull();
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
