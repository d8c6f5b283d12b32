import { describe, expect, it } from 'vitest';
import { activeSessions, archivedSessions, madeBy, splitByMaker, titleMatches } from '../../../../src-renderer/src/sessions/session-filter';

const S = [
  { title: 'Fix the login form', archived: false },
  { title: 'Résumé parser', archived: undefined },
  { title: 'Old spike: login via SSO', archived: true },
];

describe('session search and archive filters', () => {
  it('matches every word of the query, ignoring case and accents', () => {
    expect(titleMatches('Fix the login form', 'LOGIN fix')).toBe(true);
    expect(titleMatches('Fix the login form', 'login sso')).toBe(false);
    expect(titleMatches('Résumé parser', 'resume')).toBe(true);
    expect(titleMatches('anything', '   ')).toBe(true);
  });

  it('keeps archived sessions out of the default list and lists them apart', () => {
    expect(activeSessions(S).map((s) => s.title)).toEqual(['Fix the login form', 'Résumé parser']);
    expect(activeSessions(S, 'login').map((s) => s.title)).toEqual(['Fix the login form']);
    expect(archivedSessions(S).map((s) => s.title)).toEqual(['Old spike: login via SSO']);
    expect(archivedSessions(S, 'parser')).toEqual([]);
  });
});

describe('app-made sessions apart from the user\'s own', () => {
  it('groups sessions with a role by what made them and keeps the user\'s own in their order', () => {
    const list = [
      { title: 'Feature auth', role: 'coder' as const },
      { title: 'My refactor', role: undefined },
      { title: 'Init shop: analysis', role: 'planner' as const },
      { title: 'Mailbox cmd-1: write the docs', role: 'coder' as const },
      { title: 'Init shop: setup', role: 'coder' as const },
      { title: 'Plan: auth', role: 'planner' as const },
      { title: 'Mailbox cmd-2: fix it', role: 'coder' as const },
      { title: 'A question', role: undefined },
    ];
    const { own, made } = splitByMaker(list);
    expect(own.map((s) => s.title)).toEqual(['My refactor', 'A question']);
    expect(made.map((g) => [g.label, g.sessions.length])).toEqual([
      ['Feature auth', 1],
      ['Init shop', 2],
      ['Mailbox', 2],
      ['Plan: auth', 1],
    ]);
    expect(madeBy('')).toBe('Flightdeck');
  });
});
