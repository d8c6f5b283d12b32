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

/** App-made sessions of one origin ("Feature checkout", "Plan: auth", "Mailbox"), most recent first. */
export interface MadeGroup<S> {
  label: string;
  sessions: S[];
}

/**
 * What made an app-made session, from the title its capability gives it: "Init shop: analysis"
 * and "Init shop: setup" come from "Init shop", "Feature auth" from itself, every "Mailbox …"
 * task from the mailbox.
 */
export function madeBy(title: string): string {
  if (/^mailbox\b/i.test(title)) return 'Mailbox';
  const colon = title.indexOf(':');
  const head = (colon > 0 ? title.slice(0, colon) : title).trim();
  return head === 'Plan' ? title.trim() : head || 'Flightdeck';
}

/**
 * The user's own sessions apart from those the app made (a role: init, planning, feature
 * phases, autopilot, mailbox), which are grouped by what made them: a busy feature run must
 * never push the user's sessions out of the list.
 */
export function splitByMaker<S extends Pick<Session, 'title' | 'role'>>(sessions: readonly S[]): { own: S[]; made: MadeGroup<S>[] } {
  const own: S[] = [];
  const made = new Map<string, S[]>();
  for (const s of sessions) {
    if (!s.role) {
      own.push(s);
      continue;
    }
    const label = madeBy(s.title);
    made.set(label, [...(made.get(label) ?? []), s]);
  }
  return { own, made: [...made.entries()].map(([label, list]) => ({ label, sessions: list })) };
}
