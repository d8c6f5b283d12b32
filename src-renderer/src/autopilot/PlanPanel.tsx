import { useState } from 'react';
import type { AutopilotPlanView, AutopilotStep } from '../../../src-preload/contract';

function Steps({ title, steps, kind, testId }: { title: string; steps: readonly AutopilotStep[]; kind: 'next' | 'backlog' | 'done' | 'blocked'; testId: string }) {
  return (
    <div className={`ap-plan-section ap-plan-${kind}`} data-testid={testId}>
      <h4>
        {title} <span className="muted small">{steps.length}</span>
      </h4>
      {steps.length === 0 ? (
        <p className="muted small">—</p>
      ) : (
        <ul>
          {steps.map((s) => (
            <li key={s.id} data-step={s.id}>
              <span className="ap-check" aria-hidden="true">
                {kind === 'done' ? '☑' : kind === 'blocked' ? '⊘' : '☐'}
              </span>
              <code className="ap-step-id">{s.id}</code> {s.text}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The worktree's PLAN.md as the runner reads it: Next, Backlog, Done, Blocked; the raw text on demand. */
export function PlanPanel({ plan }: { plan: AutopilotPlanView | null }) {
  const [raw, setRaw] = useState(false);
  if (!plan) return <p className="muted">The run has no PLAN.md yet.</p>;
  return (
    <div className="ap-plan" data-testid="ap-plan">
      {plan.problems.length > 0 && (
        <div className="banner banner-error" role="alert" data-testid="ap-plan-problems">
          <strong>PLAN.md does not validate</strong> — the next plan update is asked to repair:
          <ul>
            {plan.problems.map((p, i) => (
              <li key={i}>
                line {p.line}: {p.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      <div className="ap-plan-grid">
        <Steps title="Next" steps={plan.next ? [plan.next] : []} kind="next" testId="ap-plan-next" />
        <Steps title="Backlog" steps={plan.backlog} kind="backlog" testId="ap-plan-backlog" />
        <Steps title="Done" steps={plan.done} kind="done" testId="ap-plan-done" />
        <Steps title="Blocked" steps={plan.blocked} kind="blocked" testId="ap-plan-blocked" />
      </div>
      <button className="button small" onClick={() => setRaw(!raw)} aria-expanded={raw}>
        {raw ? 'Hide PLAN.md' : 'Show PLAN.md'}
      </button>
      {raw && (
        <pre className="ap-plan-raw mono" data-testid="ap-plan-raw">
          {plan.text}
        </pre>
      )}
    </div>
  );
}
