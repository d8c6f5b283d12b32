import { useState, type FormEvent } from 'react';
import type { ProviderProfile } from '../../../src-preload/contract/agents';
import { Icon } from '../components/Icon';
import { Modal } from '../components/Modal';
import { useAppStore } from '../store';

type Draft = Omit<ProviderProfile, 'apiKeySet' | 'apiKeySource' | 'isDefault' | 'builtIn'> & { apiKey: string; makeDefault: boolean; isNew: boolean };

const NEW_PROFILE: Draft = {
  name: '',
  label: '',
  preset: 'custom',
  baseUrl: 'https://',
  model: '',
  maxTokens: 8192,
  contextWindow: 200_000,
  prices: { inputPerMTok: 0, outputPerMTok: 0, cacheReadPerMTok: 0, cacheWritePerMTok: 0 },
  apiKey: '',
  makeDefault: false,
  isNew: true,
};

function ProfileEditor({ initial, onClose }: { initial: Draft; onClose(): void }) {
  const save = useAppStore((s) => s.saveProfile);
  const toast = useAppStore((s) => s.toast);
  const [d, setD] = useState<Draft>(initial);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => setD((x) => ({ ...x, [k]: v }));
  const price = (k: keyof Draft['prices'], v: string) => setD((x) => ({ ...x, prices: { ...x.prices, [k]: Number(v) || 0 } }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    setError(null);
    try {
      const { apiKey, makeDefault, isNew: _isNew, ...rest } = d;
      await save({ ...rest, ...(apiKey.trim() ? { apiKey: apiKey.trim() } : {}), ...(makeDefault ? { makeDefault } : {}) });
      toast({ level: 'success', title: `Saved ${d.label || d.name}` });
      onClose();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      title={d.isNew ? 'Add a provider' : `Edit ${initial.label}`}
      onClose={onClose}
      testId="profile-editor"
      footer={
        <>
          <button className="button" onClick={onClose}>
            Cancel
          </button>
          <button className="button primary" type="submit" form="profile-form" disabled={saving}>
            {saving ? 'Saving…' : 'Save'}
          </button>
        </>
      }
    >
      <form id="profile-form" className="form grid-form" onSubmit={submit}>
        {d.isNew && (
          <label className="field">
            <span>Name (used by /model and --profile)</span>
            <input className="input mono" value={d.name} onChange={(e) => set('name', e.target.value)} placeholder="my-endpoint" />
          </label>
        )}
        <label className="field">
          <span>Label</span>
          <input className="input" value={d.label} onChange={(e) => set('label', e.target.value)} />
        </label>
        <label className="field wide">
          <span>Base URL (Anthropic-compatible)</span>
          <input className="input mono" value={d.baseUrl} onChange={(e) => set('baseUrl', e.target.value)} />
        </label>
        <label className="field">
          <span>Model</span>
          <input className="input mono" value={d.model} onChange={(e) => set('model', e.target.value)} />
        </label>
        <label className="field">
          <span>API key</span>
          <input className="input mono" type="password" autoComplete="off" value={d.apiKey} onChange={(e) => set('apiKey', e.target.value)} placeholder={d.isNew ? 'paste the key' : 'leave empty to keep the current key'} data-testid="api-key-input" />
        </label>
        <label className="field">
          <span>Max output tokens</span>
          <input className="input" type="number" value={d.maxTokens} onChange={(e) => set('maxTokens', Number(e.target.value))} />
        </label>
        <label className="field">
          <span>Context window</span>
          <input className="input" type="number" value={d.contextWindow} onChange={(e) => set('contextWindow', Number(e.target.value))} />
        </label>
        <fieldset className="field wide prices">
          <legend>Prices, USD per million tokens</legend>
          {(['inputPerMTok', 'outputPerMTok', 'cacheReadPerMTok', 'cacheWritePerMTok'] as const).map((k) => (
            <label key={k}>
              <span className="small muted">{k.replace('PerMTok', '').replace(/([A-Z])/g, ' $1').toLowerCase()}</span>
              <input className="input" type="number" step="0.01" min={0} value={d.prices[k]} onChange={(e) => price(k, e.target.value)} />
            </label>
          ))}
        </fieldset>
        <label className="checkbox wide">
          <input type="checkbox" checked={d.makeDefault} onChange={(e) => set('makeDefault', e.target.checked)} /> Use for new sessions
        </label>
        {error && (
          <p className="field-help error wide" role="alert">
            {error}
          </p>
        )}
      </form>
    </Modal>
  );
}

export function ProvidersPanel() {
  const profiles = useAppStore((s) => s.profiles);
  const remove = useAppStore((s) => s.removeProfile);
  const [editing, setEditing] = useState<Draft | null>(null);
  return (
    <div className="panel" data-testid="providers-panel">
      <div className="panel-head">
        <h3>Model providers</h3>
        <button className="button" onClick={() => setEditing(NEW_PROFILE)}>
          <Icon name="plus" /> Add provider
        </button>
      </div>
      <p className="muted small">Any Anthropic-compatible endpoint works: Anthropic, GLM (Zhipu), MiniMax, DeepSeek or your own. Keys are stored encrypted or in a private file in the data folder and never shown again.</p>
      <ul className="profile-rows">
        {profiles.map((p) => (
          <li key={p.name} className="profile-row" data-testid="profile-row">
            <div className="profile-main">
              <strong>{p.label}</strong>
              {p.isDefault && <span className="badge badge-ok">default</span>}
              <span className="mono small muted truncate">
                {p.model} · {p.baseUrl}
              </span>
            </div>
            <span className={`badge ${p.apiKeySet ? 'badge-ok' : 'badge-warn'}`}>{p.apiKeySet ? (p.apiKeySource === 'env' ? 'key from environment' : 'key set') : 'no key'}</span>
            <button className="button" onClick={() => setEditing({ ...p, apiKey: '', makeDefault: p.isDefault, isNew: false })}>
              Edit
            </button>
            {!p.builtIn && (
              <button className="icon-button danger" aria-label={`Remove ${p.label}`} onClick={() => void remove(p.name)}>
                <Icon name="trash" />
              </button>
            )}
          </li>
        ))}
        {profiles.length === 0 && <li className="muted">The agent engine is not available.</li>}
      </ul>
      {editing && <ProfileEditor initial={editing} onClose={() => setEditing(null)} />}
    </div>
  );
}

export function AgentSettingsPanel() {
  const s = useAppStore((x) => x.agentSettings);
  const update = useAppStore((x) => x.updateAgentSettings);
  if (!s) return null;
  const num = (k: 'maxSteps' | 'maxRetries', v: string) => {
    const n = Number(v);
    if (Number.isInteger(n) && n >= 0) void update({ [k]: n });
  };
  return (
    <div className="panel" data-testid="agent-settings">
      <h3>Agents</h3>
      <div className="setting-row">
        <div>
          <strong>Hard floor</strong>
          <p className="muted small">Deny catastrophic commands (rm -rf /, mkfs, dd to a disk, fork bombs, force push to the base branch, DROP DATABASE) in every mode, YOLO included.</p>
        </div>
        <label className="switch">
          <input type="checkbox" checked={s.hardFloor} onChange={(e) => void update({ hardFloor: e.target.checked })} aria-label="Hard floor" />
          <span />
        </label>
      </div>
      <div className="setting-row">
        <div>
          <strong>Step limit</strong>
          <p className="muted small">Model calls per turn before the agent stops with "step limit reached".</p>
        </div>
        <input className="input narrow" type="number" min={1} max={500} value={s.maxSteps} onChange={(e) => num('maxSteps', e.target.value)} />
      </div>
      <div className="setting-row">
        <div>
          <strong>Retries</strong>
          <p className="muted small">How often a rate-limited, overloaded or dropped model call is retried (with backoff).</p>
        </div>
        <input className="input narrow" type="number" min={0} max={20} value={s.maxRetries} onChange={(e) => num('maxRetries', e.target.value)} />
      </div>
      <div className="setting-row">
        <div>
          <strong>Default mode for new sessions</strong>
        </div>
        <select className="input select narrow-select" value={s.defaultMode} onChange={(e) => void update({ defaultMode: e.target.value as typeof s.defaultMode })}>
          <option value="plan">Plan</option>
          <option value="default">Default</option>
          <option value="auto-edit">Auto-edit</option>
          <option value="yolo">YOLO</option>
        </select>
      </div>
    </div>
  );
}
