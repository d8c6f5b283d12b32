import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { Terminal } from '@xterm/xterm';
import type { FitAddon } from '@xterm/addon-fit';
import { DEFAULT_TERMINAL_FONT_SIZE } from '../../../src-preload/contract';
import type { SearchAddon } from '@xterm/addon-search';
import { WebglAddon } from '@xterm/addon-webgl';
import '@xterm/xterm/css/xterm.css';
import { useAppStore, useClient } from '../store';
import { Icon } from '../components/Icon';
import { acquireTerminalView, terminalViews, type TerminalView } from './terminal-view';
import { attachGpuRenderer } from './gpu-renderer';

interface Props {
  terminalId: string;
  focused: boolean;
  running: boolean;
  /** Shown as the last line once the process has ended ("exited with code 3"); null while it runs. */
  endLabel: string | null;
  /** Where an ended terminal's output ends (TerminalInfo.outputEnd): the end line comes after it. */
  endAt: number | null;
  onFocus(): void;
}

/**
 * The closing line of an ended terminal, once, for a view whose attach was answered (its
 * scrollback is with the stream, so the line comes after it): drawn by the view only, never part
 * of the output. `label` null: the terminal has not ended (that the pane knows of). `endAt`: where
 * its output ends; the status that says it ended can come before the last of it (another channel),
 * and output after the line would draw over it (a shell's "exit" erases its prompt line).
 */
function writeEnd(view: TerminalView, label: string | null, endAt: number | null): void {
  if (label === null || !view.isAttached || view.endWritten || view.endPending) return;
  view.endPending = true;
  const term = view.term;
  // After all the output is parsed (what waits in the view's scheduler lane too, not only xterm's
  // own queue: a replayed history goes in pieces), so the line comes last and starts fresh.
  const write = () => {
    view.endPending = false;
    view.endWritten = true;
    term.write(`${term.buffer.active.cursorX === 0 ? '' : '\r\n'}\x1b[2m[${label}]\x1b[0m`);
  };
  view.afterOutputTo(endAt ?? 0, write);
  term.options.cursorBlink = false;
  term.options.cursorInactiveStyle = 'none';
  // Nothing to type into: not focused now, nor once it opens.
  view.cancelFocus();
  term.blur();
}

/**
 * The pane showing one terminal's view (terminal-view.ts). Output goes from the subscription
 * straight into xterm (never through React state); xterm's write callback acknowledges it for
 * flow control. Leaving the pane hands the view to the cache, which keeps it live for a while
 * and then parks it (terminal-park.ts).
 * A visible pane draws with the WebGL renderer when the browser has it (gpu-renderer.ts), and
 * gives its context up when hidden; the DOM renderer is the fallback.
 */
export function XtermPane({ terminalId, focused, running, endLabel, endAt, onFocus }: Props) {
  const client = useClient();
  const fontSize = useAppStore((s) => s.settings?.terminalFontSize ?? DEFAULT_TERMINAL_FONT_SIZE);
  const toastError = useAppStore((s) => s.toastError);
  const gpu = useAppStore((s) => s.terminalGpu);
  const host = useRef<HTMLDivElement>(null);
  const termRef = useRef<Terminal | null>(null);
  const fitRef = useRef<FitAddon | null>(null);
  const searchRef = useRef<SearchAddon | null>(null);
  const [searching, setSearching] = useState(false);
  const [query, setQuery] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const viewRef = useRef<TerminalView | null>(null);
  const endLabelRef = useRef(endLabel);
  const endAtRef = useRef(endAt);
  // A layout effect declared before the one that mounts the view (they run in order): that one
  // sees this render's terminal, not the one the pane showed before.
  useLayoutEffect(() => {
    endLabelRef.current = endLabel;
    endAtRef.current = endAt;
  }, [endLabel, endAt]);

  // A layout effect: the view is in its pane in the same commit that shows the pane, so no frame
  // is drawn with an empty pane (or the previous terminal's rows) in between.
  useLayoutEffect(() => {
    const el = host.current;
    if (!el) return;
    // A terminal seen recently comes back live; one hidden longer is restored from its snapshot.
    const view = acquireTerminalView(client, terminalId, fontSize);
    const term = view.term;
    view.mount(el, { openSearch: () => setSearching(true), notice: setNotice, error: toastError }, gpu);
    termRef.current = term;
    fitRef.current = view.fit;
    searchRef.current = view.search;
    viewRef.current = view;
    // On any attach answered: a failed first one (reported through the view's ui) may be followed by one on reconnect.
    const offAttach = view.onAttach((r) => {
      if (r.terminal.status !== 'running' && termRef.current === term) writeEnd(view, endLabelRef.current, endAtRef.current ?? r.terminal.outputEnd);
    });
    // A view kept live while hidden, attached while its terminal ran, whose terminal ended
    // meanwhile: its end line now. (The effect on [running, endLabel] below does not run when the
    // pane showed another terminal that ended the same way.)
    writeEnd(view, endLabelRef.current, endAtRef.current);

    let frame = 0;
    const observer = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => view.fitNow());
    });
    observer.observe(el);

    return () => {
      offAttach();
      cancelAnimationFrame(frame);
      observer.disconnect();
      view.unmount();
      terminalViews.hide(terminalId, view);
      termRef.current = null;
      fitRef.current = null;
      searchRef.current = null;
      viewRef.current = null;
    };
    // The font size is applied by its own effect, without recreating the terminal.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, terminalId, toastError]);

  useEffect(() => {
    const term = termRef.current;
    if (!term || term.options.fontSize === fontSize) return;
    term.options.fontSize = fontSize;
    viewRef.current?.fitNow();
  }, [fontSize]);

  useEffect(() => {
    const term = termRef.current;
    if (!term) return;
    term.options.disableStdin = !running;
    const view = viewRef.current;
    if (view) writeEnd(view, endLabel, endAt);
  }, [running, endLabel, endAt]);

  useEffect(() => {
    // A focus asked for before the view opened is dropped when another pane takes it.
    if (focused) viewRef.current?.focus();
    else viewRef.current?.cancelFocus();
  }, [focused, terminalId]);

  // Declared after the effect that mounts the view, so the terminal exists when this runs. Its
  // cleanup runs when the pane is hidden: a cached or parked view holds no WebGL context.
  useEffect(() => {
    const term = termRef.current;
    const view = viewRef.current;
    const el = host.current;
    if (!term || !view || !el) return;
    view.renderer = gpu;
    if (gpu === 'off') {
      el.dataset.renderer = 'dom';
      return;
    }
    // When xterm opens, before its first fit (a new terminal opens once its history is parsed,
    // terminal-view.ts): the fit then measures WebGL's cells, which it rounds to device pixels.
    let detach: (() => void) | null = null;
    const off = view.onOpen(() => {
      detach = attachGpuRenderer(term, () => new WebglAddon(), (state) => (el.dataset.renderer = state));
    });
    return () => {
      off();
      detach?.();
    };
  }, [terminalId, gpu]);

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
                viewRef.current?.focus();
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
