import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { Icon } from '../components/Icon';
import { completeSlash } from './slash-commands';

export function Composer({ running, onSend, onStop, disabled }: { running: boolean; onSend(text: string): Promise<boolean>; onStop(): void; disabled?: boolean }) {
  const [text, setText] = useState('');
  const [selected, setSelected] = useState(0);
  const [sending, setSending] = useState(false);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  // A session opened (or started) is for typing: the composer has focus, unless a dialog took it.
  useEffect(() => {
    if (!document.querySelector('[role="dialog"]')) inputRef.current?.focus();
  }, []);
  const suggestions = completeSlash(text);
  const mode = text.trimStart().startsWith('!') ? 'bang' : text.trimStart().startsWith('/') ? 'slash' : 'chat';

  const send = async () => {
    const value = text.trim();
    if (!value || running || sending) return;
    setSending(true);
    const ok = await onSend(value);
    setSending(false);
    if (ok) setText('');
  };

  const complete = (name: string) => {
    setText(`/${name} `);
    setSelected(0);
  };

  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (suggestions.length > 0 && !text.includes(' ')) {
      if (e.key === 'ArrowDown') {
        e.preventDefault();
        setSelected((s) => (s + 1) % suggestions.length);
        return;
      }
      if (e.key === 'ArrowUp') {
        e.preventDefault();
        setSelected((s) => (s - 1 + suggestions.length) % suggestions.length);
        return;
      }
      if (e.key === 'Tab') {
        e.preventDefault();
        complete(suggestions[Math.min(selected, suggestions.length - 1)]!.name);
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void send();
    }
  };

  return (
    <div className="composer">
      {suggestions.length > 0 && !text.includes(' ') && (
        <ul className="slash-menu" role="listbox" data-testid="slash-menu">
          {suggestions.map((c, i) => (
            <li key={c.name} role="option" aria-selected={i === selected} className={i === selected ? 'selected' : ''} onMouseDown={(e) => (e.preventDefault(), complete(c.name))}>
              <span className="mono">
                /{c.name} <span className="muted">{c.args}</span>
              </span>
              <span className="muted small">{c.help}</span>
            </li>
          ))}
        </ul>
      )}
      <div className={`composer-box mode-${mode}`}>
        <textarea
          ref={inputRef}
          className="composer-input"
          placeholder={running ? 'The agent is working… (Stop to interrupt)' : 'Ask the agent, "!command" to run a shell command, "/" for commands'}
          value={text}
          rows={Math.min(8, Math.max(2, text.split('\n').length))}
          onChange={(e) => {
            setText(e.target.value);
            setSelected(0);
          }}
          onKeyDown={onKey}
          disabled={disabled}
          data-testid="composer-input"
          aria-label="Message"
        />
        <div className="composer-actions">
          <span className="muted small">{mode === 'bang' ? 'Shell command (policy applies)' : mode === 'slash' ? 'Command' : 'Enter to send, Shift+Enter for a new line'}</span>
          {running ? (
            <button className="button danger" onClick={onStop} data-testid="stop">
              <Icon name="x" /> Stop
            </button>
          ) : (
            <button className="button primary" onClick={() => void send()} disabled={!text.trim() || sending || disabled} data-testid="send">
              Send
            </button>
          )}
        </div>
      </div>
    </div>
  );
}
