import { useState } from 'react';
import type { PlanDraft, PlanDraftStatus } from '../../../src-preload/contract/features';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Icon } from '../components/Icon';
import { useAppStore, useClient } from '../store';

export const DRAFT_STATUS_LABEL: Record<PlanDraftStatus, string> = {
  discussing: 'Discussing',
  generating: 'Writing the plan…',
  review: 'Waiting for your review',
  approved: 'Approved',
  discarded: 'Discarded',
};

/**
 * The bar above a plan's chat and its approval screen: which feature of which project, where
 * the plan stands, the way between the two screens, and Discard (asked first).
 */
export function PlanHeader({ draft, screen }: { draft: PlanDraft; screen: 'chat' | 'review' }) {
  const client = useClient();
  const project = useAppStore((s) => s.projects.find((p) => p.id === draft.projectId));
  const setView = useAppStore((s) => s.setView);
  const upsertDraft = useAppStore((s) => s.upsertDraft);
  const toast = useAppStore((s) => s.toast);
  const toastError = useAppStore((s) => s.toastError);
  const [confirming, setConfirming] = useState(false);
  const closed = draft.status === 'approved' || draft.status === 'discarded';

  const discard = async () => {
    setConfirming(false);
    try {
      const r = await client.invoke('features.plan.discard', { draftId: draft.id });
      upsertDraft(r.draft);
      toast({ level: 'info', title: `Discarded the plan for ${draft.slug}`, message: 'Nothing was written to the repository.' });
      setView(project ? { name: 'project', projectId: project.id } : { name: 'board' });
    } catch (e) {
      toastError('Could not discard the plan', e);
    }
  };

  return (
    <header className="plan-header" data-testid="plan-header">
      <div className="plan-title">
        <Icon name="layers" />
        <h1 className="truncate">
          <span className="muted">Plan:</span> <span className="mono">{draft.slug}</span>
        </h1>
        <span className={`badge ${draft.status === 'review' ? 'badge-warn' : draft.status === 'approved' ? 'badge-ok' : draft.status === 'discarded' ? 'badge-bad' : ''}`} data-testid="plan-status">
          {draft.status === 'generating' && <Icon name="refresh" size={12} className="spin" />}
          {DRAFT_STATUS_LABEL[draft.status]}
        </span>
        {draft.revision !== null && (
          <span className="badge" data-testid="plan-revision">
            revision {draft.revision}
          </span>
        )}
      </div>
      <div className="plan-nav">
        {project && (
          <button className="link muted small" onClick={() => setView({ name: 'project', projectId: project.id })}>
            {project.name}
          </button>
        )}
        <div className="segmented small" role="tablist" aria-label="Plan screens">
          <button role="tab" aria-selected={screen === 'chat'} className={screen === 'chat' ? 'active' : ''} onClick={() => setView({ name: 'plan', draftId: draft.id, screen: 'chat' })} data-testid="plan-tab-chat">
            Chat
          </button>
          <button
            role="tab"
            aria-selected={screen === 'review'}
            className={screen === 'review' ? 'active' : ''}
            disabled={draft.revision === null}
            title={draft.revision === null ? 'Type /approve in the chat to have the plan written first' : undefined}
            onClick={() => setView({ name: 'plan', draftId: draft.id, screen: 'review' })}
            data-testid="plan-tab-review"
          >
            Review the plan
          </button>
        </div>
        {!closed && (
          <button className="button" onClick={() => setConfirming(true)} data-testid="plan-discard">
            <Icon name="trash" /> Discard
          </button>
        )}
      </div>
      {draft.error && (
        <p className="card-problem" role="alert" data-testid="plan-error">
          <Icon name="alert" size={14} /> {draft.error}
        </p>
      )}
      {confirming && (
        <ConfirmDialog title={`Discard the plan for ${draft.slug}?`} confirmLabel="Discard the plan" onConfirm={() => void discard()} onCancel={() => setConfirming(false)}>
          <p>The chat and every revision of this plan are dropped. Nothing was written to the repository, so there is nothing to clean up there.</p>
        </ConfirmDialog>
      )}
    </header>
  );
}
