import { useEffect, useMemo, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ProjectTimelineFeature } from '../../../src-preload/contract/feature-review';
import { useAppStore, useClient } from '../store';
import { usd } from '../lib/format';
import { duration, projectTimelineRows } from './feature-model';
import { ProjectSpend } from './FeatureTimeline';

const STATUS_COLOR: Record<string, string> = {
  completed: 'var(--ok, #2f9e44)',
  merged: 'var(--ok, #2f9e44)',
  in_progress: 'var(--accent, #3b82f6)',
  failed: 'var(--bad, #e03131)',
  planned: 'var(--muted, #868e96)',
};

/** A project's features over time (one bar per feature, coloured by status) and its spend per day. */
export function ProjectTimeline({ projectId }: { projectId: string }) {
  const client = useClient();
  const setView = useAppStore((s) => s.setView);
  const [features, setFeatures] = useState<ProjectTimelineFeature[] | null>(null);
  // When the list was read: a running feature's bar ends there.
  const [readAt, setReadAt] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let alive = true;
    client.invoke('featureReview.projectTimeline', { projectId }).then(
      (r) => alive && (setFeatures(r.features), setReadAt(Date.now()), setError(null)),
      (e: unknown) => alive && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      alive = false;
    };
  }, [client, projectId, generation]);
  useEffect(() => client.on('features.changed', () => setGeneration((g) => g + 1)), [client]);
  const rows = useMemo(() => projectTimelineRows(features ?? [], readAt), [features, readAt]);
  return (
    <>
    <div className="panel" data-testid="project-timeline">
      <h3>Features over time</h3>
      {error && <p className="error small">{error}</p>}
      {features && rows.length === 0 && <p className="muted small">No feature has run yet.</p>}
      {rows.length > 0 && (
        <div className="chart" style={{ height: Math.max(120, rows.length * 32 + 50) }} data-testid="project-timeline-chart">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={rows} layout="vertical" margin={{ left: 8, right: 16, top: 8, bottom: 8 }}>
              <CartesianGrid strokeDasharray="3 3" horizontal={false} />
              <XAxis type="number" tickFormatter={(v: number) => duration(v)} />
              <YAxis type="category" dataKey="slug" width={140} />
              <Tooltip
                formatter={(value, name, item) => {
                  const row = (item as { payload?: (typeof rows)[number] }).payload;
                  if (name === 'offset') return [duration(Number(value)), 'started after'];
                  return [`${duration(Number(value))} · ${row ? usd(row.costUsd) : ''} · ${row?.status ?? ''}`, 'feature'];
                }}
              />
              <Bar dataKey="offset" stackId="t" fill="transparent" isAnimationActive={false} />
              <Bar
                dataKey="duration"
                stackId="t"
                isAnimationActive={false}
                cursor="pointer"
                onClick={(d: { payload?: { slug?: string } }) => d.payload?.slug && setView({ name: 'feature', projectId, slug: d.payload.slug })}
              >
                {rows.map((r) => (
                  <Cell key={r.slug} fill={STATUS_COLOR[r.status] ?? STATUS_COLOR.planned} />
                ))}
              </Bar>
            </BarChart>
          </ResponsiveContainer>
        </div>
      )}
    </div>
    <ProjectSpend projectId={projectId} />
    </>
  );
}
