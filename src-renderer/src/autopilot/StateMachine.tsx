import type { AutopilotRun } from '../../../src-preload/contract';
import { PHASES } from './autopilot-model';

/** The six states in a row, the run's current one lit. */
export function StateMachine({ run }: { run: AutopilotRun }) {
  const current = run.state.phase;
  return (
    <ol className="ap-fsm" aria-label="Run states" data-testid="ap-fsm">
      {PHASES.map((p) => {
        const on = p.phase === current;
        return (
          <li key={p.phase} className={`ap-fsm-state ${on ? `on ${run.status}` : ''}`} aria-current={on ? 'step' : undefined} data-phase={p.phase} title={`${p.label}: ${p.does}`}>
            <span className="ap-fsm-short">{p.short}</span>
            <span className="ap-fsm-label">{p.label}</span>
          </li>
        );
      })}
    </ol>
  );
}
