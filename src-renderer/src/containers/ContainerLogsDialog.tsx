import { useCallback, useEffect, useRef, useState } from 'react';
import type { ManagedContainer } from '../../../src-preload/contract/containers';
import { Modal } from '../components/Modal';
import { useClient } from '../store';

/**
 * A container's log (its agent console's text, the last lines) or its description as the
 * engine gives it (secret-looking variables redacted by the main process), read on demand.
 */
export function ContainerLogsDialog({ container, onClose }: { container: ManagedContainer; onClose(): void }) {
  const client = useClient();
  const [tab, setTab] = useState<'logs' | 'inspect'>('logs');
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const pre = useRef<HTMLPreElement>(null);
  const load = useCallback(async () => {
    setError(null);
    try {
      const sessionId = container.sessionId;
      setText(tab === 'logs' ? (await client.invoke('containers.logs', { sessionId })).text : JSON.stringify((await client.invoke('containers.inspect', { sessionId })).inspect, null, 2));
    } catch (e) {
      setText(null);
      setError(e instanceof Error ? e.message : String(e));
    }
  }, [client, container.sessionId, tab]);
  useEffect(() => {
    setText(null);
    void load();
  }, [load]);
  useEffect(() => {
    // The log's end is what a person looks for first; a description is read from the top.
    if (pre.current) pre.current.scrollTop = tab === 'logs' ? pre.current.scrollHeight : 0;
  }, [text, tab]);
  return (
    <Modal
      title={`${container.name} on ${container.engine}`}
      onClose={onClose}
      testId="container-logs-dialog"
      className="container-logs-dialog"
      footer={
        <button className="button" onClick={() => void load()} data-testid="container-logs-refresh">
          Refresh
        </button>
      }
    >
      <div className="segmented small" role="radiogroup" aria-label="Show">
        {(['logs', 'inspect'] as const).map((t) => (
          <button key={t} role="radio" aria-checked={tab === t} className={tab === t ? 'active' : ''} onClick={() => setTab(t)}>
            {t === 'logs' ? 'Logs' : 'Inspect'}
          </button>
        ))}
      </div>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {!error && (
        <pre className="container-logs mono" ref={pre} tabIndex={0} aria-label={tab === 'logs' ? 'Container log' : 'Container description'} data-testid="container-logs-text">
          {text === null ? 'Loading…' : text || (tab === 'logs' ? 'Nothing logged yet: the agent has run no command in this container.' : '')}
        </pre>
      )}
    </Modal>
  );
}
