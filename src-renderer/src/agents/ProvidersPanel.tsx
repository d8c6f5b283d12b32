import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import { AgentMode, type ProviderProfile } from '../../../src-preload/contract/agents';
import { MODE_LABEL } from '../../../src-preload/contract/words';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Icon } from '../components/Icon';
import { Modal } from '../components/Modal';
import { useAppStore } from '../store';
import { draftFromProfile, fieldOfServerMessage, NEW_DRAFT, PRICE_KEYS, validateDraft, type FieldKey, type ProfileDraft } from './profile-form';
import { SandboxNetworkSetting } from './SandboxControl';
import { ConnectionTestButton } from '../providers/ConnectionTest';

const PRICE_LABEL: Record<(typeof PRICE_KEYS)[number], string> = {
  inputPerMTok: 'Input',
  outputPerMTok: 'Output',
  cacheReadPerMTok: 'Cache read',
  cacheWritePerMTok: 'Cache write',
};

/** One labelled input with its error beside it (and announced), marked invalid for the eye and for screen readers. */
function Field({ id, label, error, wide, children }: { id: string; label: ReactNode; error: string | undefined; wide?: boolean; children: ReactNode }) {
  return (
    <div className={`field ${wide ? 'wide' : ''} ${error ? 'has-error' : ''}`} data-field={id}>
      <label htmlFor={`pf-${id}`}>{label}</label>
      {children}
      {error && (
        <p className="field-help error" id={`pf-${id}-error`} data-testid={`error-${id}`}>
          {error}
        </p>
      )}
    </div>
  );
}

function ProfileEditor({ initial, onClose }: { initial: ProfileDraft; onClose(): void }) {
  const save = useAppStore((s) => s.saveProfile);
  const toast = useAppStore((s) => s.toast);
  const [d, setD] = useState<ProfileDraft>(initial);
  const [errors, setErrors] = useState<Partial<Record<FieldKey, string>>>({});
  const [saving, setSaving] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const set = <K extends keyof ProfileDraft>(k: K, v: ProfileDraft[K]) => setD((x) => ({ ...x, [k]: v }));
  const price = (k: (typeof PRICE_KEYS)[number], v: string) => setD((x) => ({ ...x, prices: { ...x.prices, [k]: v } }));

  // The first field in error is scrolled into view and focused: errors never sit below the fold.
  const showErrors = (e: Partial<Record<FieldKey, string>>) => {
    setErrors(e);
    requestAnimationFrame(() => {
      const first = formRef.current?.querySelector<HTMLElement>('.has-error input, .has-error, .form-error');
      first?.scrollIntoView({ block: 'center' });
      if (first instanceof HTMLInputElement) first.focus();
      else first?.querySelector('input')?.focus();
    });
  };

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (saving) return;
    const v = validateDraft(d);
    if (!v.ok || !v.input) return showErrors(v.errors);
    setSaving(true);
    setErrors({});
    try {
      await save(v.input);
      toast({ level: 'success', title: `Saved ${d.label || d.name}` });
      onClose();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const field = fieldOfServerMessage(message);
      showErrors(field ? { [field]: message.slice(message.indexOf(':') + 1).trim() } : { form: message });
    } finally {
      setSaving(false);
    }
  };

  const inv = (k: FieldKey) => ({ 'aria-invalid': errors[k] ? true : undefined, 'aria-describedby': errors[k] ? `pf-${k}-error` : undefined, id: `pf-${k}` });
  const count = Object.keys(errors).length;

  return (
    <Modal
      title={d.isNew ? 'Add a provider' : `Edit ${initial.label}`}
      onClose={onClose}
      onSubmit={() => void submit()}
      testId="profile-editor"
      footer={
        <>
          {count > 0 && (
            <span className="footer-error small" role="alert">
              {count === 1 ? 'One field needs attention.' : `${count} fields need attention.`}
            </span>
          )}
          <button className="button" onClick={onClose}>
            Cancel
          </button>
          <button className="button primary" type="submit" form="profile-form" disabled={saving} title="Save (Ctrl+Enter)" data-testid="profile-save">
            {saving ? 'Saving…' : 'Save'}
          </button>
        </>
      }
    >
      <form id="profile-form" className="form grid-form" onSubmit={submit} ref={formRef} noValidate>
        {errors.form && (
          <p className="field-help error wide form-error" role="alert" data-testid="error-form">
            {errors.form}
          </p>
        )}
        {d.isNew && (
          <Field id="name" label="Name (used by /model and --profile)" error={errors.name} wide>
            <input className={`input mono ${errors.name ? 'invalid' : ''}`} value={d.name} onChange={(e) => set('name', e.target.value)} placeholder="my-endpoint" {...inv('name')} />
          </Field>
        )}
        <Field id="label" label="Label" error={errors.label}>
          <input className={`input ${errors.label ? 'invalid' : ''}`} value={d.label} onChange={(e) => set('label', e.target.value)} {...inv('label')} />
        </Field>
        <Field id="model" label="Model" error={errors.model}>
          <input className={`input mono ${errors.model ? 'invalid' : ''}`} value={d.model} onChange={(e) => set('model', e.target.value)} {...inv('model')} />
        </Field>
        <Field id="baseUrl" label="Base URL (Anthropic-compatible)" error={errors.baseUrl} wide>
          <input className={`input mono ${errors.baseUrl ? 'invalid' : ''}`} value={d.baseUrl} onChange={(e) => set('baseUrl', e.target.value)} {...inv('baseUrl')} />
        </Field>
        <Field id="apiKey" label="API key" error={errors.apiKey} wide>
          <input
            className={`input mono ${errors.apiKey ? 'invalid' : ''}`}
            type="password"
            autoComplete="off"
            value={d.apiKey}
            onChange={(e) => set('apiKey', e.target.value)}
            placeholder={d.isNew ? 'paste the key' : 'leave empty to keep the current key'}
            data-testid="api-key-input"
            {...inv('apiKey')}
          />
        </Field>
        <Field id="maxTokens" label="Max output tokens" error={errors.maxTokens}>
          <input className={`input ${errors.maxTokens ? 'invalid' : ''}`} inputMode="numeric" value={d.maxTokens} onChange={(e) => set('maxTokens', e.target.value)} {...inv('maxTokens')} />
        </Field>
        <Field id="contextWindow" label="Context window (tokens)" error={errors.contextWindow}>
          <input className={`input ${errors.contextWindow ? 'invalid' : ''}`} inputMode="numeric" value={d.contextWindow} onChange={(e) => set('contextWindow', e.target.value)} {...inv('contextWindow')} />
        </Field>
        <fieldset className="field wide prices">
          <legend>Prices, USD per million tokens</legend>
          {PRICE_KEYS.map((k) => (
            <div key={k} className={`price ${errors[`prices.${k}`] ? 'has-error' : ''}`}>
              <label className="small muted" htmlFor={`pf-prices.${k}`}>
                {PRICE_LABEL[k]}
              </label>
              <input className={`input ${errors[`prices.${k}`] ? 'invalid' : ''}`} inputMode="decimal" value={d.prices[k]} onChange={(e) => price(k, e.target.value)} {...inv(`prices.${k}`)} />
              {errors[`prices.${k}`] && (
                <p className="field-help error" id={`pf-prices.${k}-error`}>
                  {errors[`prices.${k}`]}
                </p>
              )}
            </div>
          ))}
        </fieldset>
        <label className="checkbox wide">
          <input type="checkbox" checked={d.makeDefault} disabled={d.wasDefault} onChange={(e) => set('makeDefault', e.target.checked)} data-testid="make-default" />{' '}
          {d.wasDefault ? 'Used for new sessions (pick another provider to change that)' : 'Use for new sessions'}
        </label>
      </form>
    </Modal>
  );
}

export function ProvidersPanel() {
  const profiles = useAppStore((s) => s.profiles);
  const remove = useAppStore((s) => s.removeProfile);
  const [editing, setEditing] = useState<ProfileDraft | null>(null);
  const [removing, setRemoving] = useState<ProviderProfile | null>(null);
  return (
    <div className="panel" data-testid="providers-panel">
      <div className="panel-head">
        <h3>Model providers</h3>
        <button className="button" onClick={() => setEditing(NEW_DRAFT)} data-testid="add-provider">
          <Icon name="plus" /> Add provider
        </button>
      </div>
      <p className="muted small">Any Anthropic-compatible endpoint works: Anthropic, GLM (Zhipu), MiniMax, DeepSeek or your own. Keys are stored encrypted or in a private file in the data folder and never shown again.</p>
      {/* A damaged key file is one problem for every profile: each distinct one is shown once. */}
      {[...new Set(profiles.flatMap((p) => (p.apiKeyProblem ? [p.apiKeyProblem] : [])))].map((problem) => (
        <p key={problem} className="card-problem" role="alert" data-testid="key-store-problem">
          {problem}
        </p>
      ))}
      <ul className="profile-rows">
        {profiles.map((p) => (
          <li key={p.name} className="profile-row" data-testid="profile-row" data-profile={p.name}>
            <div className="profile-main">
              <strong>{p.label}</strong>
              {p.isDefault && <span className="badge badge-ok">default</span>}
              <span className="mono small muted truncate">
                {p.model} · {p.baseUrl}
              </span>
            </div>
            <span className={`badge ${p.apiKeySet ? 'badge-ok' : p.apiKeySource === 'unreadable' ? 'badge-bad' : 'badge-warn'}`} data-testid="key-state" title={p.apiKeyProblem}>
              {p.apiKeySet ? (p.apiKeySource === 'env' ? 'key from environment' : 'key set') : p.apiKeySource === 'unreadable' ? 'key store unreadable' : 'no key'}
            </span>
            {/* A changed profile (key, URL, model) makes an old result a lie: the key remounts the button without it. */}
            <ConnectionTestButton key={`${p.preset}|${p.baseUrl}|${p.model}|${p.apiKeySource}|${p.apiKeySet}`} name={p.name} label={p.label} />
            <button className="button" onClick={() => setEditing(draftFromProfile(p))} aria-label={`Edit ${p.label}`}>
              Edit
            </button>
            {!p.builtIn && (
              <button className="icon-button danger" aria-label={`Remove ${p.label}`} onClick={() => setRemoving(p)}>
                <Icon name="trash" />
              </button>
            )}
          </li>
        ))}
        {profiles.length === 0 && <li className="muted">The agent engine is not available.</li>}
      </ul>
      {editing && <ProfileEditor initial={editing} onClose={() => setEditing(null)} />}
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.label}?`}
          confirmLabel="Remove provider"
          onCancel={() => setRemoving(null)}
          onConfirm={() => {
            const name = removing.name;
            setRemoving(null);
            void remove(name);
          }}
        >
          <p>
            The profile <code>{removing.name}</code> and its stored API key are deleted. Sessions using it need another provider.
          </p>
        </ConfirmDialog>
      )}
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
          {/* The header's names for the modes (one vocabulary with the session header and /permissions). */}
          {AgentMode.options.map((m) => (
            <option key={m} value={m}>
              {MODE_LABEL[m]}
            </option>
          ))}
        </select>
      </div>
      <SandboxNetworkSetting />
    </div>
  );
}
