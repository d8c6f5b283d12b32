import type { Client } from '../../../src-preload/client/client';
import type { TerminalHistory, TerminalInfo } from '../../../src-preload/contract';
import { afterIdle } from '../lib/after-idle';
import { terminalTabs } from './terminal-tabs';

/**
 * The scrollbacks of terminals this window has not shown yet, read once the page has settled,
 * one at a time while it is idle, so a terminal's first show parses what is here already and asks
 * the main process only for what came after (`terminals.attach` with `since`): the wait for its
 * whole scrollback (a 5,000-line shell is ~400 KB, 20–30 ms to come through the browser's socket)
 * is off the first show. A read ahead that is too old to continue from is dropped by the stream
 * and the scrollback replayed as before (terminal-stream.ts, `history`).
 *
 * Bounded: at most HISTORY_AHEAD_MAX_CHARS characters in all (strings of one byte per character
 * for plain text, two otherwise), in the tab bar's order (running before exited, newest first).
 * A terminal's read ahead goes when its view takes it or when the terminal is closed.
 */
export const HISTORY_AHEAD_MAX_CHARS = 16_000_000;
/** After the terminal list first came: the page's own start (the board, its lists) goes first, as the views' code does (App.tsx). */
export const HISTORY_AHEAD_AFTER_MS = 2_000;

const ahead = new Map<string, TerminalHistory>();
let heldChars = 0;

/** The read ahead of a terminal's scrollback, taken out (its view holds it from now on), or null. */
export function takeHistoryAhead(terminalId: string): TerminalHistory | null {
  const h = ahead.get(terminalId);
  if (!h) return null;
  ahead.delete(terminalId);
  heldChars -= h.data.length;
  return h;
}

/** Forgets the read aheads of terminals that no longer exist. */
export function retainHistoryAhead(ids: ReadonlySet<string>): void {
  for (const [id, h] of ahead) {
    if (ids.has(id)) continue;
    ahead.delete(id);
    heldChars -= h.data.length;
  }
}

/** What is held, for tests and the page's own checks. */
export function historyAheadCounts(): { terminals: number; chars: number } {
  return { terminals: ahead.size, chars: heldChars };
}

export interface HistoryAheadOptions {
  /** A terminal that has a view or a snapshot in this window already: nothing to read for it. */
  hasView(terminalId: string): boolean;
  /** The terminals as they are now (closed ones are skipped when their turn comes). */
  current(): readonly TerminalInfo[];
  maxChars?: number;
  /** Waits until the page is idle (afterIdle unless a test brings its own). */
  whenIdle?: (fn: () => void) => () => void;
}

/**
 * Reads ahead the scrollbacks of `terminals` (in the tab bar's order), one per idle moment,
 * until the budget is spent; returns what stops it. A read that fails is skipped: that
 * terminal's first show reads its scrollback as before.
 */
export function readHistoriesAhead(client: Client, terminals: readonly TerminalInfo[], o: HistoryAheadOptions): () => void {
  const max = o.maxChars ?? HISTORY_AHEAD_MAX_CHARS;
  const whenIdle = o.whenIdle ?? ((fn: () => void) => afterIdle(fn, 5_000));
  const order = terminalTabs(terminals).flatMap((e) => (e.kind === 'terminal' ? [e.terminal.id] : e.terminals.map((t) => t.id)));
  let stopped = false;
  let cancelIdle: (() => void) | null = null;
  const step = (i: number): void => {
    if (stopped || i >= order.length || heldChars >= max) return;
    cancelIdle = whenIdle(() => {
      cancelIdle = null;
      const id = order[i]!;
      if (stopped) return;
      if (ahead.has(id) || o.hasView(id) || !o.current().some((t) => t.id === id)) return step(i + 1);
      client.invoke('terminals.history', { id }).then(
        (h) => {
          // Shown (or closed) meanwhile, or over the budget: not kept.
          if (!stopped && !ahead.has(id) && !o.hasView(id) && o.current().some((t) => t.id === id) && heldChars + h.data.length <= max) {
            ahead.set(id, h);
            heldChars += h.data.length;
          }
          step(i + 1);
        },
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
