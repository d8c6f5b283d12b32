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

export interface PhaseFigure {
  name: string;
  kind: FeaturePhaseView['kind'];
  status: FeaturePhaseView['status'];
  /** Epoch ms, null for a phase that has not started. */
  startedAt: number | null;
  turns: number;
  costUsd: number;
  /** The time the phase's agent worked (state.yml's duration_secs); a phase running now counts to `now`. */
  durationSecs: number;
  cumulativeUsd: number;
  inputTokens: number;
  outputTokens: number;
}

export interface PhaseFigures {
  rows: PhaseFigure[];
  /** The sum of the rows: what the phase table's total and the timeline's last cumulative cost show. */
  total: { turns: number; costUsd: number; durationSecs: number; inputTokens: number; outputTokens: number };
}

/**
 * Each phase's turns, cost and duration, and their totals — the one source of the phase table
 * and the timeline, so the two agree (the table showed the state file's total and each phase's
 * recorded duration, the timeline a bar from start to completion, which counted waits the
 * duration does not, and ran a stopped run's phase on to now). A phase running in a live run
 * lasts at least until `now`.
 */
export function phaseFigures(phases: readonly FeaturePhaseView[], now: number, running: boolean): PhaseFigures {
  const total = { turns: 0, costUsd: 0, durationSecs: 0, inputTokens: 0, outputTokens: 0 };
  const rows = phases.map((p): PhaseFigure => {
    const startedAt = p.started_at ? Date.parse(p.started_at) : null;
    const live = p.status === 'running' && running && startedAt !== null && Number.isFinite(startedAt) ? Math.max(p.duration_secs, (now - startedAt) / 1000) : p.duration_secs;
    const durationSecs = Math.max(0, live);
    total.turns += p.turns;
    total.costUsd = Math.round((total.costUsd + p.cost_usd) * 1e6) / 1e6;
    total.durationSecs += durationSecs;
    total.inputTokens += p.cost.input_tokens;
    total.outputTokens += p.cost.output_tokens;
    return { name: p.name, kind: p.kind, status: p.status, startedAt: startedAt !== null && Number.isFinite(startedAt) ? startedAt : null, turns: p.turns, costUsd: p.cost_usd, durationSecs, cumulativeUsd: total.costUsd, inputTokens: p.cost.input_tokens, outputTokens: p.cost.output_tokens };
  });
  return { rows, total };
}

export interface TimelineRow {
  name: string;
  status: FeaturePhaseView['status'];
  /** Seconds from the feature's first phase start. */
  offset: number;
  /** The phase's duration, the same the phase table shows (see phaseFigures). */
  duration: number;
  costUsd: number;
  cumulativeUsd: number;
  turns: number;
}

/**
 * Bars for the phase timeline: each phase that started, placed by its start time relative to
 * the first one, as long as its duration, with its cost and the cumulative cost — the figures of
 * phaseFigures, so they agree with the phase table.
 */
export function timelineRows(phases: readonly FeaturePhaseView[], now: number, running = true): { rows: TimelineRow[]; origin: number | null } {
  const started = phaseFigures(phases, now, running).rows.filter((r) => r.startedAt !== null);
  if (started.length === 0) return { rows: [], origin: null };
  const origin = Math.min(...started.map((r) => r.startedAt!));
  const rows = started.map((r) => ({ name: r.name, status: r.status, offset: (r.startedAt! - origin) / 1000, duration: r.durationSecs, costUsd: r.costUsd, cumulativeUsd: r.cumulativeUsd, turns: r.turns }));
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
