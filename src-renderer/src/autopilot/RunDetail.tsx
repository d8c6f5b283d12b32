import { useEffect, useState } from 'react';
import type { AutopilotRun } from '../../../src-preload/contract';
import { useAppStore } from '../store';
import { shortPath, usd } from '../lib/format';
import { timeoutText } from '../../../src-preload/contract/units';
import { blockedNotes, runBadge } from './autopilot-model';
import { IterationTimeline } from './IterationTimeline';
import { PlanPanel } from './PlanPanel';
import { StateMachine } from './StateMachine';
import { unsentText } from '../lib/unsent-text';

function BlockedAnswer({ run, stepId, text, notes }: { run: AutopilotRun; stepId: string; text: string; notes: string[] }) {
  const answer = useAppStore((s) => s.answerAutopilotStep);
  const toastError = useAppStore((s) => s.toastError);
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="ap-blocked"
      data-testid="ap-blocked"
      data-step={stepId}
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        const sent = value;
        answer(run.id, stepId, sent)
          // Typed on while it was answered: that stays.
          .then(() => setValue((v) => unsentText(v, sent)))
          .catch((err: unknown) => toastError('Could not answer the blocked step', err))
          .finally(() => setBusy(false));
      }}
    >
      <h4>
        Blocked: <code className="ap-step-id">{stepId}</code> {text}
      </h4>
      {run.state.blockedStepId === stepId && run.state.exitDetail && <p data-testid="ap-blocked-reason">{run.state.exitDetail}</p>}
      {notes.length > 0 && (
        <ul className="ap-notes">
          {notes.map((n, i) => (
            <li key={i}>{n}</li>
          ))}
        </ul>
      )}
      <label className="field">
        <span>Your answer (written into Notes; the step goes back to Next and the run resumes)</span>
        <textarea className="input" rows={3} value={value} onChange={(e) => setValue(e.target.value)} required maxLength={4000} data-testid="ap-answer" />
      </label>
      <button type="submit" className="button primary" disabled={busy || !value.trim()} data-testid="ap-answer-submit">
        {busy ? 'Resuming…' : 'Answer and resume'}
      </button>
    </form>
  );
}

/** One run: goal and command, state machine, blocked steps, the live plan and the iteration timeline. */
export function RunDetail({ run }: { run: AutopilotRun }) {
  const detail = useAppStore((s) => s.autopilotDetails.get(run.id));
  const load = useAppStore((s) => s.loadAutopilotRun);
  const act = useAppStore((s) => s.autopilotAction);
  const toastError = useAppStore((s) => s.toastError);
  const [tab, setTab] = useState<'plan' | 'timeline'>('plan');
  useEffect(() => {
    load(run.id).catch((e: unknown) => toastError('Could not read the run', e));
  }, [run.id, load, toastError]);
  const badge = runBadge(run);
  const doAct = (a: 'pause' | 'resume' | 'cancel') => act(a, run.id).catch((e: unknown) => toastError(`Could not ${a} the run`, e));
  const stopped = run.status === 'stopped';
  const blocked = stopped && run.state.exitReason === 'blocked' ? (detail?.plan?.blocked ?? []) : [];
  return (
    <div className="ap-detail" data-testid="ap-detail" data-run={run.id}>
      <header className="ap-detail-header">
        <div>
          <h2 data-testid="ap-goal-title">{run.goal}</h2>
          <p className="muted small">
            Acceptance: <code className="mono" data-testid="ap-acceptance">{run.testCmd}</code> <span data-testid="ap-acceptance-timeout">(timeout {timeoutText(run.options.acceptanceTimeoutMs)})</span> · worktree <span className="mono">{shortPath(run.worktree)}</span> · branch{' '}
            <span className="mono">{run.branch}</span> · {run.options.executor === 'claude-code' ? 'Claude Code' : 'built-in agent'}
            {run.options.acceptanceUnsandboxed && (
              <>
                {' '}
                · <span className="badge badge-bad" title="The acceptance command runs on this machine with your own permissions" data-testid="ap-acceptance-unsandboxed">ACCEPTANCE UNSANDBOXED</span>
              </>
            )}
          </p>
        </div>
        <div className="view-actions">
          <span className={`badge ap-badge-${badge.tone}`} data-testid="ap-status">
            {badge.text}
          </span>
          <span className="muted small" data-testid="ap-iteration-count">
            iteration {run.state.iteration}/{run.state.limits.maxIters} · {usd(run.costUsd)}
          </span>
          {run.status === 'running' && (
            <button className="button" onClick={() => void doAct('pause')} data-testid="ap-pause">
              Pause
            </button>
          )}
          {run.status === 'paused' && (
            <button className="button primary" onClick={() => void doAct('resume')} data-testid="ap-resume">
              Resume
            </button>
          )}
          {!stopped && (
            <button className="button" onClick={() => void doAct('cancel')} data-testid="ap-cancel">
              Cancel
            </button>
          )}
        </div>
      </header>
      <StateMachine run={run} />
      {run.message && (
        <p className="banner" data-testid="ap-message">
          {run.message}
        </p>
      )}
      {stopped && run.state.exitReason !== 'blocked' && run.state.exitDetail && (
        <p className="banner" data-testid="ap-exit-detail">
          Stopped ({run.state.exitReason}): {run.state.exitDetail}
        </p>
      )}
      {blocked.map((s) => (
        <BlockedAnswer key={s.id} run={run} stepId={s.id} text={s.text} notes={detail?.plan ? blockedNotes(detail.plan.text, s.id) : []} />
      ))}
      <div className="segmented ap-tabs" role="tablist" aria-label="Run details">
        <button role="tab" aria-selected={tab === 'plan'} className={tab === 'plan' ? 'active' : ''} onClick={() => setTab('plan')} data-testid="ap-tab-plan">
          PLAN.md
        </button>
        <button role="tab" aria-selected={tab === 'timeline'} className={tab === 'timeline' ? 'active' : ''} onClick={() => setTab('timeline')} data-testid="ap-tab-timeline">
          Iterations {detail ? `(${detail.iterations.length})` : ''}
        </button>
      </div>
      {!detail ? <p className="muted">Loading…</p> : tab === 'plan' ? <PlanPanel plan={detail.plan} /> : <IterationTimeline iterations={detail.iterations} />}
    </div>
  );
}
