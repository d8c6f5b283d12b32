import { useEffect, useState } from 'react';
import { useClient } from '../store';

/**
 * The rules "approve for this session" remembered, each with a button that forgets it (the calls
 * it covered ask again). Read when opened and whenever an approval of the session is answered.
 */
export function SessionRules({ sessionId, pendingApprovals }: { sessionId: string; pendingApprovals: number }) {
  const client = useClient();
  const [open, setOpen] = useState(false);
  const [rules, setRules] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  useEffect(() => {
    if (!open) return;
    let live = true;
    client.invoke('agents.rules.list', { sessionId }).then(
      (r) => live && (setRules(r), setError(null)),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
    // An answered approval ("Always") may have added a rule: an open list reads again.
  }, [client, open, sessionId, reload, pendingApprovals]);
  const remove = async (rule: string) => {
    try {
      await client.invoke('agents.rules.remove', { sessionId, rule });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
    setReload((n) => n + 1);
  };
  return (
    <span className="effective-config session-rules">
      <button className="link" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid="session-rules-toggle">
        Approved for this session
      </button>
      {open && (
        <div className="effective-config-panel" role="region" aria-label="Rules approved for this session" data-testid="session-rules">
          {error && <p className="error small">{error}</p>}
          {rules && rules.length === 0 && <p className="muted small">Nothing yet: “Always” in an approval remembers its rule here.</p>}
          {rules && rules.length > 0 && (
            <ul className="session-rules-list">
              {rules.map((rule) => (
                <li key={rule} data-testid="session-rule">
                  <code className="mono">{rule}</code>
                  <button className="button small" onClick={() => void remove(rule)} aria-label={`Forget ${rule}`} data-testid="session-rule-remove">
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          )}
          <p className="muted small">
            A rule covers a command when every part of it has a remembered family: <code>npm test *</code> covers npm test with any arguments, not with a redirection to a file, another user or another command.
          </p>
        </div>
      )}
    </span>
  );
}
