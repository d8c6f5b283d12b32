import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventData } from '../../../src-preload/contract/agents';
import { applyEvents, emptyTranscript, tailFoldsAlone } from '../../../src-renderer/src/agents/transcript';

/**
 * A long session's first open shows its newest turns folded on their own, then the whole log's
 * fold: what the view shows at the bottom must not change between the two.
 */
const SID = 'ses-abcdef12';

/** One stored turn as the agent loop leaves it (as test/fixtures/long-transcript.ts): input, text, a bash call, a Markdown answer, usage, end. */
function turnEvents(t: number): Array<{ turnId: string; data: AgentEventData }> {
  const turnId = `turn-t${t}`;
  const tool = `toolu_${t}`;
  const usage = (step: number, stopReason: string) =>
    ({ type: 'usage', step, purpose: 'turn', profile: 'default', model: 'm', usage: { inputTokens: 1000 + t, outputTokens: 200, cacheReadTokens: 0, cacheWriteTokens: 0 }, usd: 0.01, stopReason }) as AgentEventData;
  const data: AgentEventData[] = [
    { type: 'turn.started', input: `t${t}: look at module ${t}`, kind: 'chat', mode: t % 2 ? 'default' : 'auto-edit', model: 'm' },
    { type: 'step.started', step: 1, model: 'm' },
    { type: 'text.delta', step: 1, index: 0, text: `Looking at module ${t}.` },
    { type: 'tool.started', step: 1, index: 1, toolUseId: tool, tool: 'bash' },
    { type: 'tool.input.delta', step: 1, index: 1, toolUseId: tool, partialJson: JSON.stringify({ command: `grep -rn value src/module-${t}` }) },
    { type: 'tool.result', toolUseId: tool, tool: 'bash', isError: false, content: `src/module-${t}.ts:1: x`, exitCode: 0, stdout: `src/module-${t}.ts:1: x`, durationMs: 12 },
    usage(1, 'tool_use'),
    { type: 'step.started', step: 2, model: 'm' },
    { type: 'text.delta', step: 2, index: 0, text: `Turn ${t}: done.\n\n- a **list**\n\n| a | b |\n|---|---|\n| 1 | 2 |` },
    usage(2, 'end_turn'),
    { type: 'turn.ended', outcome: 'completed', message: null, steps: 2 },
  ];
  return data.map((d) => ({ turnId, data: d }));
}

function log(turns: number, extra: (t: number) => Array<{ turnId: string; data: AgentEventData }> = () => []): AgentEvent[] {
  let seq = 0;
  const out: AgentEvent[] = [];
  for (let t = 1; t <= turns; t++) for (const e of [...turnEvents(t), ...extra(t)]) out.push({ sessionId: SID, seq: ++seq, ts: 1_000 + seq, turnId: e.turnId, data: e.data });
  return out;
}

/** The events from the start of the n-th last turn, as the host's tail read returns them. */
function tail(events: AgentEvent[], turns: number): AgentEvent[] {
  const starts = events.filter((e) => e.data.type === 'turn.started').map((e) => e.seq);
  return events.slice(starts[starts.length - turns]! - 1);
}

describe('a tail of the log folded on its own', () => {
  it('gives the newest turns exactly as the whole log’s fold does, with the same ids, mode and context meter', () => {
    const events = log(200);
    const whole = applyEvents(emptyTranscript, events);
    const newest = tail(events, 20);
    expect(tailFoldsAlone(newest)).toBe(true);
    const part = applyEvents(emptyTranscript, newest);
    expect(part.items.length).toBeGreaterThan(40);
    expect(part.items).toEqual(whole.items.slice(whole.items.length - part.items.length));
    expect(part.lastSeq).toBe(whole.lastSeq);
    expect(part.mode).toBe(whole.mode);
    expect(part.context).toEqual(whole.context);
    expect(part.running).toBe(whole.running);
  });

  it('is not shown on its own when it holds a /rewind, which folds turns counted from the session’s start', () => {
    const events = log(200, (t) => (t === 195 ? [{ turnId: 'turn-rw', data: { type: 'rewound', toTurn: 150 } }] : []));
    const newest = tail(events, 20);
    expect(tailFoldsAlone(newest)).toBe(false);
    // What it would get wrong: the whole fold collapses turns 151–195 into one block, the tail's own fold does not.
    const whole = applyEvents(emptyTranscript, events);
    const part = applyEvents(emptyTranscript, newest);
    expect(whole.items.some((i) => i.kind === 'rewound')).toBe(true);
    expect(part.items.some((i) => i.kind === 'rewound')).toBe(false);
    // A rewind before the tail changes nothing in it.
    expect(tailFoldsAlone(tail(events, 5))).toBe(true);
  });
});
