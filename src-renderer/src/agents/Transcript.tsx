import { useState } from 'react';
import { Icon } from '../components/Icon';
import { Markdown } from './Markdown';
import { ToolCard } from './ToolCard';
import type { TranscriptItem } from './transcript';

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
  interrupted: 'Interrupted (Flightdeck stopped during this turn)',
};

export function TranscriptItemView({ item }: { item: TranscriptItem }) {
  switch (item.kind) {
    case 'user':
      return (
        <div className="msg msg-user" data-testid="msg-user">
          {item.inputKind === 'chat' ? <p className="pre-wrap">{item.text}</p> : <code className="mono">{item.text}</code>}
        </div>
      );
    case 'assistant':
      return (
        <div className="msg msg-assistant" data-testid="msg-assistant">
          <Markdown text={item.text} />
        </div>
      );
    case 'thinking':
      return <Thinking text={item.text} />;
    case 'tool':
      return <ToolCard item={item} />;
    case 'command':
      return (
        <div className={`command-result ${item.ok ? '' : 'failed'}`} data-testid="command-result">
          <div className="command-head">
            <span className="mono">{item.cmdKind === 'slash' ? `/${item.name.replace(/^\//, '')}` : `! ${item.name}`}</span>
            {item.exitCode !== null && <span className={`badge ${item.exitCode === 0 ? 'badge-ok' : 'badge-bad'}`}>exit {item.exitCode}</span>}
          </div>
          {item.text && (item.cmdKind === 'slash' ? <Markdown text={item.text} /> : <pre className="tool-pre">{item.text}</pre>)}
        </div>
      );
    case 'verify':
      return (
        <div className="verify" data-testid="verify">
          <div className="command-head">
            <span>
              Auto-verify <span className="mono">{item.command}</span> — attempt {item.attempt}
              {item.maxAttempts ? ` of ${item.maxAttempts}` : ''}
            </span>
            <span className={`badge ${item.passed === null ? '' : item.passed ? 'badge-ok' : 'badge-bad'}`}>{item.passed === null ? 'running…' : item.passed ? 'passed' : 'failed'}</span>
          </div>
          {item.output && <pre className="tool-pre">{item.output.slice(-6000)}</pre>}
        </div>
      );
    case 'notice':
      return (
        <div className={`notice notice-${item.level}`}>
          <Icon name={item.level === 'warning' ? 'alert' : 'info'} size={14} />
          <span className="pre-wrap">{item.text}</span>
        </div>
      );
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
