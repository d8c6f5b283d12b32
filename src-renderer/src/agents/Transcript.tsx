import { useEffect, useRef, useState } from 'react';
import { Icon } from '../components/Icon';
import { useAppStore, useClient } from '../store';
import type { CommandView } from '../../../src-preload/contract/agents';
import { timeoutText } from '../../../src-preload/contract/units';
import { ChangesView } from './DiffView';
import { Markdown } from './Markdown';
import { ToolCard } from './ToolCard';
import { clipLines, type TranscriptItem } from './transcript';

/** The end of a verify run's output is where the failure is. */
const VERIFY_OUTPUT_CHARS = 6_000;

/** A slash command's structured output: a real diff, or a table. */
function CommandBody({ view }: { view: CommandView }) {
  if (view.type === 'diff') return <ChangesView status={view.status} diff={view.diff} />;
  return (
    <div className="command-table-wrap">
      {view.intro && <p className="command-intro">{view.intro}</p>}
      <table className="command-table" data-testid="command-table">
        <thead>
          <tr>
            {view.columns.map((c) => (
              <th key={c}>{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {view.rows.map((r, i) => (
            <tr key={i} className={r.current ? 'current' : ''}>
              {r.cells.map((c, j) => (
                <td key={j} className={j === 0 ? 'mono' : ''}>
                  {c}
                  {j === 0 && r.current ? <span className="badge badge-ok current-mark">current</span> : null}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {view.notes.length > 0 && (
        <ul className="command-notes muted small">
          {view.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Compaction({ text, summary }: { text: string; summary: string | null }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="notice compaction" data-testid="compaction">
      <Icon name="layers" size={14} />
      <div className="compaction-body">
        <span>{text}</span>
        {summary && (
          <>
            <button className="link small" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
              {open ? '▾ Hide the summary' : '▸ Show the summary'}
            </button>
            {open && <pre className="thinking-text">{summary}</pre>}
          </>
        )}
      </div>
    </div>
  );
}

function Thinking({ text }: { text: string }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="thinking">
      <button className="link muted small" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
        {open ? '▾' : '▸'} Thinking ({text.length.toLocaleString()} chars)
      </button>
      {open && <pre className="thinking-text">{text}</pre>}
    </div>
  );
}

const OUTCOME_TEXT: Record<string, string> = {
  completed: '',
  step_limit: 'Stopped: step limit reached',
  cancelled: 'Stopped by you',
  failed: 'The turn failed',
  interrupted: 'Interrupted',
};

/** A command result's follow-ups (e.g. "Add .coder/ to .gitignore"): each sends its input to the session on view. */
function CommandActions({ actions }: { actions: ReadonlyArray<{ label: string; input: string }> }) {
  const sessionId = useAppStore((s) => (s.view.name === 'session' ? s.view.sessionId : null));
  const sendInput = useAppStore((s) => s.sendInput);
  const [sent, setSent] = useState<string | null>(null);
  if (actions.length === 0 || sessionId === null) return null;
  return (
    <div className="command-actions">
      {actions.map((a) => (
        <button
          key={a.input}
          className="button"
          title={a.input}
          disabled={sent !== null}
          data-testid="command-action"
          onClick={async () => {
            setSent(a.input);
            if (!(await sendInput(sessionId, a.input))) setSent(null);
          }}
        >
          {a.label}
        </button>
      ))}
    </div>
  );
}

/** What a chat turn's menu offers: its number, and Rewind / Fork when the session allows them. */
export interface TurnMenu {
  turn: number;
  onRewind: (() => void) | null;
  onFork: (() => void) | null;
}

/** The "⋯" menu of a chat turn: rewind the session to it, or fork a new session from it. */
function TurnMenuButton({ menu, disabled }: { menu: TurnMenu; disabled: boolean }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) setOpen(false);
    };
    window.addEventListener('mousedown', close);
    return () => window.removeEventListener('mousedown', close);
  }, [open]);
  if (!menu.onRewind && !menu.onFork) return null;
  const pick = (fn: () => void) => () => {
    setOpen(false);
    fn();
  };
  return (
    <div className="turn-menu-anchor" ref={ref}>
      <button
        className="icon-button turn-menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={`Turn ${menu.turn} menu`}
        title={disabled ? 'Wait for the running turn to end' : `Turn ${menu.turn}: rewind or fork`}
        disabled={disabled}
        onClick={() => setOpen((o) => !o)}
        data-testid="turn-menu"
      >
        <Icon name="more" size={14} />
      </button>
      {open && (
        <div className="turn-menu" role="menu" onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
          {menu.onRewind && (
            <button role="menuitem" className="turn-menu-item" onClick={pick(menu.onRewind)} data-testid="turn-rewind">
              Rewind to after turn {menu.turn}
            </button>
          )}
          {menu.onFork && (
            <button role="menuitem" className="turn-menu-item" onClick={pick(menu.onFork)} data-testid="turn-fork">
              Fork from turn {menu.turn}…
            </button>
          )}
        </div>
      )}
    </div>
  );
}

/** Turns a rewind set aside: one line, unfolded on demand (read-only, dimmed). */
function Rewound({ item }: { item: Extract<TranscriptItem, { kind: 'rewound' }> }) {
  const [open, setOpen] = useState(false);
  const which = item.fromTurn === item.toLast ? `Turn ${item.fromTurn}` : `Turns ${item.fromTurn}–${item.toLast}`;
  return (
    <div className="rewound" data-testid="rewound">
      <button className="rewound-toggle" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        {which} set aside by a rewind to turn {item.toTurn} — {open ? 'hide' : 'show'}
      </button>
      {open && (
        <div className="rewound-items">
          {item.items.map((it) => (
            <TranscriptItemView key={it.kind + it.id} item={it} />
          ))}
        </div>
      )}
    </div>
  );
}

/**
 * The images attached to a message, as thumbnails: fetched from the stored conversation when the
 * message is shown (the turn's event carries only their sizes). One that cannot be fetched (the
 * session is not open here, or its conversation is gone) is still counted in the line below.
 */
function InputImages({ turnId, count }: { turnId: string | null; count: number }) {
  const client = useClient();
  const sessionId = useAppStore((s) => (s.view.name === 'session' ? s.view.sessionId : null));
  const [srcs, setSrcs] = useState<Array<string | null>>([]);
  useEffect(() => {
    if (!sessionId || !turnId) return;
    let alive = true;
    void Promise.all(
      Array.from({ length: count }, (_, index) =>
        client.invoke('agents.images.get', { sessionId, turnId, index }).then(
          (img) => `data:${img.mediaType};base64,${img.data}`,
          () => null,
        ),
      ),
    ).then((all) => alive && setSrcs(all));
    return () => {
      alive = false;
    };
  }, [client, sessionId, turnId, count]);
  const shown = srcs.filter((s): s is string => s !== null);
  return (
    <>
      {shown.length > 0 && (
        <div className="msg-thumbs" data-testid="msg-thumbs">
          {shown.map((src, i) => (
            <img key={i} className="msg-thumb" src={src} alt={`Attached image ${i + 1}`} data-testid="msg-thumb" />
          ))}
        </div>
      )}
      <p className="msg-images small" data-testid="msg-images">
        <Icon name="layers" size={12} /> {count === 1 ? '1 image attached' : `${count} images attached`}
      </p>
    </>
  );
}

export function TranscriptItemView({
  item,
  running = false,
  menu = null,
}: {
  item: TranscriptItem;
  /** A turn is running: a tool without a result is still going. */ running?: boolean;
  /** A chat turn's menu (rewind, fork); null: none. */
  menu?: TurnMenu | null;
}) {
  switch (item.kind) {
    case 'rewound':
      return <Rewound item={item} />;
    case 'user':
      return (
        <div className="msg msg-user" data-testid="msg-user">
          {menu && <TurnMenuButton menu={menu} disabled={running} />}
          {item.inputKind === 'chat' ? <p className="pre-wrap">{item.text}</p> : <code className="mono">{item.text}</code>}
          {item.images ? <InputImages turnId={item.turnId} count={item.images} /> : null}
        </div>
      );
    case 'assistant':
      return (
        <div className="msg msg-assistant" data-testid="msg-assistant">
          {/* While a turn runs its answer streams in: a new text per delta, not worth keeping. */}
          <Markdown text={item.text} keep={!running} />
        </div>
      );
    case 'thinking':
      return <Thinking text={item.text} />;
    case 'tool':
      return <ToolCard item={item} running={running} />;
    case 'command':
      return (
        <div className={`command-result ${item.ok ? '' : 'failed'}`} data-testid="command-result">
          <div className="command-head">
            <span className="mono">{item.cmdKind === 'slash' ? `/${item.name.replace(/^\//, '')}` : '!'}</span>
            {item.exitCode !== null && <span className={`badge ${item.exitCode === 0 ? 'badge-ok' : 'badge-bad'}`}>exit {item.exitCode}</span>}
          </div>
          {item.view ? (
            <CommandBody view={item.view} />
          ) : item.text ? (
            // Command output is plain text (git status columns, aligned lists): never Markdown.
            item.cmdKind === 'slash' && item.name === 'review' ? (
              <Markdown text={item.text} />
            ) : (
              <pre className="command-text">{item.text}</pre>
            )
          ) : null}
          <CommandActions actions={item.actions} />
        </div>
      );
    case 'verify':
      return (
        <div className="verify" data-testid="verify">
          <div className="command-head">
            <span>
              Auto-verify <span className="mono">{item.command}</span> — attempt {item.attempt}
              {item.maxAttempts ? ` of ${item.maxAttempts}` : ''}
              {item.timeoutMs ? <span className="muted"> · timeout {timeoutText(item.timeoutMs)}</span> : null}
            </span>
            <span className={`badge ${item.passed === null ? '' : item.passed ? 'badge-ok' : 'badge-bad'}`}>{item.passed === null ? 'running…' : item.passed ? 'passed' : 'failed'}</span>
          </div>
          {item.output && <pre className="tool-pre">{clipLines(item.output, VERIFY_OUTPUT_CHARS, 'tail').text}</pre>}
        </div>
      );
    case 'notice':
      return (
        <div className={`notice notice-${item.level}`}>
          <Icon name={item.level === 'warning' ? 'alert' : 'info'} size={14} />
          <span className="pre-wrap">{item.text}</span>
        </div>
      );
    case 'compaction':
      return <Compaction text={item.text} summary={item.summary} />;
    case 'error':
      return (
        <div className="notice notice-error" role="alert" data-testid="agent-error">
          <Icon name="alert" size={14} />
          <span>{item.message}</span>
        </div>
      );
    case 'turn-end':
      return OUTCOME_TEXT[item.outcome] ? (
        <div className={`turn-end outcome-${item.outcome}`}>
          {OUTCOME_TEXT[item.outcome]}
          {item.message ? ` — ${item.message}` : ''}
        </div>
      ) : (
        <div className="turn-end" />
      );
  }
}
