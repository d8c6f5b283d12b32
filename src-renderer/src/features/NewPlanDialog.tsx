import { useState, type FormEvent } from 'react';
import type { FeatureExecutor } from '../../../src-preload/contract/features';
import { Modal } from '../components/Modal';
import { useAppStore, useClient } from '../store';

/**
 * "Plan a feature": a slug and who plays the Planner. The slug rule is main's (the same as a
 * worktree's folder and branch), so its refusal is shown under the field word for word rather
 * than a second copy of the rule being checked here.
 */
export function NewPlanDialog({ projectId, onClose }: { projectId: string; onClose(): void }) {
  const client = useClient();
  const upsertDraft = useAppStore((s) => s.upsertDraft);
  const setView = useAppStore((s) => s.setView);
  const [slug, setSlug] = useState('');
  const [executor, setExecutor] = useState<FeatureExecutor>('builtin');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (slug.trim() === '' || busy) return;
    setBusy(true);
    setError(null);
    try {
      const { draft } = await client.invoke('features.plan.start', { projectId, slug: slug.trim(), executor });
      upsertDraft(draft);
      onClose();
      setView({ name: 'plan', draftId: draft.id, screen: 'chat' });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      title="Plan a feature"
      onClose={onClose}
      testId="new-plan-dialog"
      footer={
        <>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" form="new-plan-form" className="button primary" disabled={busy || slug.trim() === ''} data-testid="start-plan">
            {busy ? 'Starting…' : 'Start planning'}
          </button>
        </>
      }
    >
      <form id="new-plan-form" className="form" onSubmit={(e) => void submit(e)}>
        <label className="field">
          Feature slug
          <input
            className={`input mono ${error ? 'invalid' : ''}`}
            value={slug}
            onChange={(e) => {
              setSlug(e.target.value);
              setError(null);
            }}
            placeholder="add-user-auth"
            autoFocus
            spellCheck={false}
            aria-invalid={error !== null}
            aria-describedby="plan-slug-help"
            data-testid="plan-slug-input"
          />
          <span id="plan-slug-help" className={`field-help ${error ? 'error' : ''}`} role={error ? 'alert' : undefined} data-testid="plan-slug-help">
            {error ?? 'Names the worktree folder and the branch: lowercase letters and digits, single hyphens.'}
          </span>
        </label>
        <fieldset className="field plan-fieldset">
          <legend>Planner runs on</legend>
          <div className="segmented" role="radiogroup" aria-label="Planner runs on">
            {(['builtin', 'claude-code'] as const).map((x) => (
              <button type="button" key={x} role="radio" aria-checked={executor === x} className={executor === x ? 'active' : ''} onClick={() => setExecutor(x)}>
                {x === 'builtin' ? 'Built-in agent' : 'Claude Code'}
              </button>
            ))}
          </div>
        </fieldset>
        <p className="muted small">
          You chat with the Planner (it only reads the repository). When the design is clear, <code>/approve</code> writes the design spec and the
          verification plan for you to review; nothing is written to the repository before you approve.
        </p>
      </form>
    </Modal>
  );
}
