import { useMemo, useRef, useState } from 'react';
import type { AgentMode } from '../../../src-preload/contract/agents';
import type { FeatureExecutor, PlanRevision } from '../../../src-preload/contract/features';
import { DiffView } from '../agents/DiffView';
import { Icon } from '../components/Icon';
import { Missing } from '../components/Missing';
import { plural } from '../lib/format';
import { useAppStore, useClient } from '../store';
import { DocPane, type Anchor } from './DocPane';
import { PhaseList } from './PhaseList';
import { PlanHeader } from './PlanHeader';
import { DOC_LABEL, revisionDiffs, toPlanComments, type DraftComment } from './plan-review';
import { specPhaseNames } from './spec-phases';
import { usePlanDraft, type PlanData } from './use-plan-draft';
import './features.css';

/** Modes a run can use: plan mode writes nothing, so a run in it could never finish a phase. */
const RUN_MODES: ReadonlyArray<{ value: AgentMode; label: string; hint: string }> = [
  { value: 'yolo', label: 'Unattended (YOLO)', hint: 'nothing asks: commands run in the sandbox; the hard floor and the Coder\'s guard still refuse' },
  { value: 'auto-edit', label: 'Auto-edit', hint: 'edits files without asking; other commands wait for you' },
  { value: 'default', label: 'Default', hint: 'writes and risky commands wait for you' },
];

/** A comment box grows with what is typed (up to its CSS max-height), so a long comment is read whole while written. */
function growToFit(el: HTMLTextAreaElement): void {
  el.style.height = 'auto';
  el.style.height = `${el.scrollHeight + el.offsetHeight - el.clientHeight}px`;
}

/**
 * The plan-approval screen: the design spec and the verification plan side by side, each
 * editable; the phases as an editable list; comments on passages or on the whole plan; and the
 * three answers — approve (with how the run will go), request changes, discard. A new revision
 * shows what changed since the one the user reviewed and must be approved on its own.
 */
export function PlanReviewView({ draftId }: { draftId: string }) {
  const { data, error, set } = usePlanDraft(draftId);
  if (!data) return error ? <Missing what="Plan" loaded verb="discarded" /> : <p className="muted center">Loading the plan…</p>;
  const { draft, current } = data;
  return (
    <div className="plan-screen plan-review" data-testid="plan-review">
      <PlanHeader draft={draft} screen="review" />
      {draft.status === 'generating' && (
        <div className="notice" role="status" data-testid="plan-generating">
          <Icon name="refresh" className="spin" /> The Planner is writing revision {(draft.revision ?? 0) + 1}. It appears here when it is ready.
        </div>
      )}
      {current ? (
        // A new revision starts a fresh review: edits and comments belonged to the old one.
        <RevisionReview key={current.number} data={data} revision={current} onAnswered={set} />
      ) : (
        <div className="empty-state">
          <h2>No plan written yet</h2>
          <p>Type /approve in the chat when the design is settled; the Planner then writes the design spec and the verification plan for review here.</p>
        </div>
      )}
    </div>
  );
}

function RevisionReview({ data, revision, onAnswered }: { data: PlanData; revision: PlanRevision; onAnswered(d: PlanData): void }) {
  const client = useClient();
  const { draft, previous } = data;
  const setView = useAppStore((s) => s.setView);
  const upsertDraft = useAppStore((s) => s.upsertDraft);
  const toast = useAppStore((s) => s.toast);
  const toastError = useAppStore((s) => s.toastError);
  const profiles = useAppStore((s) => s.profiles);
  const defaultProfile = profiles.find((p) => p.isDefault)?.name ?? null;

  const [design, setDesign] = useState(revision.designMd);
  const [verification, setVerification] = useState(revision.verificationMd);
  const [comments, setComments] = useState<DraftComment[]>([]);
  const nextId = useRef(1);
  const [executor, setExecutor] = useState<FeatureExecutor>(draft.executor);
  const [profile, setProfile] = useState<string | null>(null);
  const [model, setModel] = useState('');
  const [agentMode, setAgentMode] = useState<AgentMode>('yolo');
  const [busy, setBusy] = useState<null | 'approve' | 'changes'>(null);

  const stale = draft.revision !== null && draft.revision !== revision.number;
  const closed = draft.status !== 'review' || stale;
  // Against what the user saw: the previous revision with their own edits when they made some.
  const reviewed = revision.reviewed ?? previous;
  const diffs = useMemo(() => (reviewed ? revisionDiffs(reviewed, revision) : null), [reviewed, revision]);
  const phases = specPhaseNames(design);
  const toSend = toPlanComments(comments);

  const addComment = (anchor: Anchor | null) => {
    const id = `c${nextId.current++}`;
    setComments((cs) => [...cs, { id, anchor, text: '' }]);
    requestAnimationFrame(() => document.querySelector<HTMLTextAreaElement>(`[data-comment-id="${id}"] textarea`)?.focus());
  };

  const requestChanges = async () => {
    setBusy('changes');
    try {
      const r = await client.invoke('features.plan.requestChanges', {
        draftId: draft.id,
        revision: revision.number,
        comments: toSend,
        ...(design !== revision.designMd ? { designMd: design } : {}),
        ...(verification !== revision.verificationMd ? { verificationMd: verification } : {}),
      });
      upsertDraft(r.draft);
      toast({ level: 'info', title: `Revision ${r.revision.number} is ready`, message: 'It shows what changed since the one you reviewed.' });
      onAnswered({ draft: r.draft, current: r.revision, previous: revision });
    } catch (e) {
      toastError('Could not request changes', e);
    } finally {
      setBusy(null);
    }
  };

  const approve = async () => {
    setBusy('approve');
    try {
      const r = await client.invoke('features.plan.approve', {
        draftId: draft.id,
        revision: revision.number,
        designMd: design,
        verificationMd: verification,
        phases,
        executor,
        profile,
        model: model.trim() === '' ? null : model.trim(),
        agentMode,
      });
      upsertDraft(r.draft);
      toast({ level: 'success', title: `${r.feature.slug} is planned`, message: `Branch ${r.feature.branch}, ${plural(r.feature.phases.length, 'phase')}, commit ${r.feature.commit.slice(0, 8)}.` });
      setView({ name: 'board' });
    } catch (e) {
      toastError('Could not approve the plan', e);
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      {stale && (
        <div className="notice notice-warn" role="status">
          <Icon name="alert" size={16} /> A newer revision exists; this one can no longer be approved.
        </div>
      )}
      {diffs && revision.basedOn !== null && <RevisionChanges previousNumber={revision.basedOn} edited={revision.reviewed !== null} revision={revision} diffs={diffs} />}
      <div className="plan-docs">
        <DocPane kind="design" text={design} original={revision.designMd} onChange={setDesign} onComment={addComment} readOnly={closed} />
        <DocPane kind="verification" text={verification} original={revision.verificationMd} onChange={setVerification} onComment={addComment} readOnly={closed} />
      </div>
      <PhaseList spec={design} onChange={setDesign} readOnly={closed} />
      <div className="plan-answer">
        <section className="panel plan-comments" aria-label="Comments" data-testid="plan-comments">
          <div className="panel-head">
            <h3>Comments</h3>
            <button className="button" onClick={() => addComment(null)} disabled={closed} data-testid="comment-whole-plan">
              <Icon name="plus" /> On the whole plan
            </button>
          </div>
          {comments.length === 0 ? (
            <p className="muted small">Select a passage in either document and press Comment, or comment on the whole plan. Request changes sends them to the Planner, which writes the next revision.</p>
          ) : (
            <ul className="comment-list">
              {comments.map((c) => (
                <li key={c.id} className="comment" data-comment-id={c.id} data-testid="plan-comment">
                  <div className="comment-anchor small">
                    {c.anchor ? (
                      <>
                        <span className="muted">{DOC_LABEL[c.anchor.doc]}:</span>
                        <blockquote className="comment-quote" data-testid="comment-quote">
                          {c.anchor.quote}
                        </blockquote>
                      </>
                    ) : (
                      <span className="muted">On the whole plan</span>
                    )}
                    <button className="icon-button danger" aria-label="Remove this comment" onClick={() => setComments((cs) => cs.filter((x) => x.id !== c.id))}>
                      <Icon name="x" size={14} />
                    </button>
                  </div>
                  <textarea
                    className="input comment-text"
                    value={c.text}
                    onChange={(e) => {
                      growToFit(e.currentTarget);
                      setComments((cs) => cs.map((x) => (x.id === c.id ? { ...x, text: e.target.value } : x)));
                    }}
                    ref={(el) => {
                      if (el) growToFit(el);
                    }}
                    placeholder="What should change?"
                    aria-label={c.anchor ? `Comment on “${c.anchor.quote.slice(0, 60)}”` : 'Comment on the whole plan'}
                    rows={2}
                    data-testid="comment-text"
                  />
                </li>
              ))}
            </ul>
          )}
          <div className="plan-comment-actions">
            <button className="button" onClick={() => void requestChanges()} disabled={closed || busy !== null || toSend.length === 0} data-testid="request-changes">
              {busy === 'changes' ? <Icon name="refresh" className="spin" /> : <Icon name="chat" />} {busy === 'changes' ? 'The Planner is revising…' : `Request changes${toSend.length > 0 ? ` (${toSend.length})` : ''}`}
            </button>
          </div>
        </section>
        <section className="panel plan-approve" aria-label="Approve" data-testid="plan-approve">
          <h3>Approve and create the feature</h3>
          <p className="muted small">
            Creates the worktree and branch, writes both documents and state.yml with {plural(phases.length, 'development phase')} then review and verify, in one commit. The run
            uses:
          </p>
          <div className="approve-grid">
            <span className="approve-label">Executor</span>
            <div className="segmented small" role="radiogroup" aria-label="Executor">
              {(['builtin', 'claude-code'] as const).map((x) => (
                <button key={x} role="radio" aria-checked={executor === x} className={executor === x ? 'active' : ''} onClick={() => setExecutor(x)} data-testid={`executor-${x}`}>
                  {x === 'builtin' ? 'Built-in agent' : 'Claude Code'}
                </button>
              ))}
            </div>
            <label className="approve-label" htmlFor="approve-profile">
              Profile
            </label>
            <select id="approve-profile" className="input" value={profile ?? ''} onChange={(e) => setProfile(e.target.value === '' ? null : e.target.value)} data-testid="approve-profile">
              <option value="">Default{defaultProfile ? ` (${defaultProfile})` : ''}</option>
              {profiles.map((p) => (
                <option key={p.name} value={p.name}>
                  {p.label} — {p.model}
                </option>
              ))}
            </select>
            <label className="approve-label" htmlFor="approve-model">
              Model
            </label>
            <input id="approve-model" className="input mono" value={model} onChange={(e) => setModel(e.target.value)} placeholder="the profile's model" data-testid="approve-model" />
            <label className="approve-label" htmlFor="approve-mode">
              Agent mode
            </label>
            <select id="approve-mode" className="input" value={agentMode} onChange={(e) => setAgentMode(e.target.value as AgentMode)} data-testid="approve-mode">
              {RUN_MODES.map((m) => (
                <option key={m.value} value={m.value}>
                  {m.label} — {m.hint}
                </option>
              ))}
            </select>
            <p className="muted approve-mode-note" data-testid="approve-mode-note">
              {agentMode === 'yolo'
                ? 'The run works unattended: no command waits for an answer. It stays inside the sandbox (the worktree), the hard floor and the Coder\'s guard.'
                : 'The run stops and waits for you at each command this mode asks about; a headless run (feature run without --approve allow) exits there.'}
            </p>
          </div>
          <button
            className="button primary large"
            onClick={() => void approve()}
            // A run needs at least one development phase: the host refuses a plan without, so the button says so first.
            disabled={closed || busy !== null || phases.length === 0}
            aria-describedby={phases.length === 0 ? 'approve-needs-phases' : undefined}
            data-testid="approve-plan"
          >
            {busy === 'approve' ? <Icon name="refresh" className="spin" /> : <Icon name="check" />} {busy === 'approve' ? 'Creating the feature…' : `Approve revision ${revision.number}`}
          </button>
          {phases.length === 0 && (
            <p id="approve-needs-phases" className="field-help error">
              Add at least one development phase before approving (in the list above, or by asking the Planner).
            </p>
          )}
          {comments.length > 0 && <p className="muted small">Your comments are not sent with an approval; use Request changes for them.</p>}
        </section>
      </div>
    </>
  );
}

/** What this revision changed in each document since the one the user reviewed, and the comments that asked for it. */
function RevisionChanges({ previousNumber, edited, revision, diffs }: { previousNumber: number; edited: boolean; revision: PlanRevision; diffs: ReturnType<typeof revisionDiffs> }) {
  const [open, setOpen] = useState(true);
  const changed = diffs.filter((d) => d.patch !== '');
  return (
    <section className="panel revision-changes" data-testid="revision-changes">
      <button className="panel-head link revision-toggle" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        <h3>
          Changes since revision {previousNumber}, the one you reviewed{edited ? ' (with your edits)' : ''}
        </h3>
        <span className="muted small">
          {changed.length === 0 ? 'no change to either document' : changed.map((d) => `${DOC_LABEL[d.doc]} +${d.added} −${d.removed}`).join(' · ')}
        </span>
      </button>
      {open && (
        <>
          {revision.comments.length > 0 && (
            <div className="revision-asked">
              <p className="muted small">You asked for:</p>
              <ul className="small">
                {revision.comments.map((c, i) => (
                  <li key={i}>
                    {c.anchor && <q className="muted">{c.anchor.quote.length > 80 ? `${c.anchor.quote.slice(0, 80)}…` : c.anchor.quote}</q>} {c.text}
                  </li>
                ))}
              </ul>
            </div>
          )}
          {changed.map((d) => (
            <div key={d.doc} className="revision-diff">
              <p className="small">{DOC_LABEL[d.doc]}</p>
              <DiffView diff={d.patch} testId={`revision-diff-${d.doc}`} />
            </div>
          ))}
        </>
      )}
    </section>
  );
}
