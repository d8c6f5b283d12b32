import { useEffect, useMemo, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Cell, ComposedChart, Line, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { FeaturePhaseView } from '../../../src-preload/contract';
import type { SpendDay } from '../../../src-preload/contract/feature-review';
import { useClient } from '../store';
import { usd } from '../lib/format';
import { duration, timelineRows, type FeatureHistory } from './feature-model';
import { usePageVisible } from '../lib/use-page-visible';

/** Outcome colours, the same the pipeline chips use (see feature-view.css). */
const STATUS_COLOR: Record<FeaturePhaseView['status'], string> = {
  completed: 'var(--ok, #2f9e44)',
  running: 'var(--accent, #3b82f6)',
  failed: 'var(--bad, #e03131)',
  pending: 'var(--muted, #868e96)',
};
const SPEND_DAYS = 30;

/**
 * The phases of one feature over time (a bar per phase from its start, coloured by outcome,
 * review and verify rounds marked), the cost of each phase with the cumulative cost, and the
 * project's spend per day.
 */
export function FeatureTimeline({ phases, marks, projectId, running }: { phases: readonly FeaturePhaseView[]; marks: FeatureHistory['marks']; projectId: string; running: boolean }) {
  const [now, setNow] = useState(() => Date.now());
  const visible = usePageVisible();
  useEffect(() => {
    if (!running || !visible) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 2_000);
    return () => clearInterval(t);
  }, [running, visible]);
  const { rows, origin } = useMemo(() => timelineRows(phases, now, running), [phases, now, running]);
  const markRows = origin === null ? [] : marks.map((m) => ({ ...m, at: (m.ts - origin) / 1000 }));
  return (
    <div className="feature-timeline" data-testid="feature-timeline">
      <div className="panel">
        <h3>Phases over time</h3>
        {rows.length === 0 ? (
          <p className="muted small">No phase has started yet.</p>
        ) : (
          <>
            <div className="chart" style={{ height: Math.max(120, rows.length * 36 + 50) }} data-testid="phase-chart">
              <ResponsiveContainer width="100%" height="100%">
                <BarChart data={rows} layout="vertical" margin={{ left: 8, right: 16, top: 18, bottom: 8 }}>
                  <CartesianGrid strokeDasharray="3 3" horizontal={false} />
                  <XAxis type="number" tickFormatter={(v: number) => duration(v)} />
                  <YAxis type="category" dataKey="name" width={110} />
                  <Tooltip
                    formatter={(value, name, item) => {
                      const row = (item as { payload?: (typeof rows)[number] }).payload;
                      if (name === 'offset') return [duration(Number(value)), 'started after'];
                      return [`${duration(Number(value))} · ${row ? usd(row.costUsd) : ''} · ${row?.turns ?? 0} turns · ${row?.status ?? ''}`, 'phase'];
                    }}
                  />
                  <Bar dataKey="offset" stackId="t" fill="transparent" isAnimationActive={false} />
                  <Bar dataKey="duration" stackId="t" isAnimationActive={false}>
                    {rows.map((r) => (
                      <Cell key={r.name} fill={STATUS_COLOR[r.status]} data-status={r.status} />
                    ))}
                  </Bar>
                  {markRows.map((m, i) => (
                    <ReferenceLine key={i} x={m.at} stroke={m.ok ? STATUS_COLOR.completed : STATUS_COLOR.failed} strokeDasharray="4 2" label={{ value: m.kind === 'review' ? 'R' : 'V', position: 'top', fontSize: 10 }} />
                  ))}
                </BarChart>
              </ResponsiveContainer>
            </div>
            {markRows.length > 0 && (
              <ul className="timeline-marks small" data-testid="timeline-marks">
                {markRows.map((m, i) => (
                  <li key={i} className={m.ok ? 'ok' : 'error'}>
                    {duration(m.at)}: {m.label}
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </div>
      <div className="panel">
        <h3>Cost per phase</h3>
        {rows.length === 0 ? (
          <p className="muted small">Nothing spent yet.</p>
        ) : (
          <div className="chart" style={{ height: 220 }} data-testid="cost-chart">
            <ResponsiveContainer width="100%" height="100%">
              <ComposedChart data={rows} margin={{ left: 8, right: 16, top: 8, bottom: 8 }}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                <XAxis dataKey="name" />
                <YAxis tickFormatter={(v: number) => usd(v)} width={70} />
                <Tooltip formatter={(v, name) => [usd(Number(v)), name === 'cumulativeUsd' ? 'cumulative' : 'phase']} />
                <Bar dataKey="costUsd" isAnimationActive={false}>
                  {rows.map((r) => (
                    <Cell key={r.name} fill={STATUS_COLOR[r.status]} />
                  ))}
                </Bar>
                <Line dataKey="cumulativeUsd" type="monotone" stroke="var(--text, #333)" dot isAnimationActive={false} />
              </ComposedChart>
            </ResponsiveContainer>
          </div>
        )}
      </div>
      <ProjectSpend projectId={projectId} />
    </div>
  );
}

/** The project's model spend per day over the last month (sessions, runs, everything). */
export function ProjectSpend({ projectId }: { projectId?: string }) {
  const client = useClient();
  const [days, setDays] = useState<SpendDay[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let alive = true;
    client.invoke('featureReview.spend', { days: SPEND_DAYS, tzOffsetMinutes: -new Date().getTimezoneOffset(), ...(projectId ? { projectId } : {}) }).then(
      (r) => alive && setDays(r.days),
      (e: unknown) => alive && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      alive = false;
    };
  }, [client, projectId]);
  const total = days?.reduce((a, d) => a + d.usd, 0) ?? 0;
  return (
    <div className="panel" data-testid="spend-chart">
      <h3>
        Spend per day{projectId ? ' in this project' : ''} <span className="muted small">(last {SPEND_DAYS} days: {usd(total)})</span>
      </h3>
      {error && <p className="error small">{error}</p>}
      {days && (
        <div className="chart" style={{ height: 180 }}>
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={days} margin={{ left: 8, right: 16, top: 8, bottom: 8 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="day" tickFormatter={(d: string) => d.slice(5)} minTickGap={16} />
              <YAxis tickFormatter={(v: number) => usd(v)} width={70} />
              <Tooltip formatter={(v) => [usd(Number(v)), 'spent']} />
              <Bar dataKey="usd" fill="var(--accent, #3b82f6)" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </div>
      )}
    </div>
  );
}
