import { useEffect, useRef, useState } from 'react';
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { WebglAddon } from '@xterm/addon-webgl';
import '@xterm/xterm/css/xterm.css';
import { TERMINAL_MAX_INPUT_CHARS } from '../../../src-preload/contract';
import { TerminalStream } from '../../../src-preload/client/terminal-stream';
import { useAppStore, useClient } from '../store';
import { currentTerminalTheme, terminalFontFamily, watchTheme } from './theme';
import { Icon } from '../components/Icon';

/** Lines of history xterm keeps on screen; the main process keeps its own scrollback for replays. */
const XTERM_SCROLLBACK_LINES = 5_000;

interface Props {
  terminalId: string;
  focused: boolean;
  running: boolean;
  /** Shown as the last line once the process has ended ("exited with code 3"). */
  endLabel: string | null;
  onFocus(): void;
}

/** The closing line of an ended terminal: drawn by the view only, never part of the output. */
function writeEnd(term: Terminal, label: string): void {
  // After everything queued is parsed, so the line starts fresh without a blank line before it.
  term.write('', () => term.write(`${term.buffer.active.cursorX === 0 ? '' : '\r\n'}\x1b[2m[${label}]\x1b[0m`));
  term.options.cursorBlink = false;
  term.options.cursorInactiveStyle = 'none';
  term.blur();
}

/**
 * One xterm bound to one terminal. Output goes from the subscription straight into xterm
 * (never through React state); xterm's write callback acknowledges it for flow control.
 * The focused pane uses the WebGL renderer when the browser has it — browsers cap live WebGL
 * contexts — and every other pane the DOM renderer.
 */
export function XtermPane({ terminalId, focused, running, endLabel, onFocus }: Props) {
  const client = useClient();
  const fontSize = useAppStore((s) => s.settings?.terminalFontSize ?? 13);
  const toastError = useAppStore((s) => s.toastError);
  const gpu = useAppStore((s) => s.terminalGpu);
  const host = useRef<HTMLDivElement>(null);
  const termRef = useRef<Terminal | null>(null);
  const fitRef = useRef<FitAddon | null>(null);
  const searchRef = useRef<SearchAddon | null>(null);
  const [searching, setSearching] = useState(false);
  const [query, setQuery] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  /** Whether the scrollback has been written (the end line must come after it) and the end line too. */
  const attached = useRef(false);
  const endWritten = useRef(false);
  const endLabelRef = useRef(endLabel);
  useEffect(() => {
    endLabelRef.current = endLabel;
  }, [endLabel]);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const term = new Terminal({
      fontFamily: terminalFontFamily(),
      fontSize,
      theme: currentTerminalTheme(),
      scrollback: XTERM_SCROLLBACK_LINES,
      allowProposedApi: true,
      cursorBlink: true,
      macOptionIsMeta: true,
    });
    const fit = new FitAddon();
    const search = new SearchAddon();
    term.loadAddon(fit);
    term.loadAddon(search);
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
    term.open(el);
    termRef.current = term;
    fitRef.current = fit;
    searchRef.current = search;
    safeFit(fit);

    const stream = new TerminalStream(
      client,
      terminalId,
      { write: (data, cb) => term.write(data, cb), reset: () => term.reset() },
      { onGap: () => setNotice('Some output was too old to replay after the connection dropped.') },
    );
    attached.current = false;
    endWritten.current = false;
    stream.attach().then(
      (r) => {
        attached.current = true;
        if (r.terminal.status !== 'running' && endLabelRef.current && !endWritten.current) {
          endWritten.current = true;
          writeEnd(term, endLabelRef.current);
        }
        if (r.terminal.status === 'running' && (r.terminal.cols !== term.cols || r.terminal.rows !== term.rows)) {
          void client.invoke('terminals.resize', { id: terminalId, cols: term.cols, rows: term.rows }).catch(() => undefined);
        }
      },
      (e: unknown) => toastError('Could not open the terminal', e),
    );

    // Input goes out in order; a big paste is split to the contract's limit.
    let sending = Promise.resolve();
    const input = term.onData((data) => {
      for (let i = 0; i < data.length; i += TERMINAL_MAX_INPUT_CHARS) {
        const part = data.slice(i, i + TERMINAL_MAX_INPUT_CHARS);
        sending = sending.then(() => client.invoke('terminals.write', { id: terminalId, data: part }).then(() => undefined, () => undefined));
      }
    });
    const resized = term.onResize(({ cols, rows }) => {
      void client.invoke('terminals.resize', { id: terminalId, cols, rows }).catch(() => undefined);
    });
    term.attachCustomKeyEventHandler((e) => {
      if (e.type !== 'keydown') return true;
      const mod = e.ctrlKey && e.shiftKey;
      if ((mod && e.code === 'KeyC') || (e.metaKey && e.code === 'KeyC' && term.hasSelection())) {
        e.preventDefault();
        if (term.hasSelection()) void navigator.clipboard?.writeText(term.getSelection()).catch(() => setNotice('The browser did not allow copying; use the context menu.'));
        return false;
      }
      // Ctrl+Shift+V (and Cmd+V) make the browser paste into xterm's textarea by itself, which
      // xterm handles (bracketed paste included); xterm only has to not send ^V.
      if ((mod && e.code === 'KeyV') || (e.metaKey && e.code === 'KeyV')) return false;
      if (mod && e.code === 'KeyF') {
        e.preventDefault();
        setSearching(true);
        return false;
      }
      return true;
    });

    let frame = 0;
    const observer = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => safeFit(fit));
    });
    observer.observe(el);
    const offTheme = watchTheme(() => (term.options.theme = currentTerminalTheme()));

    return () => {
      cancelAnimationFrame(frame);
      observer.disconnect();
      offTheme();
      input.dispose();
      resized.dispose();
      stream.dispose();
      term.dispose();
      termRef.current = null;
      fitRef.current = null;
      searchRef.current = null;
    };
    // The font size is applied by its own effect, without recreating the terminal.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, terminalId, toastError]);

  useEffect(() => {
    const term = termRef.current;
    if (!term || term.options.fontSize === fontSize) return;
    term.options.fontSize = fontSize;
    if (fitRef.current) safeFit(fitRef.current);
  }, [fontSize]);

  useEffect(() => {
    const term = termRef.current;
    if (!term) return;
    term.options.disableStdin = !running;
    if (!running && endLabel && attached.current && !endWritten.current) {
      endWritten.current = true;
      writeEnd(term, endLabel);
    }
  }, [running, endLabel]);

  useEffect(() => {
    const term = termRef.current;
    if (!term || !focused) return;
    term.focus();
    if (gpu === 'off') return;
    let gl: WebglAddon | null = null;
    try {
      gl = new WebglAddon();
      gl.onContextLoss(() => {
        gl?.dispose();
        gl = null;
      });
      term.loadAddon(gl);
    } catch {
      // No WebGL here (headless, blocked GPU, too many contexts): the DOM renderer stays.
      gl?.dispose();
      gl = null;
    }
    return () => gl?.dispose();
  }, [focused, terminalId, gpu]);

  const find = (forward: boolean) => {
    const s = searchRef.current;
    if (!s || !query) return;
    if (forward) s.findNext(query);
    else s.findPrevious(query);
  };

  return (
    <div className="xterm-pane" onMouseDown={onFocus}>
      {searching && (
        <div className="term-search">
          <input
            autoFocus
            className="input"
            placeholder="Find in terminal"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') find(!e.shiftKey);
              if (e.key === 'Escape') {
                setSearching(false);
                searchRef.current?.clearDecorations();
                termRef.current?.focus();
              }
            }}
            aria-label="Find in terminal"
          />
          <button className="icon-button" aria-label="Previous match" title="Previous (Shift+Enter)" onClick={() => find(false)}>
            <Icon name="chevronUp" />
          </button>
          <button className="icon-button" aria-label="Next match" title="Next (Enter)" onClick={() => find(true)}>
            <Icon name="chevronDown" />
          </button>
          <button
            className="icon-button"
            aria-label="Close search"
            onClick={() => {
              setSearching(false);
              searchRef.current?.clearDecorations();
            }}
          >
            <Icon name="x" />
          </button>
        </div>
      )}
      {notice && (
        <div className="term-notice" role="status">
          {notice}
          <button className="icon-button" aria-label="Dismiss" onClick={() => setNotice(null)}>
            <Icon name="x" />
          </button>
        </div>
      )}
      <div className="xterm-host" ref={host} data-testid="xterm-host" />
    </div>
  );
}

/** Fitting a pane that is hidden or zero-sized throws inside xterm; there is nothing to fit then. */
function safeFit(fit: FitAddon): void {
  try {
    fit.fit();
  } catch {
    // Not laid out yet: the ResizeObserver fits it once it has a size.
  }
}
