import { useEffect, useState } from 'react';
import type { McpSuggestion } from '../../../src-preload/contract';
import { useAppStore, useClient } from '../store';

/**
 * On a trusted project's page: the MCP servers its .mcp.json suggests, each added one by one
 * (enabled for this project only). Nothing shows while the project is untrusted: a
 * repository's servers are never used, or even offered, on its own say-so.
 */
export function McpSuggestions({ projectId }: { projectId: string }) {
  const client = useClient();
  const toastError = useAppStore((s) => s.toastError);
  const [servers, setServers] = useState<McpSuggestion[]>([]);
  const [generation, setGeneration] = useState(0);
  useEffect(() => client.on('trust.changed', () => setGeneration((g) => g + 1)), [client]);
  useEffect(() => client.on('mcp.changed', () => setGeneration((g) => g + 1)), [client]);
  useEffect(() => {
    let live = true;
    client.invoke('mcp.suggestions', { projectId }).then(
      (r) => live && setServers(r.trusted ? r.servers : []),
      // A project that is gone has no suggestions; its page says what is wrong.
      () => live && setServers([]),
    );
    return () => {
      live = false;
    };
  }, [client, projectId, generation]);
  if (servers.length === 0) return null;
  return (
    <div className="panel" data-testid="mcp-suggestions">
      <h3>This project suggests these MCP servers</h3>
      <p className="muted small">
        From its .mcp.json (you trusted this repository). None is used until you add it; an added server is enabled for this project only, and runs in each session's worktree. The values below are the repository's, shown as it wrote them: read them before adding.
      </p>
      <ul className="plain-list">
        {servers.map((s) => (
          <li key={s.name} className="setting-row" data-testid="mcp-suggestion" data-server={s.name}>
            <div>
              <strong>{s.name}</strong>
              <div className="mono small muted">{s.transport === 'stdio' ? [s.command, ...s.args].join(' ') : s.url}</div>
              <SuggestedValues env={s.env} headers={s.headers} />
              {s.refused && !s.added && (
                <p className="error small" data-testid="mcp-suggestion-refused">
                  Not offered: {s.refused}
                </p>
              )}
            </div>
            {s.added ? (
              <span className="muted small">Added</span>
            ) : s.refused ? null : (
              <button
                type="button"
                className="button small"
                aria-label={`Add the MCP server ${s.name}`}
                onClick={() =>
                  void client.invoke('mcp.addSuggested', { projectId, name: s.name }).catch((e: unknown) => toastError(`Could not add ${s.name}`, e))
                }
              >
                Add
              </button>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A suggestion's variables and headers with their values: the repository's, so the user reads them. */
function SuggestedValues({ env, headers }: { env: Record<string, string>; headers: Record<string, string> }) {
  const rows = [...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  if (rows.length === 0) return null;
  return (
    <ul className="plain-list mono small" data-testid="mcp-suggestion-values" aria-label="Variables and headers it sets">
      {rows.map((r) => (
        <li key={r}>{r}</li>
      ))}
    </ul>
  );
}
