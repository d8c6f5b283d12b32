import { Terminal, type ITerminalInitOnlyOptions, type ITerminalOptions } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { SerializeAddon } from '@xterm/addon-serialize';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { DEFAULT_TERMINAL_FONT_SIZE, type AttachResult } from '../../../src-preload/contract';
import { splitTerminalInput } from '../../../src-preload/contract/terminal-frames';
import type { Client } from '../../../src-preload/client/client';
import { TerminalStream } from '../../../src-preload/client/terminal-stream';
import { outputScheduler } from '../../../src-preload/client/output-scheduler';
import { COPY_PARK_MIN_LINES, OutputCopy, parkedAs, parkTerminal, ReplayWatch, resetInOrder, restoreTerminal, TerminalViewCache, type CachedView, type ParkedTerminal } from './terminal-park';
import { isTerminalReply, isTypedInput } from '../../../src-preload/contract/terminal-input';
import { currentTerminalTheme, terminalFontFamily, watchTheme } from './theme';
import { shareGlyphWidths } from './glyph-widths';
import { setLoadedTerminalViews } from './loaded-views';
import { giveBackHistoryAhead, takeHistoryAhead, type HistoryAhead } from './history-ahead';
import { registerAheadOfView } from '../lib/ahead-of-view';

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

/**
 * A new view's xterm opens (gets its renderer) once its replay is parsed, so a 5,000-line history
 * is parsed without a screen: opened first, each line scrolled the viewport (a scrollbar update
 * and a timer) and every frame in between painted a part of the history. Never longer than this:
 * a slow host shows the terminal opening, filling as its history comes.
 */
const OPEN_AFTER_REPLAY_MAX_MS = 1_000;
/** xterm's scrollbar width when no overview ruler is set (its ViewportConstants.DEFAULT_SCROLL_BAR_WIDTH). */
const XTERM_SCROLLBAR_PX = 14;

/**
 * A character cell and what surrounds the rows (the padding, the scrollbar), as the last fitted
 * terminal measured them: a new terminal of the same font is sized with them before it opens.
 */
interface CellMetrics {
  key: string;
  cellWidth: number;
  cellHeight: number;
  extraWidth: number;
  extraHeight: number;
}
/** Kept across restarts: the first terminal shown after one is sized before it opens too. */
const METRICS_KEY = 'flightdeck.terminals.cellMetrics';
let lastMetrics: CellMetrics | null = readMetrics();

function readMetrics(): CellMetrics | null {
  try {
    const m = JSON.parse(globalThis.localStorage?.getItem(METRICS_KEY) ?? 'null') as Partial<CellMetrics> | null;
    const ok = (n: unknown, min: number) => typeof n === 'number' && Number.isFinite(n) && n >= min && n < 1_000;
    // Anything else (an older shape, a hand edit) is ignored: the next fitted terminal writes it again.
    return m && typeof m.key === 'string' && ok(m.cellWidth, 0.5) && ok(m.cellHeight, 0.5) && ok(m.extraWidth, 0) && ok(m.extraHeight, 0) ? (m as CellMetrics) : null;
  } catch {
    return null;
  }
}
/** Metrics hold for one font, size, pixel ratio and renderer (WebGL rounds the cell to device pixels, the DOM renderer does not). */
const metricsKey = (fontSize: number, renderer: string) => `${terminalFontFamily()}|${fontSize}|${window.devicePixelRatio}|${renderer}`;

/** The cell size xterm's renderer measured (what FitAddon divides by); null before it has. */
function measuredCell(term: Terminal): { width: number; height: number } | null {
  const core = (term as unknown as { _core?: { _renderService?: { dimensions?: { css?: { cell?: { width: number; height: number } } } } } })._core;
  const cell = core?._renderService?.dimensions?.css?.cell;
  return cell && cell.width > 0 && cell.height > 0 ? { width: cell.width, height: cell.height } : null;
}

/** The columns and rows FitAddon would choose in `parent` with these metrics. */
function sizeFor(m: CellMetrics, parent: HTMLElement): { cols: number; rows: number } | null {
  const style = window.getComputedStyle(parent);
  const width = parseInt(style.getPropertyValue('width'));
  const height = parseInt(style.getPropertyValue('height'));
  if (!(width > 0) || !(height > 0)) return null;
  return { cols: Math.max(2, Math.floor((width - m.extraWidth) / m.cellWidth)), rows: Math.max(1, Math.floor((height - m.extraHeight) / m.cellHeight)) };
}

/** What an opened xterm measured (its cell) and what surrounds its rows; null before it has. */
function metricsOf(term: Terminal, renderer: string): CellMetrics | null {
  const cell = measuredCell(term);
  const el = term.element;
  if (!cell || !el) return null;
  const style = window.getComputedStyle(el);
  const px = (name: string) => parseInt(style.getPropertyValue(name)) || 0;
  const scrollbar = term.options.scrollback === 0 ? 0 : term.options.overviewRuler?.width || XTERM_SCROLLBAR_PX;
  return {
    key: metricsKey(term.options.fontSize ?? 0, renderer),
    cellWidth: cell.width,
    cellHeight: cell.height,
    extraWidth: px('padding-left') + px('padding-right') + scrollbar,
    extraHeight: px('padding-top') + px('padding-bottom'),
  };
}

/** Keeps metrics for sizing the next new terminal before it opens, in this window and across restarts. */
function keepMetrics(next: CellMetrics): void {
  if (lastMetrics && JSON.stringify(lastMetrics) === JSON.stringify(next)) return;
  lastMetrics = next;
  try {
    globalThis.localStorage?.setItem(METRICS_KEY, JSON.stringify(next));
  } catch {
    // Storage full or off: this window still has them.
  }
}

/**
 * Measures the cell of a font no terminal of this window (or an earlier run) has measured yet: a
 * throwaway xterm with no history, opened off screen with the DOM renderer, about 10 ms. Without
 * it a new terminal had to open before its history was parsed, and drew every frame of the
 * parse: the first terminal shown after installing took 200–350 ms instead of about 90. A pane
 * that then draws with WebGL (which rounds the cell to device pixels) may differ by a fraction
 * of a pixel: its first fit after opening corrects the size (one reflow of the history) and
 * keeps WebGL's cell for the next terminals. No WebGL context is made for a measurement:
 * Chromium keeps at most 16 and drops the oldest, a visible pane's.
 */
function probeMetrics(fontSize: number, renderer: string): CellMetrics | null {
  const t = openThrowaway(fontSize);
  try {
    return t && metricsOf(t.term, renderer);
  } finally {
    t?.dispose();
  }
}

/**
 * An xterm nobody sees, opened (DOM renderer) in an invisible place laid out like a pane's;
 * null when one cannot be made. `dispose` takes it and its place away.
 */
function openThrowaway(fontSize: number, options: ITerminalOptions & ITerminalInitOnlyOptions = {}): { term: Terminal; dispose(): void } | null {
  let term: Terminal | null = null;
  let place: { element: HTMLElement; remove(): void } | null = null;
  const dispose = () => {
    term?.dispose();
    place?.remove();
    term = null;
    place = null;
  };
  try {
    term = new Terminal({ fontFamily: terminalFontFamily(), fontSize, scrollback: XTERM_SCROLLBACK_LINES, allowProposedApi: true, ...options });
    place = offScreenPlace();
    term.open(place.element);
    return { term, dispose };
  } catch {
    dispose();
    return null;
  }
}

/**
 * A place for a terminal nobody sees, laid out like a pane's (the classes the stylesheet sizes
 * the rows by). In the viewport, under everything and invisible: xterm stops drawing a terminal
 * its IntersectionObserver finds off screen.
 */
function offScreenPlace(): { element: HTMLElement; remove(): void } {
  const host = document.createElement('div');
  host.className = 'xterm-host';
  host.setAttribute('aria-hidden', 'true');
  host.style.cssText = 'position:fixed;left:0;top:0;width:960px;height:480px;visibility:hidden;pointer-events:none;z-index:-1;contain:strict';
  const element = document.createElement('div');
  element.className = 'xterm-view';
  host.appendChild(element);
  document.body.appendChild(host);
  return { element, remove: () => host.remove() };
}

/** Typical output for the warm-up: prompts, a test run's lines in colour, every printable ASCII glyph plain and bold. */
function warmUpOutput(): string {
  const ascii = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');
  const lines = [ascii, `\x1b[1m${ascii}\x1b[0m`];
  for (let i = 1; i <= WARM_UP_LINES; i++) {
    lines.push(i % 10 === 0 ? `\x1b[1;32m~/project\x1b[0m$ npm test -- --run src/part-${i}` : ` \x1b[32m✓\x1b[0m src/module-${i}/index.test.ts \x1b[2m(${i % 17} tests)\x1b[0m \x1b[33m${i % 97} ms\x1b[0m`);
  }
  return `${lines.join('\r\n')}\r\n`;
}
/** Enough lines for V8 to compile xterm's parse and scroll paths, a few ms of parse. */
const WARM_UP_LINES = 2_000;

let warmedUp = false;
/** A view of this page has opened its xterm (the warm-up is then moot). */
let anyViewOpened = false;
/** The throwaway terminal lives at most this long (a hidden page draws nothing). */
const WARM_UP_MAX_MS = 2_000;

/**
 * Once per page, at an idle moment after the terminal list came (use-terminals-sync.ts): what
 * the first terminal shown would otherwise do on its way to the screen, done by a throwaway
 * terminal nobody sees. Its font's cell is measured (probeMetrics), V8 compiles xterm's parser
 * on a few thousand lines of output, and the DOM renderer measures the printable ASCII glyphs
 * once for the page (glyph-widths.ts). The first terminal shown after a start took about twice
 * as long as the next ones (170–180 ms against 70–90 here, for 5,000 lines).
 */
export function warmUpTerminalViews(fontSizeSetting: number | undefined, renderer: string): void {
  // The default here, not in the caller: the contract's module (with its schemas) stays out of the page's first load.
  const fontSize = fontSizeSetting ?? DEFAULT_TERMINAL_FONT_SIZE;
  // A terminal opened in this page already did all of it.
  if (warmedUp || anyViewOpened || typeof document === 'undefined') return;
  warmedUp = true;
  const t = openThrowaway(fontSize, { theme: currentTerminalTheme(), cols: 120, rows: 30 });
  if (!t) return;
  // A hidden page draws no frames: gone after a while all the same.
  const bound = setTimeout(t.dispose, WARM_UP_MAX_MS);
  const done = () => {
    clearTimeout(bound);
    t.dispose();
  };
  try {
    // Its cell, if none is kept for this font: what probeMetrics would open a terminal for.
    if (lastMetrics?.key !== metricsKey(fontSize, renderer)) {
      const metrics = metricsOf(t.term, renderer);
      if (metrics) keepMetrics(metrics);
    }
    t.term.loadAddon(new Unicode11Addon());
    t.term.unicode.activeVersion = '11';
    shareGlyphWidths(t.term);
    // Drawn once (its glyphs measured), then gone.
    t.term.write(warmUpOutput(), () => requestAnimationFrame(() => requestAnimationFrame(done)));
  } catch {
    done();
  }
}

/** What the pane showing a view is told; rebound on every mount. */
export interface ViewUi {
  openSearch(): void;
  notice(text: string): void;
  error(title: string, e: unknown): void;
}

const NO_UI: ViewUi = { openSearch() {}, notice() {}, error() {} };

/**
 * How long an ended terminal's end line waits for the output that came before the end: the last
 * output travels on the direct socket, the status on the main connection. Only a view that never
 * gets that output (its connection lost it) waits this long.
 */
const END_OUTPUT_WAIT_MS = 5_000;

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
  /** Whether the end line has been written. */
  endWritten: boolean;
  /** The end line waits for the terminal's last output (XtermPane's writeEnd). */
  endPending = false;
  ui: ViewUi = NO_UI;
  /** A snapshot is being written: fitting now would parse it at another size than it was taken at. */
  private restoring: boolean;
  /** Resolves once a parked view's snapshot is parsed (at once for a view that was not parked). */
  private readonly restored: Promise<void>;
  private opened = false;
  /** Sized from the last fitted terminal, waiting for its replay before it opens. */
  private openPending = false;
  /** Focus was asked for before xterm opened (it has no textarea yet). */
  private focusWanted = false;
  /** Run when xterm opens, before its first fit (the pane loads its renderer there). */
  private readonly openListeners = new Set<() => void>();
  /** Which renderer the pane draws with ('auto': WebGL where it works; 'off': the DOM renderer), for the metrics. */
  renderer = 'auto';
  private disposed = false;
  private blinkTimer: ReturnType<typeof setTimeout> | null = null;
  private blinkPhase: ReturnType<typeof setInterval> | null = null;
  private lastActivity = 0;
  private readonly replayWatch = new ReplayWatch();
  /**
   * Whether the view has the size of a pane (its first mount sized it). Until then a new view's
   * stream holds its output (`holdOutput`): one started ahead of its pane (`prewarmTerminalView`)
   * may get its history before it knows the pane's size, and parsing it at xterm's default 80×24
   * would rewrap every line on the resize and size the pty to 80×24 on the way. A parked view's
   * snapshot is written at its own size.
   */
  private sized: boolean;
  /** The attach's answer, once it came (the pty's size is matched to the view's once both are known). */
  private attachedAs: AttachResult | null = null;
  /** The attach failed before a pane showed the view: a pane taking it starts a new one, which reports the error. */
  attachFailed = false;
  /** What was written into xterm from the terminal's first character: parked, it may stand for a snapshot (terminal-park.ts). */
  private readonly outputCopy: OutputCopy;
  private readonly offs: Array<() => void> = [];
  /**
   * The scrollback read ahead of this view's first show, if it took one: given back if no pane
   * ever shows the view, let go once one does (xterm holds it then).
   */
  private tookAhead: HistoryAhead | null;
  /** Told of every attach answered (the first, and any after a reconnect: XtermPane's end line). */
  private readonly attachListeners = new Set<(r: AttachResult) => void>();

  constructor(
    private readonly client: Client,
    readonly terminalId: string,
    fontSize: number,
    parked: ParkedTerminal | null,
  ) {
    this.element.className = 'xterm-view';
    this.endWritten = parked?.endWritten ?? false;
    this.restoring = parked !== null;
    this.sized = parked !== null;
    this.tookAhead = parked ? null : takeHistoryAhead(terminalId);
    const parkedHow = parked ? parkedAs(parked) : null;
    // A new view, or one replaying from offset 0, starts its copy empty; one parked as its copy
    // goes on from it; one restored from a snapshot has none.
    this.outputCopy = new OutputCopy(parkedHow === 'copy' ? parked!.output! : parkedHow === 'snapshot' ? null : []);
    // That output was parsed at the parked size: a resize now rewraps it.
    if (parkedHow === 'copy' && parked!.output!.length > 0) this.replayWatch.output();
    // How a parked view came back, for whoever looks at the page (and the tests).
    if (parkedHow) this.element.dataset.parkedAs = parkedHow;
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
    let restored!: () => void;
    this.restored = new Promise<void>((r) => (restored = r));
    if (parked) {
      restoreTerminal(term, parked, () => {
        this.restoring = false;
        restored();
        this.fitNow();
      });
    } else {
      restored();
    }
    this.stream = new TerminalStream(
      client,
      terminalId,
      {
        write: (data, cb) => {
          // A marker (afterQueued): nothing of the output.
          if (data.length === 0) return void term.write(data, cb);
          this.activity();
          this.replayWatch.output();
          // Kept while xterm holds exactly the output from offset 0 (see OutputCopy).
          if (this.outputCopy.held) {
            if (this.exact) this.outputCopy.push(data);
            else this.outputCopy.drop();
          }
          term.write(data, cb);
        },
        reset: () => {
          this.outputCopy.drop();
          // After what xterm was handed before (a snapshot or a copy being restored).
          resetInOrder(term);
        },
      },
      {
        onGap: () => this.ui.notice('Some output was too old to replay.'),
        // Any attach answered: a view whose first attach failed may attach on reconnect (it holds a read ahead or a snapshot).
        onAttached: (r) => {
          const first = this.attachedAs === null;
          this.attachedAs = r;
          this.attachFailed = false;
          // Once: a view hidden in this window must not resize the pty under another window's on a reconnect.
          if (first) this.matchPtySize();
          for (const l of [...this.attachListeners]) l(r);
        },
        holdOutput: !this.sized,
        // Restored from its snapshot or copy; else a new view, from the scrollback read ahead of its first show if there is one.
        ...(parked ? { resumeFrom: parked.offset, resumeHoldsAll: parkedHow === 'copy' } : this.tookAhead ? { history: this.tookAhead.history } : {}),
      },
    );
    this.attached = this.stream.attach();
    this.attached.catch((e: unknown) => {
      this.attachFailed = true;
      this.ui.error('Could not open the terminal', e);
    });

    // Input goes out in order; a big paste is split to the contract's limit.
    let sending = Promise.resolve();
    const input = term.onData((data) => {
      // xterm answering the queries of a replayed history (or of a parked view's copy of its
      // output, written again): the program asked them long ago.
      if ((this.stream.replaying || this.restoring) && isTerminalReply(data)) return;
      this.activity();
      // Its echo and what the command prints next go before other terminals' output.
      if (isTypedInput(data)) this.stream.noteInput();
      for (const part of splitTerminalInput(data)) {
        sending = sending.then(() => client.typeInto(terminalId, part).then(() => undefined, () => undefined));
      }
    });
    const resized = term.onResize(({ cols, rows }) => {
      this.replayWatch.resized();
      // Its lines rewrapped: the output no longer gives what it shows.
      if (!this.exact) this.outputCopy.drop();
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

  /** Runs `fn` with every attach answered from now on, and at once with the last one if there was one; returns what unsubscribes. */
  onAttach(fn: (r: AttachResult) => void): () => void {
    if (this.attachedAs) fn(this.attachedAs);
    this.attachListeners.add(fn);
    return () => this.attachListeners.delete(fn);
  }

  /** Whether the attach was answered (its scrollback is handed to the stream: the end line must come after it). */
  get isAttached(): boolean {
    return this.attachedAs !== null;
  }

  /** A running pty of another size than the view is resized to it, once the view has its size (its first mount). */
  private matchPtySize(): void {
    const r = this.attachedAs;
    if (!r || !this.sized || this.restoring || this.disposed) return;
    if (r.terminal.status === 'running' && (r.terminal.cols !== this.term.cols || r.terminal.rows !== this.term.rows)) {
      void this.client.invoke('terminals.resize', { id: this.terminalId, cols: this.term.cols, rows: this.term.rows }).catch(() => undefined);
    }
  }

  /**
   * Runs `fn` once the view has the output up to `offset` (an ended terminal's `outputEnd`; 0: what
   * it has) and xterm has parsed all it received, including what still waits in its scheduler lane
   * or is held for its first mount (a line it adds at the end); after END_OUTPUT_WAIT_MS without
   * that output, all the same.
   */
  afterOutputTo(offset: number, fn: () => void): void {
    this.stream.afterOutputTo(offset, fn, END_OUTPUT_WAIT_MS);
  }

  /** Puts the view into a pane's host element (xterm opens on the first mount). */
  mount(host: HTMLElement, ui: ViewUi, renderer = 'auto'): void {
    this.ui = ui;
    this.renderer = renderer;
    host.appendChild(this.element);
    if (!this.opened && !this.openPending) {
      const fontSize = this.term.options.fontSize ?? 0;
      let metrics = lastMetrics?.key === metricsKey(fontSize, this.renderer) ? lastMetrics : null;
      // None yet for this font and renderer (a new install, a new font size): measured now, so
      // this terminal too parses its history before it opens.
      if (!metrics && !this.restoring && this.element.isConnected) {
        metrics = probeMetrics(fontSize, this.renderer);
        if (metrics) keepMetrics(metrics);
      }
      const size = metrics && !this.restoring ? sizeFor(metrics, this.element) : null;
      if (this.restoring) {
        // A parked view writing its snapshot, at the size it was parked at.
        this.openWhen(this.restored);
      } else if (size) {
        // Parsed at the size the pane will have, so opening reflows nothing.
        if (size.cols !== this.term.cols || size.rows !== this.term.rows) this.term.resize(size.cols, size.rows);
        this.openWhen(this.attached.then(() => this.stream.replayed()));
      } else {
        this.open();
      }
    }
    this.fitNow();
    // Sized now: the output that came before is parsed at this size.
    if (!this.sized) {
      this.sized = true;
      this.tookAhead = null;
      this.stream.releaseOutput();
      this.matchPtySize();
    }
    this.activity();
  }

  /** Focuses the terminal, or does once it has opened (unless `cancelFocus` comes first). */
  focus(): void {
    if (this.opened) this.term.focus();
    else this.focusWanted = true;
  }

  /** The focus asked for before xterm opened is no longer wanted (another pane took it, the terminal ended). */
  cancelFocus(): void {
    this.focusWanted = false;
  }

  /**
   * Runs `fn` when xterm opens in the page, before its first fit (at once if it is open): a
   * renderer loaded there is the one the fit measures. Returns what unsubscribes.
   */
  onOpen(fn: () => void): () => void {
    if (this.opened) {
      fn();
      return () => undefined;
    }
    this.openListeners.add(fn);
    return () => this.openListeners.delete(fn);
  }

  /**
   * Opens xterm once `ready` (its history parsed), or after the longest wait all the same (its
   * rows then fill as it parses). A view taken off the screen meanwhile opens at its next mount.
   */
  private openWhen(ready: Promise<unknown>): void {
    this.openPending = true;
    const waited = new Promise<void>((r) => setTimeout(r, OPEN_AFTER_REPLAY_MAX_MS));
    void Promise.race([ready, waited])
      .catch(() => undefined)
      .then(() => {
        this.openPending = false;
        if (this.element.isConnected) this.open();
      });
  }

  private open(): void {
    if (this.opened || this.disposed) return;
    this.opened = true;
    anyViewOpened = true;
    this.term.open(this.element);
    // xterm sizes its scroll area only when the buffer scrolls or resizes after open: a history
    // parsed before it opened (a replay, a snapshot, a copy) left it empty, and Shift+PageUp
    // stopped after one page. One sync, in the frame that draws the rows.
    (this.term as unknown as { _core?: { _viewport?: { queueSync?(): void } } })._core?._viewport?.queueSync?.();
    // While its DOM renderer is in place (a WebGL one may replace it in the listeners): from the
    // first terminal on, the page's terminals measure each glyph's width once (glyph-widths.ts).
    shareGlyphWidths(this.term);
    for (const fn of [...this.openListeners]) fn();
    this.openListeners.clear();
    this.fitNow();
    if (this.focusWanted) {
      // In the frame that draws its rows: focusing draws the cursor's row at once, and a frame
      // painted before the first full render would show that row alone. Unless it was
      // cancelled meanwhile (another pane focused, the view hidden).
      requestAnimationFrame(() => {
        if (!this.focusWanted || this.disposed || !this.element.isConnected) return;
        this.focusWanted = false;
        this.term.focus();
      });
    }
  }

  /** Takes the view off the screen; it keeps receiving output (the cache decides when to park it). */
  unmount(): void {
    this.ui = NO_UI;
    this.focusWanted = false;
    this.element.remove();
    this.stopBlinkTimer();
    // xterm keeps blinking a cursor it believes focused, off the page too: a hidden view's timer
    // would wake the renderer twice a second for nothing. Mounting again turns it back on.
    this.term.options.cursorBlink = false;
  }

  fitNow(): void {
    if (this.restoring || !this.element.isConnected || !this.opened) return;
    try {
      this.fit.fit();
      this.noteMetrics();
    } catch {
      // Not laid out yet: the pane's ResizeObserver fits it once it has a size.
    }
  }

  /** Keeps what this fit measured, for sizing the next new terminal before it opens. */
  private noteMetrics(): void {
    const next = metricsOf(this.term, this.renderer);
    if (next) keepMetrics(next);
  }

  /** xterm holds what the output from offset 0 gives at its present size (a copy of it or a replay rebuilds it). */
  private get exact(): boolean {
    return this.replayWatch.exact(this.stream.holdsAllFromStart);
  }

  async park(): Promise<ParkedTerminal | null> {
    // The stream stops first: the snapshot then holds exactly what was written up to its offset.
    this.stream.dispose();
    try {
      const replayable = this.replayWatch.replayable(this.stream.holdsAllFromStart, this.stream.offset ?? 0);
      // Worth it where the buffer holds many lines (a snapshot of a few is small and quick).
      const copy = this.exact && this.term.buffer.normal.length >= COPY_PARK_MIN_LINES ? this.outputCopy.output : null;
      // A view no pane showed yet holds nothing in xterm: showing it replays from the main process.
      return this.restoring || !this.isAttached || !this.sized ? null : await parkTerminal(this.term, this.serializer, this.stream.offset, this.endWritten, replayable, copy);
    } finally {
      this.dispose();
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stopBlinkTimer();
    this.openListeners.clear();
    for (const off of this.offs.splice(0)) off();
    this.stream.dispose();
    this.term.dispose();
    this.element.remove();
    // Never shown (its output was held, not parsed): the read ahead it took serves the terminal's
    // next first show, unless its attach found it too old to continue from.
    if (this.tookAhead && !this.stream.readAheadStale) giveBackHistoryAhead(this.terminalId, this.tookAhead);
    this.attachListeners.clear();
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

/**
 * Starts the view of a terminal the app is going to (its address, a link), before React has drawn
 * the pane that will show it (lib/ahead-of-view.ts): the attach goes out at once, and the history
 * comes back while the page renders instead of being asked for when the pane's effect runs. Its
 * output waits for the pane's size (`sized`). Only for a terminal with no view or snapshot here;
 * the pane takes it from the cache, and one no pane takes goes after 1 s.
 */
export function prewarmTerminalView(client: Client, terminalId: string, fontSize: number): void {
  if (terminalViews.has(terminalId)) return;
  terminalViews.warm(terminalId, new TerminalView(client, terminalId, fontSize, null));
}

setLoadedTerminalViews(terminalViews);

registerAheadOfView((client, view, s) => {
  if (view.name !== 'terminals' || !view.terminalId) return;
  const id = view.terminalId;
  if (s.terminals.some((t) => t.id === id)) prewarmTerminalView(client, id, s.settings?.terminalFontSize ?? DEFAULT_TERMINAL_FONT_SIZE);
});

/** The view for a pane: the one started ahead of it or the hidden live one, else restored from its snapshot, else new (full replay). */
export function acquireTerminalView(client: Client, terminalId: string, fontSize: number): TerminalView {
  const got = terminalViews.take(terminalId);
  if (got && 'view' in got) {
    // Started ahead of the pane, with no pane to tell: a new one tells it.
    if (got.view.attachFailed) got.view.dispose();
    else {
      if (got.view.term.options.fontSize !== fontSize) got.view.term.options.fontSize = fontSize;
      return got.view;
    }
  }
  return new TerminalView(client, terminalId, fontSize, got && 'parked' in got ? got.parked : null);
}
