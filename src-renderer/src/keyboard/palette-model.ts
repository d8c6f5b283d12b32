import type { AgentMode, Session } from '../../../src-preload/contract/agents';
import type { ProjectFeatures } from '../../../src-preload/contract/features';
import type { View } from '../store/app-slice';

/**
 * The command palette's entries and their matching, pure: what it reaches is built from the
 * store's lists, and what an entry does is data (a view to open or an action to run), so the
 * whole reach is unit-tested without a DOM.
 */

export type PaletteAction =
  | { type: 'view'; view: View }
  | { type: 'new-session'; projectId: string }
  | { type: 'add-project' }
  | { type: 'open-changes'; sessionId: string }
  | { type: 'set-mode'; sessionId: string; mode: AgentMode }
  | { type: 'shortcuts' }
  | { type: 'open-terminal'; terminalId: string };

export type PaletteKind = 'action' | 'view' | 'project' | 'session' | 'feature' | 'terminal';

export interface PaletteEntry {
  /** Unique among the entries (the list's key and the test's handle). */
  id: string;
  kind: PaletteKind;
  label: string;
  /** A second, quieter line: the project of a session, a feature's status. Also matched. */
  detail?: string;
  /** Other words it answers to, matched like the detail but not shown (a view's synonyms). */
  keywords?: string;
  /** The chord that does the same without the palette, shown at the right. */
  shortcut?: string;
  action: PaletteAction;
}

export const KIND_LABEL: Record<PaletteKind, string> = {
  action: 'Action',
  view: 'View',
  project: 'Project',
  session: 'Session',
  feature: 'Feature',
  terminal: 'Terminal',
};

/** The app's top-level views, in the sidebar's order. */
export const VIEWS: ReadonlyArray<{ label: string; view: View; words?: string }> = [
  { label: 'Board', view: { name: 'board' }, words: 'features projects home' },
  { label: 'Terminals', view: { name: 'terminals' }, words: 'shell console' },
  { label: 'Containers', view: { name: 'containers' }, words: 'docker podman images engines' },
  { label: 'Autopilot', view: { name: 'autopilot' }, words: 'runs plan' },
  { label: 'Mailbox', view: { name: 'mailbox' }, words: 'reports adr mission tasks' },
  { label: 'Settings', view: { name: 'settings' }, words: 'providers profiles theme preferences' },
];

export interface PaletteSource {
  view: View;
  projects: ReadonlyArray<{ id: string; name: string; path: string }>;
  sessions: readonly Session[];
  featureProjects: readonly ProjectFeatures[];
  terminals: ReadonlyArray<{ id: string; title: string; exited?: boolean }>;
  modes: ReadonlyArray<{ value: AgentMode; label: string }>;
  /** The chords as the platform writes them (Ctrl+N or ⌘N). */
  chords: { newSession: string; changes: string; shortcuts: string; modeCycle: string };
}

/** The project the user is looking at: the open project, the open session's or the open feature's. */
export function contextProjectId(view: View, sessions: readonly Session[]): string | null {
  if (view.name === 'project') return view.projectId;
  if (view.name === 'feature') return view.projectId;
  if (view.name === 'session') return sessions.find((s) => s.id === view.sessionId)?.projectId ?? null;
  if (view.name === 'mailbox') return view.projectId ?? null;
  return null;
}

export function paletteEntries(src: PaletteSource): PaletteEntry[] {
  const out: PaletteEntry[] = [];
  const projectName = (id: string | null) => (id ? (src.projects.find((p) => p.id === id)?.name ?? null) : null);
  const here = contextProjectId(src.view, src.sessions);
  const view = src.view;
  const session = view.name === 'session' ? src.sessions.find((s) => s.id === view.sessionId) : undefined;

  // Actions first: what the user is most likely reaching for from where they are.
  if (session) {
    out.push({ id: 'action:changes', kind: 'action', label: 'Open Changes', detail: session.title, shortcut: src.chords.changes, action: { type: 'open-changes', sessionId: session.id } });
    for (const m of src.modes) {
      if (m.value === session.mode) continue;
      out.push({ id: `action:mode:${m.value}`, kind: 'action', label: `Switch to ${m.label} mode`, detail: session.title, action: { type: 'set-mode', sessionId: session.id, mode: m.value } });
    }
  }
  const ordered = here ? [...src.projects.filter((p) => p.id === here), ...src.projects.filter((p) => p.id !== here)] : src.projects;
  ordered.forEach((p, i) =>
    out.push({ id: `action:new-session:${p.id}`, kind: 'action', label: `New session in ${p.name}`, ...(i === 0 ? { shortcut: src.chords.newSession } : {}), action: { type: 'new-session', projectId: p.id } }),
  );
  out.push({ id: 'action:add-project', kind: 'action', label: 'Add project', action: { type: 'add-project' } });
  out.push({ id: 'action:shortcuts', kind: 'action', label: 'Keyboard shortcuts', shortcut: src.chords.shortcuts, action: { type: 'shortcuts' } });

  for (const v of VIEWS) out.push({ id: `view:${v.view.name}`, kind: 'view', label: v.label, ...(v.words ? { keywords: v.words } : {}), action: { type: 'view', view: v.view } });
  for (const p of src.projects) out.push({ id: `project:${p.id}`, kind: 'project', label: p.name, detail: p.path, action: { type: 'view', view: { name: 'project', projectId: p.id } } });
  for (const s of src.sessions) {
    const where = projectName(s.projectId) ?? 'Other folders';
    out.push({ id: `session:${s.id}`, kind: 'session', label: s.title, detail: s.archived ? `${where} · archived` : where, action: { type: 'view', view: { name: 'session', sessionId: s.id } } });
  }
  for (const pf of src.featureProjects) {
    for (const f of pf.features) {
      const projectId = pf.projectId;
      if (!projectId) continue;
      const status = f.status ? ` · ${f.status.replace(/_/g, ' ')}` : '';
      out.push({ id: `feature:${projectId}/${f.slug}`, kind: 'feature', label: f.slug, detail: `${pf.name}${status}`, action: { type: 'view', view: { name: 'feature', projectId, slug: f.slug } } });
    }
  }
  for (const t of src.terminals) out.push({ id: `terminal:${t.id}`, kind: 'terminal', label: t.title, ...(t.exited ? { detail: 'exited' } : {}), action: { type: 'open-terminal', terminalId: t.id } });
  return out;
}

const isWordStart = (text: string, i: number) => i === 0 || /[\s/_.:·-]/.test(text[i - 1]!) || (text[i - 1] === text[i - 1]!.toLowerCase() && text[i] !== text[i]!.toLowerCase());

/**
 * How well `query` matches `text`: null when its characters do not all appear in order;
 * otherwise higher for contiguous runs, word starts and an early first hit. Case-insensitive.
 */
export function matchScore(query: string, text: string): number | null {
  const q = query.toLowerCase();
  const t = text.toLowerCase();
  if (q === '') return 0;
  const at = t.indexOf(q);
  // A whole substring beats any scattered match: more at a word start, more the earlier it is.
  if (at >= 0) return 1000 + (isWordStart(text, at) ? 200 : 0) - Math.min(at, 100) + (at === 0 && q.length === t.length ? 300 : 0);
  let score = 0;
  let ti = 0;
  let prev = -2;
  for (const ch of q) {
    if (ch === ' ') continue;
    const i = t.indexOf(ch, ti);
    if (i < 0) return null;
    score += i === prev + 1 ? 8 : isWordStart(text, i) ? 6 : 1;
    prev = i;
    ti = i + 1;
  }
  return score;
}

/** Every word of the query must match the label or the detail; entries in their list order when the query is empty. */
export function rankEntries(entries: readonly PaletteEntry[], query: string, limit = 50): PaletteEntry[] {
  const words = query.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return entries.slice(0, limit);
  const scored: Array<{ e: PaletteEntry; score: number; i: number }> = [];
  entries.forEach((e, i) => {
    let total = 0;
    for (const w of words) {
      const onLabel = matchScore(w, e.label);
      const onDetail = Math.max(e.detail ? (matchScore(w, e.detail) ?? -Infinity) : -Infinity, e.keywords ? (matchScore(w, e.keywords) ?? -Infinity) : -Infinity);
      // The label is what the user reads and types; a hit in the detail counts for less.
      const best = Math.max(onLabel ?? -Infinity, onDetail / 2);
      if (best === -Infinity) return;
      total += best;
    }
    scored.push({ e, score: total, i });
  });
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  return scored.slice(0, limit).map((s) => s.e);
}
