import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coderHarness, requestText, TEST_KEY, type CoderHarness } from './support';

let h: CoderHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe('Coder against the real claude CLI', () => {
  it('returns the seed success object, with metrics and messages when asked, and no key anywhere', async () => {
    h = await coderHarness([{ blocks: [{ type: 'text', text: 'Hello from the model.' }], usage: { input_tokens: 100, output_tokens: 7 } }]);
    const metricsLines: string[] = [];
    const r = await h.run({ return_metrics: true, return_all_messages: true, log_metrics: true }, { metricsSink: (l) => metricsLines.push(l) });
    expect(r).toMatchObject({ success: true, tool: 'coder', result: 'Hello from the model.' });
    if (!r.success) throw new Error('unreachable');
    expect(r.SESSION_ID).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(r).sort()).toEqual(['SESSION_ID', 'all_messages', 'metrics', 'result', 'success', 'tool']);
    expect(r.metrics).toMatchObject({ num_turns: 1, input_tokens: 100, output_tokens: 7, attempts: 1, session_recreated: false });
    expect(r.metrics!.total_cost_usd).toBeGreaterThan(0);
    const kinds = r.all_messages!.map((m) => `${(m as { type: string }).type}/${(m as { subtype?: string }).subtype ?? ''}`);
    expect(kinds[0]).toBe('system/init');
    expect(kinds).toContain('assistant/');
    expect(kinds.at(-1)).toBe('result/success');
    expect(metricsLines).toHaveLength(1);
    expect(metricsLines[0]).toMatch(/^\[coder\] metrics \{.*"num_turns":1/);
    // The profile reached the server: its key (sent, never echoed) and its model.
    const main = h.server.mainRequests();
    expect(main).toHaveLength(1);
    expect(main[0]!.credential).toBe(TEST_KEY);
    expect((main[0]!.body as { model: string }).model).toBe('claude-sonnet-4-5');
    expect(requestText(main[0]!.body)).toContain('Do the task.');
    expect(JSON.stringify(r)).not.toContain(TEST_KEY);
  });

  it('leaves out all_messages and metrics unless asked', async () => {
    h = await coderHarness([{ blocks: [{ type: 'text', text: 'ok' }] }]);
    const r = await h.run({});
    expect(Object.keys(r).sort()).toEqual(['SESSION_ID', 'result', 'success', 'tool']);
  });

  it('resumes a session: the second request carries the first turn', async () => {
    h = await coderHarness([
      { blocks: [{ type: 'text', text: 'First answer about zebras.' }] },
      { match: { userPattern: 'second question' }, blocks: [{ type: 'text', text: 'Second answer.' }] },
    ]);
    const first = await h.run({ PROMPT: 'first question about zebras' });
    if (!first.success) throw new Error(JSON.stringify(first));
    const second = await h.run({ PROMPT: 'second question', SESSION_ID: first.SESSION_ID });
    expect(second).toMatchObject({ success: true, SESSION_ID: first.SESSION_ID, result: 'Second answer.' });
    const text = requestText(h.server.mainRequests()[1]!.body);
    expect(text).toContain('first question about zebras');
    expect(text).toContain('First answer about zebras.');
    expect(text).toContain('second question');
  });

  it('starts a new session with the context pack when the SESSION_ID is unknown', async () => {
    h = await coderHarness([{ match: { userPattern: 'Resume step 2' }, blocks: [{ type: 'text', text: 'Continuing in a new session.' }] }]);
    const { writeFileSync, mkdirSync } = await import('node:fs');
    mkdirSync(join(h.repo, 'ai/contracts'), { recursive: true });
    writeFileSync(join(h.repo, 'ai/contracts/current.md'), '# Contract\n## Goal\nShip the zebra parser.\n## Allowed paths\n- `src/**`\n## Assumptions\nASCII input only.\n## Acceptance\n- zebra tests pass\n');
    const lost = '00000000-0000-4000-8000-000000000000';
    const r = await h.run({ PROMPT: 'Resume step 2', SESSION_ID: lost, return_metrics: true });
    expect(r).toMatchObject({ success: true, result: 'Continuing in a new session.', metrics: { session_recreated: true, attempts: 2 } });
    if (!r.success) throw new Error('unreachable');
    expect(r.SESSION_ID).not.toBe(lost);
    const text = requestText(h.server.mainRequests()[0]!.body);
    for (const part of [lost, 'Ship the zebra parser.', 'src/**', 'ASCII input only.', 'zebra tests pass', 'Resume step 2']) expect(text).toContain(part);
  });

  it('a scripted Write really creates the file in cd (workspace-write, headless policy)', async () => {
    h = await coderHarness([
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: 'notes/hello.txt', content: 'hello\n' } }] },
      { match: { userPattern: 'File created successfully' }, blocks: [{ type: 'text', text: 'Created it.' }] },
    ]);
    const r = await h.run({});
    expect(r).toMatchObject({ success: true, result: 'Created it.' });
    expect(readFileSync(join(h.repo, 'notes/hello.txt'), 'utf8')).toBe('hello\n');
  });

  it('a Write denied through the approval path does not run: the file is absent', async () => {
    h = await coderHarness([
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: 'denied.txt', content: 'x' } }] },
      { match: { userPattern: 'Not on my watch' }, blocks: [{ type: 'text', text: 'It was refused.' }] },
    ]);
    const asked: Array<{ tool: string; claudeTool: string; summary: string; sandbox: string }> = [];
    const r = await h.run({}, {
      gate: {
        decide: async (req) => {
          asked.push({ tool: req.tool, claudeTool: req.claudeTool, summary: req.summary, sandbox: req.sandbox });
          return { allow: false, reason: 'Not on my watch.' };
        },
      },
    });
    expect(r).toMatchObject({ success: true, result: 'It was refused.' });
    expect(asked).toEqual([{ tool: 'write', claudeTool: 'Write', summary: 'write denied.txt', sandbox: 'workspace-write' }]);
    expect(existsSync(join(h.repo, 'denied.txt'))).toBe(false);
    expect(h.server.pendingTurns()).toBe(0);
  });

  it('workspace-write refuses paths outside cd before asking anyone', async () => {
    h = await coderHarness([]);
    const target = join(h.repo, '..', `escape-${Date.now()}.txt`);
    h.server.setScript([
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: target, content: 'x' } }] },
      { match: { userPattern: 'outside the working folder' }, blocks: [{ type: 'text', text: 'Stayed inside.' }] },
    ]);
    let asked = 0;
    const r = await h.run({}, { gate: { decide: async () => (asked++, { allow: true, reason: 'ok' }) } });
    expect(r).toMatchObject({ success: true, result: 'Stayed inside.' });
    expect(asked).toBe(0);
    expect(existsSync(target)).toBe(false);
  });

  it('read-only has no file-changing tools at all', async () => {
    h = await coderHarness([
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: 'ro.txt', content: 'x' } }] },
      { blocks: [{ type: 'text', text: 'Could not write.' }] },
    ]);
    const r = await h.run({ sandbox: 'read-only' });
    expect(r).toMatchObject({ success: true });
    expect(existsSync(join(h.repo, 'ro.txt'))).toBe(false);
    const tools = (h.server.mainRequests()[0]!.body as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(tools).not.toContain('Write');
    expect(tools).not.toContain('Edit');
    expect(tools).toContain('Read');
  });
});
