import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventData, Approval } from '../../../src-preload/contract/agents';
import { applyEvent, applyEvents, emptyTranscript, MAX_TOOL_OUTPUT_CHARS, parseToolInput, toolSummary } from '../../../src-renderer/src/agents/transcript';
import { completeSlash } from '../../../src-renderer/src/agents/slash-commands';

const SID = 'ses-abcdef12';
const TURN = 'turn-abcdef12';
let seq = 0;
function ev(data: AgentEventData, at = ++seq): AgentEvent {
  return { sessionId: SID, seq: at, ts: 1000 + at, turnId: TURN, data };
}

function approval(status: Approval['status']): Approval {
  return {
    id: 'apr-abcdef12',
    sessionId: SID,
    turnId: TURN,
    toolUseId: 'tu1',
    tool: 'write',
    input: { path: 'a.txt', content: 'hi' },
    summary: 'write a.txt',
    risk: 'medium',
    reason: 'writes ask',
    diff: '--- a/a.txt\n+++ b/a.txt\n@@ -0,0 +1 @@\n+hi',
    sessionRule: 'write',
    status,
    decision: status === 'denied' ? 'deny' : null,
    decisionReason: status === 'denied' ? 'not now' : null,
    source: 'builtin',
    createdAt: 1,
    resolvedAt: null,
  };
}

describe('transcript fold', () => {
  it('assembles a turn: user input, streamed text, a tool with streamed input, approval, result', () => {
    seq = 0;
    const events = [
      ev({ type: 'turn.started', input: 'make a.txt', kind: 'chat', mode: 'default', model: 'm' }),
      ev({ type: 'text.delta', step: 1, index: 0, text: 'Sure, ' }),
      ev({ type: 'text.delta', step: 1, index: 0, text: 'writing it.' }),
      ev({ type: 'tool.started', step: 1, index: 1, toolUseId: 'tu1', tool: 'write' }),
      ev({ type: 'tool.input.delta', step: 1, index: 1, toolUseId: 'tu1', partialJson: '{"path":"a.t' }),
      ev({ type: 'tool.input.delta', step: 1, index: 1, toolUseId: 'tu1', partialJson: 'xt","content":"hi"}' }),
      ev({ type: 'tool.decision', toolUseId: 'tu1', tool: 'write', decision: 'ask', source: 'policy', reason: 'writes ask', risk: 'medium' }),
      ev({ type: 'approval.requested', approval: approval('pending') }),
      ev({ type: 'approval.resolved', approval: approval('approved') }),
      ev({ type: 'tool.result', toolUseId: 'tu1', tool: 'write', isError: false, content: 'wrote 2 bytes', exitCode: null, durationMs: 5 }),
      ev({ type: 'text.delta', step: 2, index: 0, text: 'Done.' }),
      ev({ type: 'turn.ended', outcome: 'completed', message: null, steps: 2 }),
    ];
    const t = applyEvents(emptyTranscript, events);
    expect(t.items.map((i) => i.kind)).toEqual(['user', 'assistant', 'tool', 'assistant', 'turn-end']);
    expect(t.items[1]).toMatchObject({ text: 'Sure, writing it.' });
    const tool = t.items[2]!;
    expect(tool.kind === 'tool' && parseToolInput(tool.inputJson)).toEqual({ path: 'a.txt', content: 'hi' });
    expect(tool).toMatchObject({ approval: { status: 'approved' }, result: { content: 'wrote 2 bytes' } });
    expect(t.running).toBe(false);
    expect(t.lastSeq).toBe(12);
  });

  it('a batch folds as its events one by one would, and leaves the transcript it started from as it was', () => {
    seq = 0;
    const first = [ev({ type: 'turn.started', input: 'one', kind: 'chat', mode: 'default', model: 'm' }), ev({ type: 'text.delta', step: 1, index: 0, text: 'a' })];
    const start = applyEvents(emptyTranscript, first);
    const startItems = start.items.map((i) => ({ ...i }));
    const batch = [
      ev({ type: 'text.delta', step: 1, index: 0, text: 'b' }),
      ev({ type: 'tool.started', step: 1, index: 1, toolUseId: 'tu9', tool: 'bash' }),
      ev({ type: 'tool.result', toolUseId: 'tu9', tool: 'bash', isError: false, content: 'ok', exitCode: 0, durationMs: 1 }),
      ev({ type: 'turn.ended', outcome: 'completed', message: null, steps: 1 }),
      ev({ type: 'turn.started', input: 'two', kind: 'chat', mode: 'default', model: 'm' }),
    ];
    const batched = applyEvents(start, batch);
    const single = batch.reduce((t, e) => applyEvent(t, e), start);
    expect(batched).toEqual(single);
    expect(batched.items.map((i) => i.kind)).toEqual(['user', 'assistant', 'tool', 'turn-end', 'user']);
    // The transcript the batch started from (React state still showing) is not touched.
    expect(start.items).toEqual(startItems);
    expect(start.items).toHaveLength(2);
    expect(emptyTranscript.items).toHaveLength(0);
  });

  it('ignores events it has already applied, so replay and live overlap cleanly', () => {
    seq = 0;
    const a = ev({ type: 'turn.started', input: 'hi', kind: 'chat', mode: 'plan', model: 'm' });
    const b = ev({ type: 'text.delta', step: 1, index: 0, text: 'hello' });
    const once = applyEvents(emptyTranscript, [a, b]);
    const twice = applyEvents(once, [a, b]);
    expect(twice).toBe(once);
    expect(applyEvent(once, b)).toBe(once);
  });

  it('remembers the terminal a command runs in', () => {
    seq = 0;
    let t = applyEvent(emptyTranscript, ev({ type: 'tool.started', step: 1, index: 0, toolUseId: 'b', tool: 'bash' }));
    t = applyEvent(t, ev({ type: 'tool.output', toolUseId: 'b', chunk: '', terminalId: 'term-abc123' }));
    t = applyEvent(t, ev({ type: 'tool.output', toolUseId: 'b', chunk: 'hi\n' }));
    expect(t.items[0]).toMatchObject({ terminalId: 'term-abc123', output: 'hi\n' });
  });

  it('keeps live command output bounded', () => {
    seq = 0;
    let t = applyEvent(emptyTranscript, ev({ type: 'tool.started', step: 1, index: 0, toolUseId: 'b', tool: 'bash' }));
    const chunk = 'x'.repeat(60_000);
    for (let i = 0; i < 5; i++) t = applyEvent(t, ev({ type: 'tool.output', toolUseId: 'b', chunk }));
    const tool = t.items[0]!;
    expect(tool.kind === 'tool' && tool.output.length).toBe(MAX_TOOL_OUTPUT_CHARS);
    expect(tool.kind === 'tool' && tool.outputTruncated).toBe(true);
  });

  it('turns verify, retries, errors and slash results into items', () => {
    seq = 0;
    const t = applyEvents(emptyTranscript, [
      ev({ type: 'retry', step: 1, attempt: 1, maxRetries: 3, delayMs: 1500, reason: 'rate limited (429)', status: 429 }),
      ev({ type: 'verify.started', command: 'npm test -- --watch=false', attempt: 1, maxAttempts: 2 }),
      ev({ type: 'verify.result', command: 'npm test -- --watch=false', attempt: 1, passed: false, exitCode: 1, output: 'FAIL' }),
      ev({ type: 'verify.skipped', reason: 'not_whitelisted', message: 'auto-verify not run: make test is not whitelisted' }),
      ev({ type: 'command.result', kind: 'slash', name: 'help', ok: true, text: '/help …', exitCode: null }),
      ev({ type: 'error', code: 'auth', message: 'API key rejected by http://x', retryable: false }),
    ]);
    expect(t.items.map((i) => i.kind)).toEqual(['notice', 'verify', 'notice', 'command', 'error']);
    expect(t.items[1]).toMatchObject({ passed: false, exitCode: 1, maxAttempts: 2 });
    expect(t.retry).toMatchObject({ attempt: 1, delayMs: 1500 });
    expect(t.items[2]).toMatchObject({ level: 'warning' });
  });
});

describe('helpers', () => {
  it('summarizes tool calls', () => {
    expect(toolSummary('bash', { command: 'npm test' })).toBe('npm test');
    expect(toolSummary('write', { path: 'src/a.ts', content: '' })).toBe('write src/a.ts');
    expect(toolSummary('grep', null)).toBe('grep');
    expect(parseToolInput('{"a":')).toBeNull();
    expect(parseToolInput('[1]')).toBeNull();
  });

  it('completes slash commands', () => {
    expect(completeSlash('/').map((c) => c.name)).toHaveLength(11);
    expect(completeSlash('/re').map((c) => c.name)).toEqual(['resume', 'review', 'redo', 'rewind']);
    expect(completeSlash('/model x')).toEqual([]);
    expect(completeSlash('hello')).toEqual([]);
  });
});
