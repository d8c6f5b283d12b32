import { describe, expect, it } from 'vitest';
import { CountedToolUses } from '../../../src-main/coder/counted-tools';
import type { StreamMessage } from '../../../src-main/coder/core/stream-json';

const ev = (event: Record<string, unknown>, parent: string | null = null): StreamMessage => ({ type: 'stream_event', event, parent_tool_use_id: parent });
const assistant = (messageId: string, toolIds: string[], parent: string | null = null, usage?: Record<string, number>): StreamMessage => ({
  type: 'assistant',
  parent_tool_use_id: parent,
  message: { id: messageId, content: toolIds.map((id) => ({ type: 'tool_use', id, name: 'Write', input: {} })), ...(usage ? { usage } : {}) },
});

/** A tool use's state: released or not, after the messages so far (a wait that has not resolved yet is "held"). */
async function state(c: CountedToolUses, id: string): Promise<'released' | 'held'> {
  let done = false;
  const stop = new AbortController();
  void c.counted(id, stop.signal, 60_000).then(() => (done = true));
  await new Promise((r) => setTimeout(r, 5));
  stop.abort();
  return done ? 'released' : 'held';
}

describe("a Claude Code run's tool uses are decided only after their call was counted", () => {
  it("a streamed call: its tool_use line comes before its usage (the CLI's real order); the tool use waits for message_delta", async () => {
    const c = new CountedToolUses();
    // The order Claude Code 2.1.197 prints with --include-partial-messages (see test/integration/coder/counted-tools-cli.test.ts).
    c.note(ev({ type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 1000 } } }));
    c.note(ev({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'Write' } }));
    c.note(ev({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{}' } }));
    c.note(assistant('msg_1', ['toolu_1']));
    expect(await state(c, 'toolu_1')).toBe('held');
    c.note(ev({ type: 'content_block_stop', index: 0 }));
    expect(await state(c, 'toolu_1')).toBe('held');
    c.note(ev({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 100 } }));
    expect(await state(c, 'toolu_1')).toBe('released');
  });

  it('a wait that started before the usage ends when the usage is read', async () => {
    const c = new CountedToolUses();
    c.note(ev({ type: 'message_start', message: { id: 'msg_1' } }));
    c.note(assistant('msg_1', ['toolu_a', 'toolu_b']));
    const order: string[] = [];
    const never = new AbortController().signal;
    const a = c.counted('toolu_a', never, 60_000).then(() => order.push('a'));
    const b = c.counted('toolu_b', never, 60_000).then(() => order.push('b'));
    await new Promise((r) => setTimeout(r, 5));
    expect(order).toEqual([]);
    order.push('usage');
    c.note(ev({ type: 'message_delta', delta: {}, usage: { output_tokens: 1 } }));
    await Promise.all([a, b]);
    expect(order).toEqual(['usage', 'a', 'b']);
  });

  it('a call that came whole (no partial events) carries its usage on the same line: released with it', async () => {
    const c = new CountedToolUses();
    c.note(assistant('msg_9', ['toolu_9'], null, { input_tokens: 10, output_tokens: 5 }));
    expect(await state(c, 'toolu_9')).toBe('released');
  });

  it("a subagent's tool uses go at once, and its stream events neither release nor hold the main call's", async () => {
    const c = new CountedToolUses();
    c.note(ev({ type: 'message_start', message: { id: 'msg_main' } }));
    c.note(assistant('msg_main', ['toolu_task']));
    c.note(ev({ type: 'message_start', message: { id: 'msg_sub' } }, 'toolu_task'));
    c.note(assistant('msg_sub', ['toolu_sub'], 'toolu_task'));
    c.note(ev({ type: 'message_delta', delta: {} }, 'toolu_task'));
    expect(await state(c, 'toolu_sub')).toBe('released');
    expect(await state(c, 'toolu_task')).toBe('held');
    c.note(ev({ type: 'message_stop' }));
    expect(await state(c, 'toolu_task')).toBe('released');
  });

  it("the run's result releases what is still held; a stalled stream ends the wait after its bound; an abort ends it at once", async () => {
    const c = new CountedToolUses();
    c.note(ev({ type: 'message_start', message: { id: 'msg_1' } }));
    c.note(assistant('msg_1', ['toolu_1', 'toolu_2']));
    let bounded = false;
    await c.counted('toolu_1', new AbortController().signal, 20).then(() => (bounded = true));
    expect(bounded).toBe(true);
    const stop = new AbortController();
    const aborted = c.counted('toolu_2', stop.signal, 60_000);
    stop.abort();
    await aborted;
    expect(await state(c, 'toolu_2')).toBe('held');
    c.note({ type: 'result', subtype: 'error_during_execution' });
    expect(await state(c, 'toolu_1')).toBe('released');
    expect(await state(c, 'toolu_2')).toBe('released');
  });
});

describe('what the stream may lack', () => {
  it("a streamed tool use whose assistant line never came (too long to read) is held from its block's start", async () => {
    const c = new CountedToolUses();
    c.note(ev({ type: 'message_start', message: { id: 'msg_1' } }));
    c.note(ev({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_big', name: 'Write' } }));
    expect(await state(c, 'toolu_big')).toBe('held');
    c.note(ev({ type: 'message_delta', delta: {}, usage: { output_tokens: 1 } }));
    expect(await state(c, 'toolu_big')).toBe('released');
  });

  it('a call whose message_start has no id holds its tool uses from their blocks; a whole call that follows is not held', async () => {
    const c = new CountedToolUses();
    c.note(ev({ type: 'message_start', message: {} }));
    c.note(ev({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_s', name: 'Write' } }));
    c.note(assistant('', ['toolu_s']));
    expect(await state(c, 'toolu_s')).toBe('held');
    // The stream broke off; the CLI's fallback call comes whole, its usage on its line.
    c.note(assistant('msg_whole', ['toolu_w'], null, { input_tokens: 1, output_tokens: 1 }));
    expect(await state(c, 'toolu_w')).toBe('released');
    expect(await state(c, 'toolu_s')).toBe('held');
    c.note(ev({ type: 'message_delta', delta: {}, usage: { output_tokens: 1 } }));
    expect(await state(c, 'toolu_s')).toBe('released');
  });
});
