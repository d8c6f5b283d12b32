/** Which sessions a list shows: archived ones apart, and a search by title. Pure; unit-tested. */
import type { Session } from '../../../src-preload/contract/agents';

/** Case- and accent-insensitive, every word of the query somewhere in the title. */
export function titleMatches(title: string, query: string): boolean {
  const norm = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  const t = norm(title);
  return norm(query)
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => t.includes(w));
}

/** The sessions of the default lists: not archived, matching the search. */
export function activeSessions<S extends Pick<Session, 'title' | 'archived'>>(sessions: readonly S[], query = ''): S[] {
  return sessions.filter((s) => !s.archived && titleMatches(s.title, query));
}

/** The archived sessions matching the search. */
export function archivedSessions<S extends Pick<Session, 'title' | 'archived'>>(sessions: readonly S[], query = ''): S[] {
  return sessions.filter((s) => s.archived === true && titleMatches(s.title, query));
}
