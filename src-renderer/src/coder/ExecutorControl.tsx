import { useEffect } from 'react';
import type { Session } from '../../../src-preload/contract/agents';
import type { CoderSessionConfig } from '../../../src-preload/contract/coder';
import { useAppStore, useClient } from '../store';
import './coder.css';

const EXECUTORS = [
  { value: 'builtin', label: 'Built-in', help: "Flightdeck's own agent loop" },
  { value: 'claude-code', label: 'Claude Code', help: 'Chat turns run on the Claude Code CLI (! and / commands stay built in)' },
] as const;

function injectedTitle(cfg: CoderSessionConfig): string {
  if (!cfg.injectConstraints) return 'ai/ constraint files are not injected';
  if (cfg.injected.length === 0) return 'On: ai/contracts/current.md, ai/implementer_guardrails.md and ai/engineering_codex.md go into the first prompt of a conversation when they exist';
  return `Injected into this conversation: ${cfg.injected.map((f) => f.path + (f.truncated ? ' (truncated)' : '')).join(', ')}`;
}

/** The session header's executor switch, and for Claude Code: constraints and conversation. */
export function ExecutorControl({ session }: { session: Session }) {
  const client = useClient();
  const cfg = useAppStore((s) => s.coderSessions.get(session.id));
  const load = useAppStore((s) => s.loadCoderSession);
  const upsert = useAppStore((s) => s.upsertCoderSession);
  const update = useAppStore((s) => s.updateCoderSession);
  const busy = session.status === 'running' || session.status === 'awaiting_approval';

  useEffect(() => {
    void load(session.id);
    return client.on('coder.sessions.changed', (c) => {
      if (c.sessionId === session.id) upsert(c);
    });
  }, [client, load, upsert, session.id]);

  const executor = cfg?.executor ?? session.executor ?? 'builtin';
  return (
    <div className="executor-control" data-testid="executor-control">
      <div className="segmented small" role="radiogroup" aria-label="Executor" data-testid="executor-switcher">
        {EXECUTORS.map((x) => (
          <button
            key={x.value}
            role="radio"
            aria-checked={executor === x.value}
            className={executor === x.value ? 'active' : ''}
            title={busy ? 'Wait for the turn to finish to switch executors' : x.help}
            disabled={busy}
            onClick={() => executor !== x.value && void update(session.id, { executor: x.value })}
          >
            {x.label}
          </button>
        ))}
      </div>
      {executor === 'claude-code' && cfg && (
        <>
          <label className="constraint-toggle small" title={injectedTitle(cfg)} data-testid="inject-toggle">
            <input type="checkbox" checked={cfg.injectConstraints} disabled={busy} onChange={(e) => void update(session.id, { injectConstraints: e.target.checked })} />
            Constraints
            {cfg.injectConstraints && cfg.injected.length > 0 && <span className="badge" data-testid="injected-count">{cfg.injected.length}</span>}
          </label>
          {cfg.claudeSessionId && (
            <button
              className="button small"
              disabled={busy}
              title={`Conversation ${cfg.claudeSessionId}. Start the next turn in a new Claude Code conversation (the transcript here stays).`}
              onClick={() => void update(session.id, { resetConversation: true })}
              data-testid="new-conversation"
            >
              New conversation
            </button>
          )}
        </>
      )}
    </div>
  );
}
