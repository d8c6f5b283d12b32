import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, streamedText, TEST_KEY, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.cleanup());

describe('the turn loop against the scripted server', () => {
  it('streams text, persists before publishing, records the assistant message and cost', async () => {
    h = await harness([{ blocks: [{ type: 'thinking', thinking: 'Let me think about it.' }, { type: 'text', text: 'Hello from the scripted model.' }], usage: { input_tokens: 1000, output_tokens: 200 } }]);
    const id = h.session();
    const r = await h.app.agents.run(id, '  say hello  ');
    expect(r).toMatchObject({ outcome: 'completed', sessionId: id });
    expect(streamedText(h, id)).toBe('Hello from the scripted model.');
    expect(h.events(id, 'thinking.delta').map((d) => d.text).join('')).toBe('Let me think about it.');
    // What was published is exactly what the log holds (persisted first, same seq numbers).
    const replay = h.app.agents.sink.read(id, 1, 10_000);
    const live = h.published.filter((e) => e.sessionId === id);
    expect(live.map((e) => e.seq)).toEqual(replay.map((e) => e.seq));
    expect(live.map((e) => e.data.type)).toEqual(expect.arrayContaining(['turn.started', 'message', 'step.started', 'usage', 'turn.ended']));
    const msgs = h.app.agents.messages.live(id);
    expect(msgs.map((m) => [m.role, m.kind])).toEqual([
      ['user', 'chat'],
      ['assistant', 'chat'],
    ]);
    expect(msgs[0]!.blocks).toEqual([{ type: 'text', text: 'say hello' }]);
    const cost = h.app.agents.costs.summary(id);
    // 1000 in × $3/M + 200 out × $15/M
    expect(cost.total).toMatchObject({ calls: 1, inputTokens: 1000, outputTokens: 200, usd: 0.006 });
    const s = h.app.agents.getSession(id);
    expect(s).toMatchObject({ status: 'idle', turnCount: 1, title: 'say hello', lastTurn: { outcome: 'completed' } });
    // The request carried the key, the tools and the system prompt.
    const req = h.server.mainRequests()[0]!;
    expect(req.credential ?? req.apiKey ?? req.authorization).toContain(TEST_KEY);
    const body = req.body as { tools: Array<{ name: string }>; system: string; stream: boolean };
    expect(body.tools.map((t) => t.name)).toEqual(['read', 'write', 'patch', 'bash', 'glob', 'grep', 'todo']);
    expect(body.stream).toBe(true);
  });

  it('executes tool calls one by one into tool messages and loops until the model stops', async () => {
    h = await harness([
      { blocks: [{ type: 'text', text: 'Reading.' }, { type: 'tool_use', name: 'read', input: { path: 'README.md' } }, { type: 'tool_use', name: 'glob', input: { pattern: '*.md' } }] },
      { match: { userPattern: '# sample' }, blocks: [{ type: 'text', text: 'The README says sample.' }] },
    ]);
    const id = h.session();
    const r = await h.app.agents.run(id, 'what does the readme say?');
    expect(r.outcome).toBe('completed');
    expect(h.server.pendingTurns()).toBe(0);
    const msgs = h.app.agents.messages.live(id);
    expect(msgs.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    const results = h.events(id, 'tool.result');
    expect(results.map((x) => [x.tool, x.isError])).toEqual([
      ['read', false],
      ['glob', false],
    ]);
    expect(results[0]!.content).toContain('# sample');
    expect(results[1]!.content).toBe('README.md');
    // Both results went back in one user turn, tool_use ids paired.
    const second = h.server.mainRequests()[1]!.body as { messages: Array<{ role: string; content: Array<{ type: string; tool_use_id?: string }> }> };
    const last = second.messages[second.messages.length - 1]!;
    expect(last.role).toBe('user');
    expect(last.content.map((b) => b.type)).toEqual(['tool_result', 'tool_result']);
    expect(readFileSync(join(h.repo, 'README.md'), 'utf8')).toBe('# sample\n');
  });
});
