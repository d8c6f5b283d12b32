import { useEffect, useState } from 'react';
import type { McpServer, McpServerInput, McpTestResult } from '../../../src-preload/contract';
import { useAppStore, useClient } from '../store';
import { pairLines, splitCommandLine } from './command-line';

const EMPTY = { name: '', kind: 'command' as 'command' | 'url', commandLine: '', url: '', secrets: '' };

/**
 * Settings → MCP servers: the user's MCP servers for every agent (the built-in loop and Claude
 * Code alike). Added as a command or a URL; environment and header values are secrets, stored
 * like provider keys and never shown again (only their names). Test lists a server's tools or
 * says in words why it does not start.
 */
export function McpServersPanel() {
  const client = useClient();
  const toastError = useAppStore((s) => s.toastError);
  const [servers, setServers] = useState<McpServer[] | null>(null);
  const [form, setForm] = useState(EMPTY);
  const [formError, setFormError] = useState<string | null>(null);
  const [tests, setTests] = useState<Record<string, McpTestResult | 'testing'>>({});

  useEffect(() => {
    let live = true;
    client.invoke('mcp.list', {}).then(
      (l) => live && setServers(l),
      (e: unknown) => toastError('Could not list the MCP servers', e),
    );
    const off = client.on('mcp.changed', (u) => setServers(u.servers));
    return () => {
      live = false;
      off();
    };
  }, [client, toastError]);

  const add = async () => {
    setFormError(null);
    let input: McpServerInput;
    try {
      if (form.kind === 'command') {
        const [command, ...args] = splitCommandLine(form.commandLine);
        if (!command) throw new Error('Enter the command that starts the server.');
        input = { transport: 'stdio', name: form.name.trim(), command, args, env: pairLines(form.secrets, '=') };
      } else {
        input = { transport: 'http', name: form.name.trim(), url: form.url.trim(), headers: pairLines(form.secrets, ':') };
      }
    } catch (e) {
      setFormError(e instanceof Error ? e.message : String(e));
      return;
    }
    try {
      await client.invoke('mcp.add', input);
      setForm(EMPTY);
    } catch (e) {
      setFormError(e instanceof Error ? e.message : String(e));
    }
  };

  const test = async (name: string) => {
    setTests((t) => ({ ...t, [name]: 'testing' }));
    try {
      const r = await client.invoke('mcp.test', { name });
      setTests((t) => ({ ...t, [name]: r }));
    } catch (e) {
      setTests((t) => ({ ...t, [name]: { ok: false, tools: [], error: e instanceof Error ? e.message : String(e) } }));
    }
  };

  const act = async (what: string, run: () => Promise<unknown>) => {
    try {
      await run();
    } catch (e) {
      toastError(what, e);
    }
  };

  return (
    <div className="panel" data-testid="mcp-panel">
      <h3>MCP servers</h3>
      <p className="muted small">
        Tools for every agent, configured once: the built-in agent and Claude Code both get the enabled servers, and every call asks for approval like any other tool. Environment and header values are stored like API keys and never shown again.
      </p>
      {servers === null ? (
        <p className="muted small">Loading…</p>
      ) : servers.length === 0 ? (
        <p className="muted small">No MCP servers yet.</p>
      ) : (
        <ul className="plain-list" data-testid="mcp-list">
          {servers.map((s) => {
            const t = tests[s.name];
            return (
              <li key={s.name} className="setting-row" data-testid="mcp-row" data-server={s.name}>
                <div>
                  <strong>{s.name}</strong> <span className="muted small">{s.transport === 'stdio' ? 'command' : 'URL'}</span>{' '}
                  <span className="small" data-testid="mcp-status">
                    · {s.status}
                  </span>
                  <div className="mono small muted">{s.transport === 'stdio' ? [s.command, ...s.args].join(' ') : s.url}</div>
                  {(s.envNames.length > 0 || s.headerNames.length > 0) && <div className="small muted">Secrets: {[...s.envNames, ...s.headerNames].join(', ')} (values hidden)</div>}
                  {(Object.keys(s.plainEnv).length > 0 || Object.keys(s.plainHeaders).length > 0) && (
                    <div className="small muted mono" data-testid="mcp-plain-values" title="From a project's .mcp.json: the repository's values, not secrets">
                      {[...Object.entries(s.plainEnv).map(([k, v]) => `${k}=${v}`), ...Object.entries(s.plainHeaders).map(([k, v]) => `${k}: ${v}`)].join('  ')}
                    </div>
                  )}
                  {s.tools.length > 0 && (
                    <details className="small" data-testid="mcp-tool-policies">
                      <summary>Tool approvals</summary>
                      <ul className="plain-list">
                        {s.tools.map((tool) => (
                          <li key={tool.name}>
                            <code>{tool.name}</code>{' '}
                            <select
                              aria-label={`Approval for ${s.name} ${tool.name}`}
                              value={s.toolPolicy[tool.name] ?? 'ask'}
                              onChange={(e) => void act(`Could not change ${tool.name}`, () => client.invoke('mcp.setToolPolicy', { name: s.name, tool: tool.name, policy: e.target.value as 'ask' | 'allow' | 'deny' }))}
                            >
                              <option value="ask">Ask each time</option>
                              <option value="allow">Always allow</option>
                              <option value="deny">Always deny</option>
                            </select>
                          </li>
                        ))}
                      </ul>
                    </details>
                  )}
                  <ProjectScope server={s} onChange={(projectIds) => void act(`Could not change ${s.name}`, () => client.invoke('mcp.setEnabled', { name: s.name, enabled: s.enabled, projectIds }))} />
                  {s.lastError && (
                    <p className="error small" data-testid="mcp-last-error">
                      {s.lastError}
                    </p>
                  )}
                  {t === 'testing' && <p className="muted small">Starting the server…</p>}
                  {t && t !== 'testing' && (
                    <div className="small" data-testid="mcp-test-result" role="status">
                      {t.ok ? (
                        <>
                          {t.tools.length} tool(s):{' '}
                          {t.tools.map((x) => (
                            <code key={x.name} title={x.description}>
                              {x.name}{' '}
                            </code>
                          ))}
                        </>
                      ) : (
                        <span className="error">{t.error}</span>
                      )}
                    </div>
                  )}
                </div>
                <div className="form-row">
                  <label className="small">
                    <input type="checkbox" checked={s.enabled} onChange={(e) => void act(`Could not change ${s.name}`, () => client.invoke('mcp.setEnabled', { name: s.name, enabled: e.target.checked }))} aria-label={`Enable ${s.name}`} /> Enabled
                  </label>
                  <button type="button" className="button small" onClick={() => void test(s.name)} disabled={t === 'testing'} aria-label={`Test ${s.name}`}>
                    Test
                  </button>
                  <button type="button" className="link small" onClick={() => void act(`Could not remove ${s.name}`, () => client.invoke('mcp.remove', { name: s.name }))} aria-label={`Remove ${s.name}`}>
                    Remove
                  </button>
                </div>
              </li>
            );
          })}
        </ul>
      )}
      <form
        className="form-col mcp-add"
        data-testid="mcp-add-form"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <div className="form-row">
          <input className="input" aria-label="Server name" placeholder="name (github)" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
          <div className="segmented" role="radiogroup" aria-label="Server kind">
            {(['command', 'url'] as const).map((k) => (
              <button key={k} type="button" role="radio" aria-checked={form.kind === k} className={form.kind === k ? 'active' : ''} onClick={() => setForm({ ...form, kind: k })}>
                {k === 'command' ? 'Command' : 'URL'}
              </button>
            ))}
          </div>
        </div>
        {form.kind === 'command' ? (
          <input className="input" aria-label="Command" placeholder="npx -y @modelcontextprotocol/server-everything" value={form.commandLine} onChange={(e) => setForm({ ...form, commandLine: e.target.value })} />
        ) : (
          <input className="input" aria-label="Server URL" placeholder="https://example.com/mcp" value={form.url} onChange={(e) => setForm({ ...form, url: e.target.value })} />
        )}
        <textarea
          className="input mono"
          rows={2}
          aria-label={form.kind === 'command' ? 'Environment (NAME=value per line, secret)' : 'Headers (Name: value per line, secret)'}
          placeholder={form.kind === 'command' ? 'GITHUB_TOKEN=… (one per line; stored as a secret)' : 'Authorization: Bearer … (one per line; stored as a secret)'}
          value={form.secrets}
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => setForm({ ...form, secrets: e.target.value })}
        />
        {formError && (
          <p className="error small" role="alert" data-testid="mcp-add-error">
            {formError}
          </p>
        )}
        <button type="submit" className="button" disabled={!form.name.trim() || (form.kind === 'command' ? !form.commandLine.trim() : !form.url.trim())} data-testid="mcp-add">
          Add server
        </button>
      </form>
    </div>
  );
}

/** Where an enabled server is used: every project, or the projects ticked here. */
function ProjectScope({ server, onChange }: { server: McpServer; onChange(projectIds: string[] | null): void }) {
  const projects = useAppStore((s) => s.projects);
  const some = server.projectIds;
  return (
    <details className="small" data-testid="mcp-scope">
      <summary>{some === null ? 'For every project' : `For ${some.length} project(s) only`}</summary>
      <label>
        <input type="radio" name={`scope-${server.name}`} checked={some === null} onChange={() => onChange(null)} /> Every project
      </label>{' '}
      <label>
        <input type="radio" name={`scope-${server.name}`} checked={some !== null} onChange={() => onChange([])} /> Only these projects:
      </label>
      {some !== null && (
        <ul className="plain-list">
          {projects.map((p) => (
            <li key={p.id}>
              <label>
                <input type="checkbox" checked={some.includes(p.id)} onChange={(e) => onChange(e.target.checked ? [...some, p.id] : some.filter((x) => x !== p.id))} aria-label={`Use ${server.name} in ${p.name}`} /> {p.name}
              </label>
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}
