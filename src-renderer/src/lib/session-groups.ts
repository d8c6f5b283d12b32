import type { Session } from '../../../src-preload/contract/agents';

export interface SessionGroup {
  key: string;
  label: string;
  projectId: string | null;
  /** Most recent first, as the session list is sorted. */
  sessions: Session[];
}

/**
 * Sessions by project for the sidebar: the project with the most recent activity first,
 * sessions in folders outside any project last. Pure.
 */
export function groupSessions(sessions: readonly Session[], projects: ReadonlyArray<{ id: string; name: string }>): SessionGroup[] {
  const groups = new Map<string, SessionGroup>();
  for (const s of sessions) {
    const key = s.projectId ?? '';
    let g = groups.get(key);
    if (!g) {
      const name = s.projectId ? (projects.find((p) => p.id === s.projectId)?.name ?? 'Removed project') : 'Other folders';
      g = { key, label: name, projectId: s.projectId, sessions: [] };
      groups.set(key, g);
    }
    g.sessions.push(s);
  }
  const latest = (g: SessionGroup) => Math.max(...g.sessions.map((s) => s.updatedAt));
  return [...groups.values()].sort((a, b) => (a.projectId === null ? 1 : b.projectId === null ? -1 : latest(b) - latest(a)));
}
