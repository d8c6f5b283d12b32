import type { TerminalInfo } from '../../../src-preload/contract';

/**
 * The Terminals view's tab bar, pure: running terminals first, then the newest; the commands
 * an agent session ran are one tab for the session (its newest command in front, the rest a
 * click away), not one tab each — a busy agent otherwise buried the user's own shells.
 */
export type TabEntry = { kind: 'terminal'; terminal: TerminalInfo } | { kind: 'session'; sessionId: string; terminals: TerminalInfo[] };

const running = (t: TerminalInfo) => t.status === 'running';

/** Running before exited, then newest first; ids break ties so the order never flickers. */
export function compareTerminals(a: TerminalInfo, b: TerminalInfo): number {
  return Number(running(b)) - Number(running(a)) || b.startedAt - a.startedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function terminalTabs(terminals: readonly TerminalInfo[]): TabEntry[] {
  const sorted = [...terminals].sort(compareTerminals);
  const out: TabEntry[] = [];
  const groups = new Map<string, { kind: 'session'; sessionId: string; terminals: TerminalInfo[] }>();
  for (const t of sorted) {
    // An agent's command terminals group under their session; an interactive shell opened for a session stays its own tab.
    const sid = t.kind === 'command' ? t.owner.sessionId : undefined;
    if (!sid) {
      out.push({ kind: 'terminal', terminal: t });
      continue;
    }
    const g = groups.get(sid);
    if (g) g.terminals.push(t);
    else {
      const entry = { kind: 'session' as const, sessionId: sid, terminals: [t] };
      groups.set(sid, entry);
      // The group sits where its first (running or newest) command sorts.
      out.push(entry);
    }
  }
  // A session with a single command is just that command's tab.
  return out.map((e) => (e.kind === 'session' && e.terminals.length === 1 ? { kind: 'terminal', terminal: e.terminals[0]! } : e));
}
