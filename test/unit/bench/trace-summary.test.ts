import { describe, expect, it } from 'vitest';
import { summarizeTrace } from '../../bench/trace-summary';

const PID = 7;
const meta = (tid: number, name: string, pid = PID) => ({ name: 'thread_name', ph: 'M', pid, tid, ts: 0, args: { name } });
const task = (tid: number, ts: number, dur: number, pid = PID) => ({ name: 'ThreadControllerImpl::RunTask', cat: 'toplevel', ph: 'X', pid, tid, ts, dur });
const timeline = (name: string, ts: number, dur: number, data?: object) => ({ name, cat: 'devtools.timeline', ph: 'X', pid: PID, tid: 1, ts, dur, args: { data } });

describe('summarizeTrace', () => {
  it("sums the renderer's tasks per thread and its main thread's events and functions, heaviest first", () => {
    const trace = {
      traceEvents: [
        meta(1, 'CrRendererMain'),
        meta(2, 'Compositor'),
        meta(3, 'CompositorTileWorker1'),
        meta(4, 'CompositorTileWorker2'),
        meta(1, 'CrRendererMain', 99),
        task(1, 0, 4_000),
        task(1, 10_000, 2_000),
        task(2, 0, 500),
        task(3, 0, 1_000),
        task(4, 0, 1_000),
        // Another process: not counted.
        task(1, 0, 50_000, 99),
        timeline('TimerFire', 0, 3_000),
        timeline('FunctionCall', 0, 2_500, { functionName: 'check', url: 'http://x/assets/index.js', lineNumber: 12 }),
        timeline('Paint', 10_000, 1_000),
        timeline('Paint', 20_000, 1_000),
        timeline('FunctionCall', 30_000, 100, { functionName: '', url: 'http://x/assets/index.js', lineNumber: 3 }),
      ],
    };
    const s = summarizeTrace(JSON.stringify(trace), PID);
    expect(s.threads).toEqual({ CrRendererMain: { tasks: 2, ms: 6 }, Compositor: { tasks: 1, ms: 0.5 }, CompositorTileWorker: { tasks: 2, ms: 2 } });
    expect(s.mainEvents).toEqual([
      { name: 'TimerFire', count: 1, ms: 3 },
      { name: 'FunctionCall', count: 2, ms: 2.6 },
      { name: 'Paint', count: 2, ms: 2 },
    ]);
    expect(s.functions).toEqual([
      { fn: 'check index.js:12', count: 1, ms: 2.5 },
      { fn: '(anonymous) index.js:3', count: 1, ms: 0.1 },
    ]);
  });

  it('reads a bare array of events too, and an empty trace gives empty lists', () => {
    expect(summarizeTrace('[]', PID)).toEqual({ threads: {}, mainEvents: [], functions: [] });
  });
});
