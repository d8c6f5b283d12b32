import { describe, expect, it } from 'vitest';
import { activeSessions, archivedSessions, titleMatches } from '../../../../src-renderer/src/sessions/session-filter';

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
