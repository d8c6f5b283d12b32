/**
 * The feature view's data, derived from what main reports: the state file's phases and the
 * run events of every run of the feature. Pure; unit-tested.
 */
import type { FeaturePhaseView, FeatureRunEvent, ReviewIssue, CheckOutcome, VerifyItem, Delivery, RunOutcome } from '../../../src-preload/contract';

export type ChipState = 'done' | 'running' | 'failed' | 'pending';

export interface PipelineChip {
  name: string;
  kind: 'dev' | 'quality' | 'pr';
  state: ChipState;
}

/** A feature run's pipeline: each phase, then the pull request step. */
export function pipelineChips(phases: readonly FeaturePhaseView[], delivery: Delivery | null, running: boolean, failedAtPr: boolean): PipelineChip[] {
  const chips: PipelineChip[] = phases.map((p) => ({
    name: p.name,
    kind: p.kind,
    state: p.status === 'completed' ? 'done' : p.status === 'running' ? (running ? 'running' : 'failed') : p.status === 'failed' ? 'failed' : 'pending',
  }));
  const allDone = phases.length > 0 && phases.every((p) => p.status === 'completed');
  chips.push({ name: 'PR', kind: 'pr', state: delivery ? 'done' : failedAtPr ? 'failed' : allDone && running ? 'running' : 'pending' });
  return chips;
}

export interface ReviewRoundView {
  runId: string;
  round: number;
  ts: number;
  parsed: boolean;
  issues: ReviewIssue[];
  /** critical + major: the ones that send the agent back to fix. */
  blocking: number;
}

export interface VerifyAttemptView {
  runId: string;
  attempt: number;
  ts: number;
  result: 'pass' | 'fail';
  agentResult: 'pass' | 'fail' | null;
  checks: CheckOutcome[];
  items: VerifyItem[];
}

export interface RunSummary {
  runId: string;
  startedAt: number | null;
  finishedAt: number | null;
  outcome: RunOutcome | null;
  message: string | null;
  delivery: Delivery | null;
  /** The phase index the run is in now (after PhaseStarting, before PhaseCompleted). */
  currentPhase: string | null;
  phaseStartedAt: number | null;
}

export interface FeatureHistory {
  rounds: ReviewRoundView[];
  attempts: VerifyAttemptView[];
  runs: RunSummary[];
  /** The latest delivery of any run (a PR, a pushed branch, or local completion). */
  delivery: Delivery | null;
  /** Phase start/end times from the events (state.yml has them too; events add review/verify marks). */
  marks: Array<{ ts: number; kind: 'review' | 'verify'; label: string; ok: boolean }>;
}

const BLOCKING = new Set(['critical', 'major']);

export function featureHistory(events: readonly FeatureRunEvent[]): FeatureHistory {
  const rounds: ReviewRoundView[] = [];
  const attempts: VerifyAttemptView[] = [];
  const runs = new Map<string, RunSummary>();
  const marks: FeatureHistory['marks'] = [];
  let delivery: Delivery | null = null;
  const sorted = [...events].sort((a, b) => a.ts - b.ts || (a.runId === b.runId ? a.seq - b.seq : 0));
  for (const e of sorted) {
    let run = runs.get(e.runId);
    if (!run) {
      run = { runId: e.runId, startedAt: null, finishedAt: null, outcome: null, message: null, delivery: null, currentPhase: null, phaseStartedAt: null };
      runs.set(e.runId, run);
    }
    const d = e.data;
    switch (d.type) {
      case 'RunStarting':
        run.startedAt = e.ts;
        break;
      case 'PhaseStarting':
        run.currentPhase = d.name;
        run.phaseStartedAt = e.ts;
        break;
      case 'PhaseCompleted':
        if (run.currentPhase === d.name) {
          run.currentPhase = null;
          run.phaseStartedAt = null;
        }
        break;
      case 'ReviewRound': {
        const blocking = d.issues.filter((i) => BLOCKING.has(i.severity)).length;
        rounds.push({ runId: e.runId, round: d.round, ts: e.ts, parsed: d.parsed, issues: d.issues, blocking });
        marks.push({ ts: e.ts, kind: 'review', label: `Review round ${d.round}: ${d.parsed ? `${d.issues.length} issue${d.issues.length === 1 ? '' : 's'}` : 'unreadable answer'}`, ok: d.parsed && blocking === 0 });
        break;
      }
      case 'VerifyAttempt':
        attempts.push({ runId: e.runId, attempt: d.attempt, ts: e.ts, result: d.result, agentResult: d.agentResult, checks: d.checks, items: d.items });
        marks.push({ ts: e.ts, kind: 'verify', label: `Verify attempt ${d.attempt}: ${d.result}`, ok: d.result === 'pass' });
        break;
      case 'PrCreated':
        run.delivery = d.delivery;
        delivery = d.delivery;
        break;
      case 'RunFinished':
        run.finishedAt = e.ts;
        run.outcome = d.outcome;
        run.message = d.message;
        run.currentPhase = null;
        run.phaseStartedAt = null;
        if (d.delivery) {
          run.delivery = d.delivery;
          delivery = d.delivery;
        }
        break;
      default:
        break;
    }
  }
  return { rounds, attempts, runs: [...runs.values()], delivery, marks };
}

/** `more` added to `known`, each event once (a run's stored events and its live ones overlap). */
export function mergeEvents(known: readonly FeatureRunEvent[], more: readonly FeatureRunEvent[]): FeatureRunEvent[] {
  const seen = new Set(known.map((e) => `${e.runId}#${e.seq}`));
  const added = more.filter((e) => !seen.has(`${e.runId}#${e.seq}`) && seen.add(`${e.runId}#${e.seq}`));
  return added.length === 0 ? (known as FeatureRunEvent[]) : [...known, ...added];
}

/** Where the feature's work went: what its runs reported, else the pull request its state file records. */
export function deliveryOf(history: Pick<FeatureHistory, 'delivery'>, pr: { url: string; number: number; title: string } | null): Delivery | null {
  return history.delivery ?? (pr ? { kind: 'pr', url: pr.url, number: pr.number, title: pr.title } : null);
}

export interface TimelineRow {
  name: string;
  status: FeaturePhaseView['status'];
  /** Seconds from the feature's first phase start. */
  offset: number;
  duration: number;
  costUsd: number;
  cumulativeUsd: number;
  turns: number;
}

/**
 * Bars for the phase timeline: each phase that started, placed by its start time relative to
 * the first one, with its cost and the cumulative cost. A phase still running ends at `now`.
 */
export function timelineRows(phases: readonly FeaturePhaseView[], now: number): { rows: TimelineRow[]; origin: number | null } {
  const starts = phases.flatMap((p) => (p.started_at ? [Date.parse(p.started_at)] : []));
  if (starts.length === 0) return { rows: [], origin: null };
  const origin = Math.min(...starts);
  let cumulative = 0;
  const rows: TimelineRow[] = [];
  for (const p of phases) {
    if (!p.started_at) continue;
    const start = Date.parse(p.started_at);
    const end = p.completed_at ? Date.parse(p.completed_at) : p.status === 'running' ? now : start + p.duration_secs * 1000;
    cumulative += p.cost_usd;
    rows.push({ name: p.name, status: p.status, offset: (start - origin) / 1000, duration: Math.max(0, (end - start) / 1000), costUsd: p.cost_usd, cumulativeUsd: cumulative, turns: p.turns });
  }
  return { rows, origin };
}

/** "1 h 02 min", "3 min 05 s", "12 s". */
export function duration(secs: number): string {
  const s = Math.round(secs);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

export interface ProjectTimelineRow {
  slug: string;
  status: string;
  /** Seconds from the project's first phase start. */
  offset: number;
  duration: number;
  costUsd: number;
  phases: number;
}

/**
 * One bar per feature that has started: from its first phase's start to its last phase's end
 * (now while one runs), placed against the project's first start, with the feature's cost.
 */
export function projectTimelineRows(features: ReadonlyArray<{ slug: string; status: string; phases: ReadonlyArray<{ status: string; startedAt: string | null; completedAt: string | null; costUsd: number }> }>, now: number): ProjectTimelineRow[] {
  const spans = features.flatMap((f) => {
    const started = f.phases.filter((p) => p.startedAt);
    if (started.length === 0) return [];
    const start = Math.min(...started.map((p) => Date.parse(p.startedAt!)));
    const end = Math.max(...started.map((p) => (p.completedAt ? Date.parse(p.completedAt) : p.status === 'running' ? now : Date.parse(p.startedAt!))));
    return [{ f, start, end }];
  });
  if (spans.length === 0) return [];
  const origin = Math.min(...spans.map((s) => s.start));
  return spans
    .sort((a, b) => a.start - b.start)
    .map(({ f, start, end }) => ({ slug: f.slug, status: f.status, offset: (start - origin) / 1000, duration: Math.max(0, (end - start) / 1000), costUsd: f.phases.reduce((a, p) => a + p.costUsd, 0), phases: f.phases.length }));
}
