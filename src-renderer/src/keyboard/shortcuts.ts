import type { AgentMode } from '../../../src-preload/contract/agents';

/** What a global chord does; the one table behind the key handler and the `?` list. */
export type ShortcutId = 'palette' | 'newSession' | 'changes' | 'shortcuts';

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

/** Cmd on a Mac, Ctrl elsewhere: the platform's command key, as the app's menus use it. */
export const isMac = (platform: string) => /mac|iphone|ipad/i.test(platform);

const mod = (e: KeyLike, mac: boolean) => (mac ? e.metaKey && !e.ctrlKey : e.ctrlKey && !e.metaKey);

/** The global shortcut a key press means, or null. `?` is left to the caller, which knows whether the user is typing. */
export function shortcutOf(e: KeyLike, mac: boolean): ShortcutId | null {
  const k = e.key.toLowerCase();
  if (mod(e, mac) && !e.altKey && !e.shiftKey && k === 'k') return 'palette';
  if (mod(e, mac) && !e.altKey && !e.shiftKey && k === 'n') return 'newSession';
  // Ctrl+Shift+G, VS Code's Source Control: the session's changes.
  if (mod(e, mac) && !e.altKey && e.shiftKey && k === 'g') return 'changes';
  if (!e.ctrlKey && !e.metaKey && !e.altKey && e.key === '?') return 'shortcuts';
  return null;
}

export function chordText(id: ShortcutId | 'modeCycle', mac: boolean): string {
  const m = mac ? '⌘' : 'Ctrl+';
  switch (id) {
    case 'palette':
      return `${m}K`;
    case 'newSession':
      return `${m}N`;
    case 'changes':
      return mac ? '⌘⇧G' : 'Ctrl+Shift+G';
    case 'shortcuts':
      return '?';
    case 'modeCycle':
      return 'Shift+Tab';
  }
}

/** The `?` list: every chord the app answers to, global ones first. */
export function shortcutList(mac: boolean): Array<{ keys: string; what: string }> {
  return [
    { keys: chordText('palette', mac), what: 'Command palette: go to any view, project, session, feature or terminal, or run an action' },
    { keys: chordText('newSession', mac), what: 'New session (in the project you are looking at, else pick one)' },
    { keys: chordText('changes', mac), what: "The open session's Changes: diffs, revert, commit" },
    { keys: chordText('shortcuts', mac), what: 'This list (when not typing in a field)' },
    { keys: 'Shift+Tab', what: 'In the composer: next mode (Default → Auto-edit → Plan); YOLO only from the header' },
    { keys: 'Enter / Shift+Enter', what: 'In the composer: send (queue while a turn runs) / new line' },
    { keys: '↑ / ↓', what: 'In the composer: earlier inputs; in the slash menu: choose' },
    { keys: 'Esc', what: 'Interrupt the running turn; close a dialog' },
    { keys: mac ? '⌘Enter' : 'Ctrl+Enter', what: 'Submit a dialog (approve an approval, start a run)' },
    { keys: 'Tab', what: 'Next control; the first Tab on a page offers "Skip to main content"' },
  ];
}

/**
 * Shift+Tab's cycle, as in Claude Code (default → accept edits → plan). YOLO is not in it:
 * it runs every command unasked and is switched on only from the header, with its warning.
 */
const CYCLE: readonly AgentMode[] = ['default', 'auto-edit', 'plan'];

export function nextMode(mode: AgentMode): AgentMode {
  const i = CYCLE.indexOf(mode);
  return i < 0 ? 'default' : CYCLE[(i + 1) % CYCLE.length]!;
}

/** Whether keys typed at this element are text for it (then `?` is a character, not the list). */
export function isTyping(el: Element | null): boolean {
  if (!el) return false;
  const tag = el.tagName.toLowerCase();
  if (tag === 'textarea' || tag === 'select') return true;
  if (tag === 'input') {
    const type = (el.getAttribute('type') ?? 'text').toLowerCase();
    return !['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color', 'file'].includes(type);
  }
  return (el as HTMLElement).isContentEditable === true || el.closest('.xterm') !== null;
}
