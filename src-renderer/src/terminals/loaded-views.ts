/**
 * The terminal views, once their module (and xterm with it, a third of the UI's code) is loaded:
 * the first terminal pane loads it, the app's first page does not. Until then no view exists, so
 * there is none to drop when a terminal closes.
 */
interface Retaining {
  /** Drops the views and snapshots of every terminal not in `ids`. */
  retain(ids: ReadonlySet<string>): void;
  /** Whether the terminal has a view or a snapshot in this window (shown, hidden, parked, started ahead). */
  has(id: string): boolean;
}

let loaded: Retaining | null = null;

/** Called once by terminal-view.ts as it loads. */
export function setLoadedTerminalViews(views: Retaining): void {
  loaded = views;
}

export function loadedTerminalViews(): Retaining | null {
  return loaded;
}
