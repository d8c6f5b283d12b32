import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { SerializeAddon } from '@xterm/addon-serialize';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { TERMINAL_MAX_INPUT_CHARS, type AttachResult } from '../../../src-preload/contract';
import type { Client } from '../../../src-preload/client/client';
import { TerminalStream } from '../../../src-preload/client/terminal-stream';
import { outputScheduler } from '../../../src-preload/client/output-scheduler';
import { parkTerminal, ReplayWatch, restoreTerminal, TerminalViewCache, type CachedView, type ParkedTerminal } from './terminal-park';
import { isTerminalReply } from './terminal-replies';
import { currentTerminalTheme, terminalFontFamily, watchTheme } from './theme';
import { setLoadedTerminalViews } from './loaded-views';

/** Lines of history xterm keeps on screen; the main process keeps its own scrollback for replays. */
const XTERM_SCROLLBACK_LINES = 5_000;

/**
 * A terminal taken off the screen stays live this long, so switching back and forth between a
 * few terminals is only moving an element. After that it is parked (serialized, its xterm
 * disposed): a 5,000-line xterm holds several MB of cell buffers, and thirty of them would hold
 * the renderer's memory for output nobody looks at.
 */
export const PARK_AFTER_MS = 30_000;
/** Hidden live views beyond this many are parked at once, whatever the timing: memory stays bounded. */
const MAX_HIDDEN_LIVE = 6;
/**
 * A focused cursor stops blinking after this long without input or output, as GTK's
 * cursor-blink-timeout (10 s) does: a blinking cursor repaints twice a second for nobody.
 */
const CURSOR_BLINK_IDLE_MS = 10_000;
/**
 * Half of a cursor blink, as xterm's own (1 s: shown, then hidden). The DOM renderer blinks with
 * a CSS animation, which Chromium runs frame by frame: about 50 ms of main thread a second for
 * one cursor. Here a class on the view flips twice a second instead (terminals.css stops the
 * animation and hides the cursor in the off half): two small style passes a second.
 */
const CURSOR_BLINK_HALF_MS = 500;
/** The class that hides a blinking cursor for the off half of a blink (terminals.css). */
export const CURSOR_BLINK_OFF_CLASS = 'cursor-blink-off';

/** What the pane showing a view is told; rebound on every mount. */
export interface ViewUi {
  openSearch(): void;
  notice(text: string): void;
  error(title: string, e: unknown): void;
}

const NO_UI: ViewUi = { openSearch() {}, notice() {}, error() {} };

/**
 * One terminal's xterm and stream, independent of the React pane that shows it: a pane mounts
 * its element, and unmounting leaves it to the cache, which parks it after a while hidden.
 */
export class TerminalView implements CachedView {
  readonly element = document.createElement('div');
  readonly term: Terminal;
  readonly fit = new FitAddon();
  readonly search = new SearchAddon();
  private readonly serializer = new SerializeAddon();
  readonly stream: TerminalStream;
  readonly attached: Promise<AttachResult>;
  /** Whether the scrollback has been written (the end line must come after it) and the end line too. */
  isAttached = false;
  endWritten: boolean;
  ui: ViewUi = NO_UI;
  /** A snapshot is being written: fitting now would parse it at another size than it was taken at. */
  private restoring: boolean;
  private opened = false;
  private disposed = false;
  private blinkTimer: ReturnType<typeof setTimeout> | null = null;
  private blinkPhase: ReturnType<typeof setInterval> | null = null;
  private lastActivity = 0;
  private readonly replayWatch = new ReplayWatch();
  private readonly offs: Array<() => void> = [];

  constructor(
    client: Client,
    readonly terminalId: string,
    fontSize: number,
    parked: ParkedTerminal | null,
  ) {
    this.element.className = 'xterm-view';
    this.endWritten = parked?.endWritten ?? false;
    this.restoring = parked !== null;
    this.term = new Terminal({
      fontFamily: terminalFontFamily(),
      fontSize,
      theme: currentTerminalTheme(),
      scrollback: XTERM_SCROLLBACK_LINES,
      allowProposedApi: true,
      cursorBlink: true,
      macOptionIsMeta: true,
      ...(parked ? { cols: parked.cols, rows: parked.rows } : {}),
    });
    const term = this.term;
    term.loadAddon(this.fit);
    term.loadAddon(this.search);
    term.loadAddon(this.serializer);
    term.loadAddon(new Unicode11Addon());
    term.unicode.activeVersion = '11';
    term.loadAddon(
      new WebLinksAddon((_e, uri) => {
        void client.invoke('shell.openExternal', { url: uri }).then(
          (r) => r.opened || window.open(uri, '_blank', 'noopener,noreferrer'),
          () => window.open(uri, '_blank', 'noopener,noreferrer'),
        );
      }),
    );
    if (parked) {
      restoreTerminal(term, parked, () => {
        this.restoring = false;
        this.fitNow();
      });
    }
    this.stream = new TerminalStream(
      client,
      terminalId,
      {
        write: (data, cb) => {
          this.activity();
          this.replayWatch.output();
          term.write(data, cb);
        },
        reset: () => term.reset(),
      },
      { onGap: () => this.ui.notice('Some output was too old to replay.'), ...(parked ? { resumeFrom: parked.offset } : {}) },
    );
    this.attached = this.stream.attach();
    this.attached.then(
      (r) => {
        this.isAttached = true;
        if (r.terminal.status === 'running' && (r.terminal.cols !== term.cols || r.terminal.rows !== term.rows) && !this.restoring) {
          void client.invoke('terminals.resize', { id: terminalId, cols: term.cols, rows: term.rows }).catch(() => undefined);
        }
      },
      (e: unknown) => this.ui.error('Could not open the terminal', e),
    );

    // Input goes out in order; a big paste is split to the contract's limit.
    let sending = Promise.resolve();
    const input = term.onData((data) => {
      // xterm answering the queries of a replayed history: the program asked them long ago.
      if (this.stream.replaying && isTerminalReply(data)) return;
      this.activity();
      // Its echo and what the command prints next go before other terminals' output.
      this.stream.noteInput();
      for (let i = 0; i < data.length; i += TERMINAL_MAX_INPUT_CHARS) {
        const part = data.slice(i, i + TERMINAL_MAX_INPUT_CHARS);
        sending = sending.then(() => client.invoke('terminals.write', { id: terminalId, data: part }).then(() => undefined, () => undefined));
      }
    });
    const resized = term.onResize(({ cols, rows }) => {
      this.replayWatch.resized();
      void client.invoke('terminals.resize', { id: terminalId, cols, rows }).catch(() => undefined);
    });
    this.offs.push(() => input.dispose(), () => resized.dispose());
    term.attachCustomKeyEventHandler((e) => {
      if (e.type !== 'keydown') return true;
      const mod = e.ctrlKey && e.shiftKey;
      if ((mod && e.code === 'KeyC') || (e.metaKey && e.code === 'KeyC' && term.hasSelection())) {
        e.preventDefault();
        if (term.hasSelection()) void navigator.clipboard?.writeText(term.getSelection()).catch(() => this.ui.notice('The browser did not allow copying; use the context menu.'));
        return false;
      }
      // Ctrl+Shift+V (and Cmd+V) make the browser paste into xterm's textarea by itself, which
      // xterm handles (bracketed paste included); xterm only has to not send ^V.
      if ((mod && e.code === 'KeyV') || (e.metaKey && e.code === 'KeyV')) return false;
      if (mod && e.code === 'KeyF') {
        e.preventDefault();
        this.ui.openSearch();
        return false;
      }
      return true;
    });
    this.offs.push(watchTheme(() => (term.options.theme = currentTerminalTheme())));
  }

  /** Puts the view into a pane's host element (xterm opens on the first mount). */
  mount(host: HTMLElement, ui: ViewUi): void {
    this.ui = ui;
    host.appendChild(this.element);
    if (!this.opened) {
      this.opened = true;
      this.term.open(this.element);
    }
    this.fitNow();
    this.activity();
  }

  /** Takes the view off the screen; it keeps receiving output (the cache decides when to park it). */
  unmount(): void {
    this.ui = NO_UI;
    this.element.remove();
    this.stopBlinkTimer();
    // xterm keeps blinking a cursor it believes focused, off the page too: a hidden view's timer
    // would wake the renderer twice a second for nothing. Mounting again turns it back on.
    this.term.options.cursorBlink = false;
  }

  fitNow(): void {
    if (this.restoring || !this.element.isConnected) return;
    try {
      this.fit.fit();
    } catch {
      // Not laid out yet: the pane's ResizeObserver fits it once it has a size.
    }
  }

  async park(): Promise<ParkedTerminal | null> {
    // The stream stops first: the snapshot then holds exactly what was written up to its offset.
    this.stream.dispose();
    try {
      const replayable = this.replayWatch.replayable(this.stream.holdsAllFromStart, this.stream.offset ?? 0);
      return this.restoring || !this.isAttached ? null : await parkTerminal(this.term, this.serializer, this.stream.offset, this.endWritten, replayable);
    } finally {
      this.dispose();
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stopBlinkTimer();
    for (const off of this.offs.splice(0)) off();
    this.stream.dispose();
    this.term.dispose();
    this.element.remove();
  }

  /** Input or output: the cursor blinks again, and stops once things are quiet. */
  private activity(): void {
    this.lastActivity = performance.now();
    if (this.disposed || this.term.options.disableStdin) return;
    if (!this.term.options.cursorBlink) this.term.options.cursorBlink = true;
    // One timer per quiet period, not one per chunk: it re-arms itself if output came meanwhile.
    if (this.blinkTimer || !this.element.isConnected) return;
    const check = () => {
      const quiet = performance.now() - this.lastActivity;
      if (quiet < CURSOR_BLINK_IDLE_MS) {
        this.blinkTimer = setTimeout(check, CURSOR_BLINK_IDLE_MS - quiet);
        return;
      }
      this.blinkTimer = null;
      this.stopBlinkPhase();
      if (!this.disposed) this.term.options.cursorBlink = false;
    };
    this.blinkTimer = setTimeout(check, CURSOR_BLINK_IDLE_MS);
    // Shown while typing or printing, as xterm's animation restarts on each cursor move.
    this.blinkPhase ??= setInterval(() => {
      const classes = this.element.classList;
      if (performance.now() - this.lastActivity >= CURSOR_BLINK_HALF_MS) classes.toggle(CURSOR_BLINK_OFF_CLASS);
      // Only when hidden: removing an absent class still rewrites the attribute (a style pass).
      else if (classes.contains(CURSOR_BLINK_OFF_CLASS)) classes.remove(CURSOR_BLINK_OFF_CLASS);
    }, CURSOR_BLINK_HALF_MS);
  }

  private stopBlinkTimer(): void {
    if (this.blinkTimer) clearTimeout(this.blinkTimer);
    this.blinkTimer = null;
    this.stopBlinkPhase();
  }

  private stopBlinkPhase(): void {
    if (this.blinkPhase) clearInterval(this.blinkPhase);
    this.blinkPhase = null;
    if (this.element.classList.contains(CURSOR_BLINK_OFF_CLASS)) this.element.classList.remove(CURSOR_BLINK_OFF_CLASS);
  }
}

// Output is paced for whoever types while the page is shown, and parsed at full speed while it
// is hidden (output-scheduler.ts: a hidden page's timers run about once a second).
outputScheduler.setPaced(document.visibilityState !== 'hidden');
document.addEventListener('visibilitychange', () => outputScheduler.setPaced(document.visibilityState !== 'hidden'));

/** The renderer's hidden and parked terminals (one window, one cache). */
export const terminalViews = new TerminalViewCache<TerminalView>({ parkAfterMs: PARK_AFTER_MS, maxHidden: MAX_HIDDEN_LIVE });
setLoadedTerminalViews(terminalViews);

/** The view for a pane: the hidden live one, else restored from its snapshot, else new (full replay). */
export function acquireTerminalView(client: Client, terminalId: string, fontSize: number): TerminalView {
  const got = terminalViews.take(terminalId);
  if (got && 'view' in got) {
    if (got.view.term.options.fontSize !== fontSize) got.view.term.options.fontSize = fontSize;
    return got.view;
  }
  return new TerminalView(client, terminalId, fontSize, got ? got.parked : null);
}
