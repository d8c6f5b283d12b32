import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentEventData } from '../../../src-preload/contract';
import { StreamEventMapper, type MapperContext } from '../../../src-main/coder/core/events';
import { StreamState } from '../../../src-main/coder/core/stream-json';

const CAPTURES = join(__dirname, '../../fixtures/claude-code/captures');

function mapCapture(name: string, over: Partial<MapperContext> = {}) {
  let n = 0;
  let clock = 1_000;
  const mapper = new StreamEventMapper({
    sessionId: 'ses-abcdef1',
    turnId: 'turn-abcdef1',
    profile: 'demo',
    model: 'claude-opus-4-8',
    newMessageId: () => `msg-test${String(++n).padStart(4, '0')}`,
    now: () => (clock += 5),
    ...over,
  });
  const state = new StreamState();
  const events: AgentEventData[] = [];
  for (const line of readFileSync(join(CAPTURES, `${name}.jsonl`), 'utf8').split('\n')) {
    const d = state.accept(line);
    if (d.kind === 'message') events.push(...mapper.map(d.message));
  }
  events.push(...mapper.flush());
  return { events, mapper };
}

/** Usage of model calls (the CLI's own cost total, when reported, carries no tokens). */
function perCallUsage(events: AgentEventData[]) {
  return events.filter((e) => e.type === 'usage' && e.usage.inputTokens + e.usage.outputTokens > 0);
}

describe('stream-json → agent events (captured lines)', () => {
  it('every event fits the contract union', () => {
    for (const name of ['text-partial', 'write-partial', 'write-plain', 'api-error-500', 'denied-write']) {
      for (const e of mapCapture(name).events) expect(AgentEventData.safeParse(e).success, `${name}: ${JSON.stringify(e)}`).toBe(true);
    }
  });

  it('streams text and thinking as deltas and ends with the assembled message', () => {
    const { events, mapper } = mapCapture('text-partial');
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('notice');
    expect(types).toContain('step.started');
    const text = events.filter((e) => e.type === 'text.delta').map((e) => (e as { text: string }).text).join('');
    const thinking = events.filter((e) => e.type === 'thinking.delta').map((e) => (e as { text: string }).text).join('');
    expect(text).toBe('All done here.');
    expect(thinking).toBe('Let me think about it.');
    const message = events.find((e) => e.type === 'message');
    expect(message).toMatchObject({ message: { role: 'assistant', blocks: [{ type: 'thinking', thinking: 'Let me think about it.' }, { type: 'text', text: 'All done here.' }] } });
    expect(events.find((e) => e.type === 'usage')).toMatchObject({ usage: { outputTokens: 30 }, stopReason: 'end_turn' });
    expect(mapper.steps).toBe(1);
  });

  it('turns tool calls into tool cards with inputs, results, exit codes and engine tool names', () => {
    const { events, mapper } = mapCapture('write-partial');
    const started = events.filter((e) => e.type === 'tool.started');
    expect(started.map((e) => (e as { tool: string }).tool)).toEqual(['write', 'bash']);
    const writeId = (started[0] as { toolUseId: string }).toolUseId;
    const input = events
      .filter((e) => e.type === 'tool.input.delta' && e.toolUseId === writeId)
      .map((e) => (e as { partialJson: string }).partialJson)
      .join('');
    expect(JSON.parse(input)).toEqual({ file_path: 'hello.txt', content: 'hello\n' });
    const results = events.filter((e) => e.type === 'tool.result');
    expect(results[0]).toMatchObject({ tool: 'write', isError: false, exitCode: null, content: expect.stringContaining('File created successfully') });
    expect(results[1]).toMatchObject({ tool: 'bash', isError: true, exitCode: 3, content: 'Exit code 3\nhello' });
    expect((results[0] as { durationMs: number }).durationMs).toBeGreaterThan(0);
    const toolMessages = events.filter((e) => e.type === 'message' && e.message.role === 'tool');
    expect(toolMessages).toHaveLength(2);
    expect(mapper.steps).toBe(3);
    expect(perCallUsage(events)).toHaveLength(3);
  });

  it('replays complete messages as deltas when there were no partial events', () => {
    const { events } = mapCapture('write-plain');
    expect(events.filter((e) => e.type === 'step.started')).toHaveLength(2);
    expect(events.find((e) => e.type === 'tool.started')).toMatchObject({ tool: 'write' });
    expect(events.find((e) => e.type === 'tool.input.delta')).toMatchObject({ partialJson: '{"file_path":"hello.txt","content":"hello\\n"}' });
    expect(events.filter((e) => e.type === 'text.delta').map((e) => (e as { text: string }).text)).toEqual(['Created hello.txt.']);
    expect(perCallUsage(events)).toHaveLength(2);
  });

  it('prices each call with the profile prices when given', () => {
    const { events } = mapCapture('text-partial', { price: (u) => u.outputTokens / 1000 });
    expect(events.filter((e) => e.type === 'usage').map((e) => (e as { usd: number }).usd)).toEqual([0.03]);
  });

  it('without prices, reports the CLI total once', () => {
    const { events } = mapCapture('text-partial');
    const usage = events.filter((e) => e.type === 'usage');
    expect(usage.map((e) => (e as { usd: number }).usd)).toEqual([0, 0.00135]);
  });

  it('reports API retries and the upstream error', () => {
    const { events } = mapCapture('api-error-500');
    expect(events.find((e) => e.type === 'retry')).toMatchObject({ attempt: 1, maxRetries: 1, status: 500, reason: 'server_error' });
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'upstream_error', retryable: true, message: expect.stringContaining('API Error: 500') });
  });

  it('shows a refused tool call as an error result', () => {
    const { events } = mapCapture('denied-write');
    expect(events.find((e) => e.type === 'tool.result')).toMatchObject({ tool: 'write', isError: true, content: expect.stringContaining("haven't granted") });
  });

  it('ignores subagent traffic and unknown lines', () => {
    const mapper = new StreamEventMapper({ sessionId: 'ses-abcdef1', turnId: null, profile: 'p', model: 'm', newMessageId: () => 'msg-abcdef1', now: () => 0 });
    expect(mapper.map({ type: 'assistant', parent_tool_use_id: 'toolu_1', message: { id: 'x', content: [{ type: 'text', text: 'sub' }] } })).toEqual([]);
    expect(mapper.map({ type: 'something_new' })).toEqual([]);
    expect(mapper.map({ type: 'system', subtype: 'status' })).toEqual([]);
  });

  it('hands transcript messages to the engine in stored form, thinking signatures kept', () => {
    const persisted: Array<{ role: string; kind: string; blocks: unknown[] }> = [];
    const { events } = mapCapture('text-partial', { persist: (role, kind, blocks) => persisted.push({ role, kind, blocks }) });
    expect(events.some((e) => e.type === 'message')).toBe(false);
    expect(persisted).toEqual([{ role: 'assistant', kind: 'chat', blocks: [{ type: 'thinking', thinking: 'Let me think about it.', signature: expect.any(String) }, { type: 'text', text: 'All done here.' }] }]);
    const tools: typeof persisted = [];
    mapCapture('write-partial', { persist: (role, kind, blocks) => tools.push({ role, kind, blocks }) });
    expect(tools.map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(tools[0]!.blocks[1]).toMatchObject({ type: 'tool_use', name: 'write', input: { file_path: 'hello.txt' } });
    expect(tools[1]!.blocks[0]).toMatchObject({ type: 'tool_result', tool_use_id: expect.any(String), is_error: false });
  });
});
