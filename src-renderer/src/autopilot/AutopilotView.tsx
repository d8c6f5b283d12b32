import { useEffect, useState } from 'react';
import { useAppStore, useClient } from '../store';
import { relativeTime, usd } from '../lib/format';
import { runBadge } from './autopilot-model';
import { NewRunForm } from './NewRunForm';
import { RunDetail } from './RunDetail';
import './autopilot.css';

/** The autopilot: runs listed on the left, the open one on the right, and the form to start one. */
export function AutopilotView({ runId }: { runId?: string }) {
  const client = useClient();
  const runs = useAppStore((s) => s.autopilotRuns);
  const loaded = useAppStore((s) => s.autopilotLoaded);
  const error = useAppStore((s) => s.autopilotError);
  const load = useAppStore((s) => s.loadAutopilotRuns);
  const apply = useAppStore((s) => s.applyAutopilotChange);
  const setView = useAppStore((s) => s.setView);
  const [creating, setCreating] = useState(false);

  useEffect(() => {
    void load();
    return client.on('autopilot.changed', ({ run, iteration }) => apply(run, iteration));
  }, [client, load, apply]);

  const open = runs.find((r) => r.id === runId) ?? null;
  const select = (id: string) => setView({ name: 'autopilot', runId: id });
  return (
    <section className="view ap-view" data-testid="autopilot-view">
      <header className="view-header">
        <div>
          <h1>Autopilot</h1>
          <p className="muted">Give a goal and an acceptance command; the agent plans, carries out one step at a time and verifies in a worktree until the command passes with nothing left to do.</p>
        </div>
        <div className="view-actions">
          <button className="button primary" onClick={() => setCreating(true)} data-testid="ap-new">
            New run
          </button>
        </div>
      </header>
      {creating && (
        <NewRunForm
          onCancel={() => setCreating(false)}
          onStarted={(run) => {
            setCreating(false);
            select(run.id);
          }}
        />
      )}
      <div className="ap-layout">
        <nav className="ap-runs" aria-label="Autopilot runs" data-testid="ap-runs">
          {error && <p className="card-problem">{error}</p>}
          {loaded && runs.length === 0 && !error && <p className="muted small">No runs yet.</p>}
          {runs.map((r) => {
            const b = runBadge(r);
            return (
              <button key={r.id} className={`ap-run-item ${r.id === runId ? 'active' : ''}`} onClick={() => select(r.id)} data-testid="ap-run" data-run={r.id} aria-current={r.id === runId ? 'page' : undefined}>
                <span className="truncate ap-run-goal">{r.goal}</span>
                <span className="ap-run-meta">
                  <span className={`badge ap-badge-${b.tone}`}>{b.text}</span>
                  <span className="muted small">
                    {r.state.iteration}/{r.state.limits.maxIters} · {usd(r.costUsd)} · {relativeTime(r.createdAt)}
                  </span>
                </span>
              </button>
            );
          })}
        </nav>
        <div className="ap-main">{open ? <RunDetail key={open.id} run={open} /> : <p className="muted">{runs.length ? 'Pick a run to see its plan and iterations.' : 'Start a run to see it here.'}</p>}</div>
      </div>
    </section>
  );
}
