import { useEffect } from 'react';
import { useAppStore, useClient } from '../store';
import { usd } from '../lib/format';
import { runBadge } from './autopilot-model';
import './autopilot.css';

/** Runs that are not finished, beside the features on the board; each opens its Autopilot page. */
export function BoardRuns() {
  const client = useClient();
  const runs = useAppStore((s) => s.autopilotRuns);
  const load = useAppStore((s) => s.loadAutopilotRuns);
  const apply = useAppStore((s) => s.applyAutopilotChange);
  const setView = useAppStore((s) => s.setView);
  useEffect(() => {
    void load();
    return client.on('autopilot.changed', ({ run, iteration }) => apply(run, iteration));
  }, [client, load, apply]);
  // Running, paused and blocked runs need attention; finished ones stay on the Autopilot page.
  const shown = runs.filter((r) => r.status !== 'stopped' || r.state.exitReason === 'blocked');
  if (shown.length === 0) return null;
  return (
    <section className="ap-board" data-testid="board-autopilot" aria-label="Autopilot runs">
      <h2 className="board-projects-heading">Autopilot runs</h2>
      <div className="ap-board-list">
        {shown.map((r) => {
          const b = runBadge(r);
          return (
            <button key={r.id} className="ap-run-item" onClick={() => setView({ name: 'autopilot', runId: r.id })} data-testid="board-autopilot-run" data-run={r.id}>
              <span className="truncate ap-run-goal">{r.goal}</span>
              <span className="ap-run-meta">
                <span className={`badge ap-badge-${b.tone}`}>{b.text}</span>
                <span className="muted small">
                  {r.state.phase === 'STOPPED' ? '' : `${r.state.phase} · `}iteration {r.state.iteration}/{r.state.limits.maxIters} · {usd(r.costUsd)}
                </span>
              </span>
            </button>
          );
        })}
      </div>
    </section>
  );
}
