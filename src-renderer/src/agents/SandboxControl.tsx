import { useState } from 'react';
import { SandboxMode, type SandboxNetwork, type Session } from '../../../src-preload/contract/agents';
import { effectiveSandbox, SANDBOX_HELP, SANDBOX_LABEL } from '../../../src-preload/contract/words';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { useAppStore } from '../store';
import { useDraft } from '../lib/use-draft';

const sentence = (t: string) => t.charAt(0).toUpperCase() + t.slice(1);

export const SANDBOXES: Array<{ value: SandboxMode; label: string; help: string }> = SandboxMode.options.map((value) => ({ value, label: SANDBOX_LABEL[value], help: sentence(SANDBOX_HELP[value]) }));

/**
 * How the session's commands are confined, always visible in the header: full access is the
 * one that must never go unnoticed, so it is the loud one. Plan mode runs commands read-only
 * whatever the session chose.
 */
export function SandboxBadge({ session, testId = 'sandbox-badge', container = null }: { session: Session; testId?: string; container?: string | null }) {
  const effective = effectiveSandbox(session.mode, session.sandbox);
  // A session placed in a container runs its commands there: that is where it runs, not a sandbox on this machine.
  if (container !== null) {
    return (
      <span className="badge badge-ok sandbox-confined" title={`Commands run in a container: ${container}`} data-testid={testId}>
        Container
      </span>
    );
  }
  // sandbox-confined: in a narrow header the confined states move into the overflow menu; FULL ACCESS never does.
  const cls = effective === 'danger-full-access' ? 'badge badge-bad' : effective === 'read-only' ? 'badge sandbox-confined' : 'badge badge-ok sandbox-confined';
  // The picker's names (Read-only, Workspace, Full access), as /permissions and Settings say them.
  return (
    <span className={cls} title={`Sandbox ${SANDBOX_LABEL[effective]}: ${SANDBOX_HELP[effective]}${session.mode === 'plan' && session.sandbox !== 'read-only' ? ' (plan mode)' : ''}`} data-testid={testId}>
      {effective === 'danger-full-access' ? 'FULL ACCESS' : `${SANDBOX_LABEL[effective]} sandbox`}
    </span>
  );
}

/** The session's sandbox choice; full access asks for confirmation first. */
export function SandboxControl({ session }: { session: Session }) {
  const update = useAppStore((s) => s.updateSession);
  const [confirm, setConfirm] = useState(false);
  return (
    <>
      <label className="model-picker" title="Sandbox: what the agent's commands may touch">
        <select
          className="input select"
          value={session.sandbox}
          aria-label="Sandbox"
          data-testid="sandbox-picker"
          onChange={(e) => {
            const v = e.target.value as SandboxMode;
            if (v === 'danger-full-access') setConfirm(true);
            else void update(session.id, { sandbox: v });
          }}
        >
          {SANDBOXES.map((s) => (
            <option key={s.value} value={s.value} title={s.help}>
              {s.label}
            </option>
          ))}
        </select>
      </label>
      {confirm && (
        <ConfirmDialog
          title="Give this session full access?"
          confirmLabel="Allow full access"
          onCancel={() => setConfirm(false)}
          onConfirm={() => {
            setConfirm(false);
            void update(session.id, { sandbox: 'danger-full-access' });
          }}
        >
          <p>The agent&apos;s commands (and Claude Code&apos;s) will run without a sandbox: they can change any file you can, anywhere, and reach the network.</p>
          <p>The header shows FULL ACCESS while this is on. Switch back to Workspace at any time.</p>
        </ConfirmDialog>
      )}
    </>
  );
}

/** The domains typed in the field. */
const domainsOf = (text: string): string[] => text.split(/[\s,]+/).filter((d) => d !== '');
/** The list as the host keeps it (trimmed, lower case) and shows it. */
const domainList = (text: string): string =>
  domainsOf(text)
    .map((d) => d.toLowerCase())
    .join(', ');

/** Settings → Agents: network for sandboxed commands. */
export function SandboxNetworkSetting() {
  const s = useAppStore((x) => x.agentSettings);
  const update = useAppStore((x) => x.updateAgentSettings);
  // A settings change while the list is being edited (a step limit saved, another window) keeps the edit.
  const saved = s ? s.sandboxAllowedDomains.join(', ') : undefined;
  const [domains, setDomains] = useDraft(saved, domainList);
  if (!s) return null;
  return (
    <div className="setting-row" data-testid="sandbox-network-setting">
      <div>
        <strong>Network for sandboxed commands</strong>
        <p className="muted small">
          On, off, or only the listed domains. Domain filtering happens in Claude Code&apos;s sandbox; the built-in agent&apos;s commands get no network at all under an allow-list.
        </p>
        {s.sandboxNetwork === 'allow-list' && (
          <input
            className="input"
            aria-label="Allowed domains"
            placeholder="registry.npmjs.org, *.github.com"
            value={domains}
            onChange={(e) => setDomains(e.target.value)}
            onBlur={() => {
              // Left unchanged: nothing is sent (it would put back a list another window changed meanwhile).
              if (domainList(domains) !== saved) void update({ sandboxAllowedDomains: domainsOf(domains) });
            }}
          />
        )}
      </div>
      <select className="input select narrow-select" aria-label="Network for sandboxed commands" value={s.sandboxNetwork} onChange={(e) => void update({ sandboxNetwork: e.target.value as SandboxNetwork })}>
        <option value="on">On</option>
        <option value="off">Off</option>
        <option value="allow-list">Allow-list</option>
      </select>
    </div>
  );
}
