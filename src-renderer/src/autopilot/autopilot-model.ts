import type { AutopilotPhase, AutopilotRun } from '../../../src-preload/contract';

/** The six states and the end, in the order a run goes through them. */
export const PHASES: ReadonlyArray<{ phase: AutopilotPhase; short: string; label: string; does: string }> = [
  { phase: 'S0_BOOTSTRAP', short: 'S0', label: 'Bootstrap', does: 'writes a minimal PLAN.md when there is none' },
  { phase: 'S1_SNAPSHOT', short: 'S1', label: 'Snapshot', does: 'collects git status, diff stat, the plan and the test setup' },
  { phase: 'S2_PLAN_UPDATE', short: 'S2', label: 'Plan update', does: 'the agent updates PLAN.md only' },
  { phase: 'S3_EXECUTE_STEP', short: 'S3', label: 'Execute', does: 'the agent carries out the one Next step' },
  { phase: 'S4_VERIFY', short: 'S4', label: 'Verify', does: 'the acceptance command runs; its exit code decides' },
  { phase: 'S5_DECIDE', short: 'S5', label: 'Decide', does: 'done, next step, fix or re-plan, or Blocked' },
  { phase: 'STOPPED', short: '■', label: 'Stopped', does: 'the run ended' },
];

export type RunTone = 'ok' | 'bad' | 'warn' | 'running' | 'muted';

/** What the run's badge says, and its colour. */
export function runBadge(run: AutopilotRun): { text: string; tone: RunTone } {
  if (run.status === 'running') return { text: 'Running', tone: 'running' };
  if (run.status === 'paused') return { text: 'Paused', tone: 'warn' };
  switch (run.state.exitReason) {
    case 'done':
      return { text: 'Done', tone: 'ok' };
    case 'blocked':
      return { text: 'Blocked', tone: 'warn' };
    case 'max_iters':
      return { text: 'Iteration limit', tone: 'bad' };
    case 'plan_invalid':
      return { text: 'Plan invalid', tone: 'bad' };
    case 'cancelled':
      return { text: 'Cancelled', tone: 'muted' };
    default:
      return { text: 'Error', tone: 'bad' };
  }
}

/** "1 min 5 s" / "850 ms" for timeline durations. */
export function duration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return `${m} min${s % 60 ? ` ${s % 60} s` : ''}`;
}

/** The Notes lines about one blocked step (its reason and what a human must decide). */
export function blockedNotes(planText: string, stepId: string): string[] {
  return planText
    .split(/\r?\n/)
    .filter((l) => l.includes(`STEP_ID=${stepId}`) && /BLOCKED|ANSWER/.test(l))
    .map((l) => l.replace(/^\s*[-*+]\s+/, ''));
}
