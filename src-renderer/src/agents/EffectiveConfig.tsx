import { useEffect, useState } from 'react';
import type { EffectiveAgentConfig } from '../../../src-preload/contract/agents';
import { useClient } from '../store';

/**
 * "Where does this setting come from?": the agent loop's settings in effect for a session's
 * folder, each with the file it came from (.coder/config.json wins over .flightdeck/config.yml)
 * or "default". Read when opened, so an edit to either file shows on the next look.
 */
export function EffectiveConfig({ sessionId, model }: { sessionId: string; model: string }) {
  const client = useClient();
  const [open, setOpen] = useState(false);
  const [config, setConfig] = useState<EffectiveAgentConfig | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!open) return;
    let live = true;
    client.invoke('agents.config.get', { sessionId }).then(
      (c) => live && (setConfig(c), setError(null)),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
    // The session's model is a dependency: /model rewrites the file, so the view reads it again.
  }, [client, open, sessionId, model]);
  return (
    <span className="effective-config">
      <button className="link" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid="effective-config-toggle">
        Settings in effect
      </button>
      {open && (
        <div className="effective-config-panel" role="region" aria-label="Agent settings in effect" data-testid="effective-config">
          {error && <p className="error small">{error}</p>}
          {config && (
            <>
              {config.problem && (
                <p className="effective-config-problem small" data-testid="effective-config-problem">
                  {config.problem}
                </p>
              )}
              <table className="effective-config-table">
                <thead>
                  <tr>
                    <th>Setting</th>
                    <th>Value</th>
                    <th>From</th>
                  </tr>
                </thead>
                <tbody>
                  {config.entries.map((e) => (
                    <tr key={e.key} data-testid="effective-config-row" data-key={e.key} data-source={e.source}>
                      <td className="mono">{e.key}</td>
                      <td className="mono">{e.value === null ? <span className="muted">not set</span> : String(e.value)}</td>
                      <td className={e.source === 'default' ? 'muted' : 'mono'} title={e.path ?? undefined}>
                        {e.source}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <p className="muted small">
                Read from <span className="mono">{config.dir}</span>. .coder/config.json wins over .flightdeck/config.yml; /model writes .coder/config.json. This session uses{' '}
                <span className="mono">{model}</span>.
              </p>
            </>
          )}
        </div>
      )}
    </span>
  );
}
