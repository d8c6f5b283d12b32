import { Fragment, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { AutopilotIteration } from '../../../src-preload/contract';
import { usd } from '../lib/format';
import { duration } from './autopilot-model';

const COLOR = { passed: 'var(--ok, #1f8a4c)', failed: 'var(--bad, #c9372c)', pending: 'var(--text-muted, #868e96)' };

function outcome(i: AutopilotIteration): keyof typeof COLOR {
  if (!i.verification) return 'pending';
  return i.verification.passed ? 'passed' : 'failed';
}

/** One row per iteration (step, files changed, verification, cost, duration), a chart of durations, details on demand. */
export function IterationTimeline({ iterations }: { iterations: readonly AutopilotIteration[] }) {
  const [open, setOpen] = useState<number | null>(null);
  if (iterations.length === 0) return <p className="muted">No iteration has started yet.</p>;
  const rows = iterations.map((i) => ({ name: `#${i.iteration}`, seconds: i.durationMs / 1000, costUsd: i.costUsd, outcome: outcome(i) }));
  return (
    <div className="ap-timeline" data-testid="ap-timeline">
      <div className="chart" style={{ height: 160 }} data-testid="ap-timeline-chart">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={rows} margin={{ left: 4, right: 12, top: 8, bottom: 4 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="name" />
            <YAxis tickFormatter={(v: number) => `${v}s`} width={44} />
            <Tooltip formatter={(value, _name, item) => [`${duration(Number(value) * 1000)} · ${usd((item as { payload?: { costUsd: number } }).payload?.costUsd ?? 0)}`, 'iteration']} />
            <Bar dataKey="seconds" isAnimationActive={false}>
              {rows.map((r) => (
                <Cell key={r.name} fill={COLOR[r.outcome]} />
              ))}
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </div>
      <table className="ap-table">
        <thead>
          <tr>
            <th>#</th>
            <th>Step</th>
            <th>Files changed</th>
            <th>Verification</th>
            <th>Cost</th>
            <th>Duration</th>
          </tr>
        </thead>
        <tbody>
          {iterations.map((i) => {
            const o = outcome(i);
            const expanded = open === i.iteration;
            return (
              <Fragment key={i.iteration}>
                <tr className={`ap-row ${expanded ? 'open' : ''}`} data-testid="ap-iteration" data-iteration={i.iteration}>
                  <td>
                    <button className="link" onClick={() => setOpen(expanded ? null : i.iteration)} aria-expanded={expanded} aria-label={`Iteration ${i.iteration} details`}>
                      {i.iteration}
                    </button>
                  </td>
                  <td>{i.stepId ? <code className="ap-step-id">{i.stepId}</code> : <span className="muted">—</span>} {i.stepText}</td>
                  <td className="ap-files" title={i.filesChanged.join('\n')}>
                    {i.filesChanged.length === 0 ? <span className="muted">none</span> : i.filesChanged.join(', ')}
                  </td>
                  <td>
                    <span className={`badge ${o === 'passed' ? 'badge-ok' : o === 'failed' ? 'badge-bad' : ''}`} data-testid="ap-verification">
                      {o === 'pending' ? 'not run' : o === 'passed' ? 'passed' : `failed (exit ${i.verification?.exitCode ?? 'none'})`}
                    </span>
                  </td>
                  <td>{usd(i.costUsd)}</td>
                  <td>{i.endedAt === null ? <span className="muted">running</span> : duration(i.durationMs)}</td>
                </tr>
                {expanded && (
                  <tr className="ap-row-detail" data-testid="ap-iteration-detail">
                    <td colSpan={6}>
                      {i.notes.length > 0 && (
                        <ul className="ap-notes">
                          {i.notes.map((n, k) => (
                            <li key={k}>{n}</li>
                          ))}
                        </ul>
                      )}
                      {i.verification && <pre className="mono ap-output">{i.verification.summary || '(no output)'}</pre>}
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
