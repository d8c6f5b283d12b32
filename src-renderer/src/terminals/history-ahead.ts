import type { Client } from '../../../src-preload/client/client';
import type { TerminalHistory, TerminalInfo } from '../../../src-preload/contract';
import { afterIdle } from '../lib/after-idle';
import { terminalTabs } from './terminal-tabs';

/**
 * The scrollbacks of terminals this window has not shown yet, read once the page has settled,
 * one at a time while it is idle, so a terminal's first show parses what is here already and asks
 * the main process only for what came after (`terminals.attach` with `since`): the wait for its
 * whole scrollback (a 5,000-line shell is ~400 KB, 20–30 ms to come through the browser's socket)
 * is off the first show. The stream writes what the attach brings after it as a replay too, and
 * a read ahead that is too old to continue from is dropped there and the scrollback replayed
 * (terminal-stream.ts, `history`).
 *
 * Bounded: at most HISTORY_AHEAD_MAX_CHARS characters in all (strings of one byte per character
 * for plain text, two otherwise), in the tab bar's order (running before exited, newest first);
 * the main process answers nothing for a scrollback over what is left (`maxChars`). Kept up to
 * date without polling: going to the Terminals view brings the read aheads of running terminals
 * older than HISTORY_AHEAD_REFRESH_MS up to date, by what came after each (`since`). A terminal's
 * read ahead goes when its view takes it or when the terminal is closed.
 */
export const HISTORY_AHEAD_MAX_CHARS = 16_000_000;
/** After the terminal list first came: the page's own start (the board, its lists) goes first, as the views' code does (App.tsx). */
export const HISTORY_AHEAD_AFTER_MS = 2_000;
/** A running terminal's read ahead older than this is brought up to date when the app goes to the Terminals view. */
export const HISTORY_AHEAD_REFRESH_MS = 60_000;

/** A read ahead, when it was read (or last brought up to date), and whether its terminal still ran then (more may come). */
export interface HistoryAhead {
  history: TerminalHistory;
  readAt: number;
  running: boolean;
}

const ahead = new Map<string, HistoryAhead>();
let heldChars = 0;

function put(id: string, entry: HistoryAhead): void {
  forget(id);
  ahead.set(id, entry);
  heldChars += entry.history.data.length;
}

function forget(id: string): void {
  const old = ahead.get(id);
  if (!old) return;
  ahead.delete(id);
  heldChars -= old.history.data.length;
}

/** The read ahead of a terminal's scrollback, taken out (its view holds it from now on), or null. */
export function takeHistoryAhead(terminalId: string): HistoryAhead | null {
  const entry = ahead.get(terminalId) ?? null;
  forget(terminalId);
  return entry;
}

/**
 * A read ahead taken by a view that was disposed before any pane showed it (the app moved on):
 * kept again for the terminal's next first show, unless a newer one was read meanwhile or it
 * no longer fits.
 */
export function giveBackHistoryAhead(terminalId: string, entry: HistoryAhead, maxChars = HISTORY_AHEAD_MAX_CHARS): void {
  if (ahead.has(terminalId) || heldChars + entry.history.data.length > maxChars) return;
  put(terminalId, entry);
}

/** Forgets the read aheads of terminals that no longer exist. */
export function retainHistoryAhead(ids: ReadonlySet<string>): void {
  for (const id of [...ahead.keys()]) if (!ids.has(id)) forget(id);
}

/** What is held, for tests and the page's own checks. */
export function historyAheadCounts(): { terminals: number; chars: number } {
  return { terminals: ahead.size, chars: heldChars };
}

export interface HistoryAheadOptions {
  /** A terminal that has a view or a snapshot in this window already: nothing to read for it. */
  hasView(terminalId: string): boolean;
  /** The terminals as they are now: read in their order at the start, closed ones skipped when their turn comes. */
  current(): readonly TerminalInfo[];
  /** Read aheads of running terminals older than this are brought up to date (none when absent). */
  refreshOlderThanMs?: number;
  maxChars?: number;
  /** Waits until the page is idle (afterIdle unless a test brings its own). */
  whenIdle?: (fn: () => void) => () => void;
  now?: () => number;
}

/**
 * Reads ahead the scrollbacks of the terminals (in the tab bar's order), one per idle moment,
 * within the budget; returns what stops it. A read that fails is skipped: that terminal's first
 * show reads its scrollback as before.
 */
export function readHistoriesAhead(client: Client, o: HistoryAheadOptions): () => void {
  const max = o.maxChars ?? HISTORY_AHEAD_MAX_CHARS;
  const whenIdle = o.whenIdle ?? ((fn: () => void) => afterIdle(fn, 5_000));
  const now = o.now ?? (() => Date.now());
  const order = terminalTabs(o.current()).flatMap((e) => (e.kind === 'terminal' ? [e.terminal.id] : e.terminals.map((t) => t.id)));
  let stopped = false;
  let cancelIdle: (() => void) | null = null;
  const live = (id: string) => !stopped && !o.hasView(id) && o.current().some((t) => t.id === id);

  /** Reads one terminal's scrollback, or what came after its read ahead; settles when done (never fails). */
  const readOne = async (id: string): Promise<void> => {
    const old = ahead.get(id);
    // A read ahead is final once its terminal had ended when it was read; else brought up to date when old enough.
    if (old && (o.refreshOlderThanMs === undefined || !old.running || now() - old.readAt < o.refreshOlderThanMs)) return;
    const since = old?.history.end;
    // What the answer may take: what is left of the budget (for a refresh, the answer is added
    // to the old read ahead, or replaces it: bounded as if added).
    const room = max - heldChars;
    if (room <= 0 && !old) return;
    const running = o.current().find((t) => t.id === id)?.status === 'running';
    const h = await client.invoke('terminals.history', since === undefined ? { id, maxChars: room } : { id, since, maxChars: Math.max(0, room) });
    // Shown, closed or stopped meanwhile; or a newer read came first.
    if (!live(id) || ahead.get(id) !== old) return;
    // Over the budget: nothing new is kept (an old read ahead stays; its first show attaches from its end).
    if (!h) return;
    const history = old && h.start === old.history.end ? { data: old.history.data + h.data, start: old.history.start, end: h.end } : h;
    forget(id);
    if (heldChars + history.data.length <= max) put(id, { history, readAt: now(), running });
  };

  const step = (i: number): void => {
    if (stopped || i >= order.length) return;
    cancelIdle = whenIdle(() => {
      cancelIdle = null;
      const id = order[i]!;
      if (!live(id)) return step(i + 1);
      readOne(id).then(
        () => step(i + 1),
        () => step(i + 1),
      );
    });
  };
  step(0);
  return () => {
    stopped = true;
    cancelIdle?.();
  };
}
