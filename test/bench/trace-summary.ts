/**
 * What a Chromium trace of an idle page says the renderer spent its time on: per thread the
 * tasks run and their total time, and on the main thread the timeline events (timers, animation
 * frames, style, layout, paint, observers) and the script functions that ran, heaviest first.
 * Read from `browser.stopTracing()`'s JSON (the trace event format).
 */

interface TraceEvent {
  name: string;
  cat?: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  args?: { name?: string; data?: { functionName?: string; url?: string; lineNumber?: number; type?: string } };
}

export interface TraceSummary {
  /** Per thread of the renderer: tasks run and their time (ms). */
  threads: Record<string, { tasks: number; ms: number }>;
  /** Main thread timeline events by name (inclusive time: a Layout inside a TimerFire counts in both). */
  mainEvents: Array<{ name: string; count: number; ms: number }>;
  /** Script that ran on the main thread, by function and place. */
  functions: Array<{ fn: string; count: number; ms: number }>;
}

const round = (n: number) => Math.round(n * 10) / 10;

/** Threads are named by metadata events; several raster workers share a name up to their number. */
function threadNames(events: TraceEvent[], pid: number): Map<number, string> {
  const out = new Map<number, string>();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name' && e.pid === pid && e.args?.name) out.set(e.tid, e.args.name.replace(/\d+$/, ''));
  return out;
}

/** The heaviest rows of a tally. */
function heaviest(m: Map<string, { count: number; ms: number }>, n: number): Array<{ key: string; count: number; ms: number }> {
  return [...m.entries()]
    .map(([key, v]) => ({ key, count: v.count, ms: round(v.ms) }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, n);
}

/** Summarizes the renderer `pid`'s part of a trace; `limit` rows per list. */
export function summarizeTrace(json: string, pid: number, limit = 8): TraceSummary {
  const parsed = JSON.parse(json) as TraceEvent[] | { traceEvents: TraceEvent[] };
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const names = threadNames(events, pid);
  const mainTid = [...names.entries()].find(([, n]) => n === 'CrRendererMain')?.[0];
  const threads: TraceSummary['threads'] = {};
  const main = new Map<string, { count: number; ms: number }>();
  const fns = new Map<string, { count: number; ms: number }>();
  const add = (m: Map<string, { count: number; ms: number }>, k: string, ms: number) => {
    const row = m.get(k) ?? { count: 0, ms: 0 };
    row.count++;
    row.ms += ms;
    m.set(k, row);
  };
  for (const e of events) {
    if (e.pid !== pid || e.ph !== 'X') continue;
    const ms = (e.dur ?? 0) / 1000;
    if (e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask') {
      const t = names.get(e.tid) ?? `thread ${e.tid}`;
      const row = (threads[t] ??= { tasks: 0, ms: 0 });
      row.tasks++;
      row.ms += ms;
      continue;
    }
    if (e.tid !== mainTid || !e.cat?.includes('devtools.timeline')) continue;
    add(main, e.name, ms);
    const d = e.args?.data;
    if (e.name === 'FunctionCall' && d) add(fns, `${d.functionName || '(anonymous)'} ${(d.url ?? '').split('/').pop()}:${d.lineNumber ?? 0}`, ms);
  }
  for (const row of Object.values(threads)) row.ms = round(row.ms);
  return {
    threads,
    mainEvents: heaviest(main, limit).map(({ key, ...r }) => ({ name: key, ...r })),
    functions: heaviest(fns, limit).map(({ key, ...r }) => ({ fn: key, ...r })),
  };
}
