import { describe, expect, it } from 'vitest';
import type { FeaturePhaseView, FeatureRunEvent } from '../../../../src-preload/contract';
import { deliveryOf, duration, featureHistory, mergeEvents, phaseFigures, pipelineChips, projectTimelineRows, timelineRows } from '../../../../src-renderer/src/feature-view/feature-model';

const phase = (name: string, status: FeaturePhaseView['status'], started: string | null, completed: string | null, cost = 0, kind: 'dev' | 'quality' = 'dev'): FeaturePhaseView => ({
  name,
  kind,
  status,
  started_at: started,
  completed_at: completed,
  turns: 2,
  cost_usd: cost,
  cost: { input_tokens: 10, output_tokens: 5 },
  duration_secs: started && completed ? (Date.parse(completed) - Date.parse(started)) / 1000 : 0,
});

let seq = 0;
const ev = (runId: string, ts: number, data: FeatureRunEvent['data']): FeatureRunEvent => ({ runId, projectPath: '/repo', slug: 'x', seq: ++seq, ts, data });

describe('pipelineChips', () => {
  it('marks done, running and pending phases and the PR step', () => {
    const chips = pipelineChips([phase('a', 'completed', 'x', 'y'), phase('review', 'running', 'x', null, 0, 'quality'), phase('verify', 'pending', null, null, 0, 'quality')], null, true, false);
    expect(chips.map((c) => [c.name, c.state])).toEqual([
      ['a', 'done'],
      ['review', 'running'],
      ['verify', 'pending'],
      ['PR', 'pending'],
    ]);
  });

  it('a phase left "running" by a run that is not running any more shows as stopped (failed), not spinning', () => {
    const chips = pipelineChips([phase('a', 'running', 'x', null)], null, false, false);
    expect(chips[0]!.state).toBe('failed');
  });

  it('PR is done once delivered, running while all phases are done and the run goes on, failed when the run failed there', () => {
    const done = [phase('a', 'completed', 'x', 'y')];
    expect(pipelineChips(done, { kind: 'local' }, false, false).at(-1)!.state).toBe('done');
    expect(pipelineChips(done, null, true, false).at(-1)!.state).toBe('running');
    expect(pipelineChips(done, null, false, true).at(-1)!.state).toBe('failed');
  });
});

describe('featureHistory', () => {
  it('collects review rounds with blocking counts, verify attempts, delivery and the current phase', () => {
    const h = featureHistory([
      ev('frun-aaaaaa', 1, { type: 'RunStarting', phases: [], startIndex: 0, executor: 'builtin', resumed: false }),
      ev('frun-aaaaaa', 2, { type: 'PhaseStarting', name: 'review', index: 1, resumed: false }),
      ev('frun-aaaaaa', 3, { type: 'ReviewRound', round: 1, parsed: true, issues: [{ severity: 'major', file: 'a.ts', description: 'bug' }, { severity: 'minor', file: 'b.ts', description: 'nit' }] }),
      ev('frun-aaaaaa', 4, { type: 'ReviewRound', round: 2, parsed: true, issues: [] }),
      ev('frun-aaaaaa', 5, { type: 'VerifyAttempt', attempt: 1, checks: [], agentResult: 'fail', items: [], result: 'fail' }),
    ]);
    expect(h.rounds.map((r) => [r.round, r.issues.length, r.blocking])).toEqual([
      [1, 2, 1],
      [2, 0, 0],
    ]);
    expect(h.attempts).toHaveLength(1);
    expect(h.runs[0]!.currentPhase).toBe('review');
    expect(h.marks.map((m) => [m.kind, m.ok])).toEqual([
      ['review', false],
      ['review', true],
      ['verify', false],
    ]);
    const finished = featureHistory([
      ev('frun-bbbbbb', 10, { type: 'PrCreated', url: null, delivery: { kind: 'compare', url: 'https://github.com/o/r/compare/main...feature/x?expand=1', remote: 'origin' } }),
      ev('frun-bbbbbb', 11, { type: 'RunFinished', success: true, outcome: 'completed', message: null, totals: { turns: 1, costUsd: 0, inputTokens: 0, outputTokens: 0, durationSecs: 1 }, delivery: null }),
    ]);
    expect(finished.delivery).toMatchObject({ kind: 'compare', remote: 'origin' });
    expect(finished.runs[0]).toMatchObject({ outcome: 'completed', currentPhase: null, finishedAt: 11 });
  });
});

describe('timelineRows', () => {
  it('places phases from the first start, adds cumulative cost, and runs a running phase to now', () => {
    const t0 = '2026-01-01T10:00:00Z';
    const { rows, origin } = timelineRows(
      [phase('a', 'completed', t0, '2026-01-01T10:01:00Z', 0.5), phase('b', 'running', '2026-01-01T10:01:30Z', null, 0.25), phase('verify', 'pending', null, null)],
      Date.parse('2026-01-01T10:02:30Z'),
    );
    expect(origin).toBe(Date.parse(t0));
    expect(rows.map((r) => [r.name, r.offset, r.duration, r.cumulativeUsd])).toEqual([
      ['a', 0, 60, 0.5],
      ['b', 90, 60, 0.75],
    ]);
  });

  it('no started phase: no rows', () => {
    expect(timelineRows([phase('a', 'pending', null, null)], 0)).toEqual({ rows: [], origin: null });
  });
});

describe('phaseFigures', () => {
  it('the phase table and the timeline show the same duration, cost and turns, and the total is their sum', () => {
    // The implement phase took 5 min of wall time but its agent worked 2 (it waited on an approval):
    // the table showed 2 min, the timeline a 5 min bar. Verify was left "running" by a stopped run:
    // the timeline ran it on to now, the table showed its recorded time.
    const implement = { ...phase('implement', 'completed', '2026-01-01T10:00:00Z', '2026-01-01T10:05:00Z', 0.4), duration_secs: 120, turns: 3 };
    const verify = { ...phase('verify', 'running', '2026-01-01T10:06:00Z', null, 0.1, 'quality'), duration_secs: 30, turns: 1 };
    const now = Date.parse('2026-01-01T11:00:00Z');
    const figures = phaseFigures([implement, verify, phase('pr', 'pending', null, null)], now, false);
    expect(figures.rows.map((r) => [r.name, r.durationSecs, r.costUsd, r.turns])).toEqual([
      ['implement', 120, 0.4, 3],
      ['verify', 30, 0.1, 1],
      ['pr', 0, 0, 2],
    ]);
    expect(figures.total).toEqual({ turns: 6, costUsd: 0.5, durationSecs: 150, inputTokens: 30, outputTokens: 15 });
    const { rows } = timelineRows([implement, verify, phase('pr', 'pending', null, null)], now, false);
    expect(rows.map((r) => [r.name, r.duration, r.costUsd, r.turns])).toEqual([
      ['implement', 120, 0.4, 3],
      ['verify', 30, 0.1, 1],
    ]);
    expect(rows.at(-1)!.cumulativeUsd).toBe(figures.total.costUsd);
  });

  it('a phase running in a live run counts to now in both', () => {
    const p = { ...phase('implement', 'running', '2026-01-01T10:00:00Z', null, 0.2), duration_secs: 10 };
    const now = Date.parse('2026-01-01T10:01:00Z');
    expect(phaseFigures([p], now, true).rows[0]!.durationSecs).toBe(60);
    expect(timelineRows([p], now, true).rows[0]!.duration).toBe(60);
  });
});

describe('duration', () => {
  it.each([
    [12, '12 s'],
    [185, '3 min 05 s'],
    [3720, '1 h 02 min'],
  ])('%d s → %s', (s, text) => expect(duration(s)).toBe(text));
});

describe('projectTimelineRows', () => {
  it('one bar per started feature, from its first start to its last end, ordered by start, with its cost', () => {
    const ph = (status: string, startedAt: string | null, completedAt: string | null, costUsd: number) => ({ status, startedAt, completedAt, costUsd });
    const rows = projectTimelineRows(
      [
        { slug: 'later', status: 'in_progress', phases: [ph('completed', '2026-01-01T10:10:00Z', '2026-01-01T10:11:00Z', 1), ph('running', '2026-01-01T10:11:00Z', null, 0.5)] },
        { slug: 'first', status: 'completed', phases: [ph('completed', '2026-01-01T10:00:00Z', '2026-01-01T10:05:00Z', 2)] },
        { slug: 'never', status: 'planned', phases: [ph('pending', null, null, 0)] },
      ],
      Date.parse('2026-01-01T10:12:00Z'),
    );
    expect(rows.map((r) => [r.slug, r.offset, r.duration, r.costUsd])).toEqual([
      ['first', 0, 300, 2],
      ['later', 600, 120, 1.5],
    ]);
  });
});

describe('mergeEvents and deliveryOf', () => {
  it('keeps each run event once, whether it came stored or live', () => {
    const a = ev('frun-cccccc', 1, { type: 'CreatingPr' });
    const b = ev('frun-cccccc', 2, { type: 'CreatingPr' });
    const merged = mergeEvents([a], [a, b, b]);
    expect(merged.map((e) => e.seq)).toEqual([a.seq, b.seq]);
    expect(mergeEvents(merged, [a])).toBe(merged);
  });

  it("prefers what the runs reported, else the state file's PR", () => {
    const pr = { url: 'https://github.com/o/r/pull/7', number: 7, title: 'Add sum' };
    expect(deliveryOf({ delivery: null }, pr)).toEqual({ kind: 'pr', ...pr });
    expect(deliveryOf({ delivery: { kind: 'local' } }, pr)).toEqual({ kind: 'local' });
    expect(deliveryOf({ delivery: null }, null)).toBeNull();
  });
});
