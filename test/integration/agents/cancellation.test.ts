import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pidsWith, processExists as alive } from '../../support/processes';
import { harness, nextApproval, streamedText, waitFor, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.cleanup());

describe('cancellation', () => {
  it('mid-stream: aborts the request at once and keeps what was shown', async () => {
    const long = Array.from({ length: 40 }, (_, i) => `word${i} `).join('');
    h = await harness([{ blocks: [{ type: 'text', text: long }], delayMs: 100 }]);
    const id = h.session();
    const running = h.app.agents.run(id, 'talk a lot');
    await waitFor(() => h.events(id, 'text.delta').length > 0, 'the first text delta');
    expect(h.app.agents.cancel(id)).toBe(true);
    const r = await running;
    expect(r.outcome).toBe('cancelled');
    const shown = streamedText(h, id);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(long.length);
    const m = h.app.agents.messages.live(id).at(-1)!;
    expect(m.role).toBe('assistant');
    expect((m.blocks[0] as { text: string }).text).toBe(shown);
    expect(h.events(id, 'usage')).toHaveLength(0);
    expect(h.app.agents.getSession(id)).toMatchObject({ status: 'idle', lastTurn: { outcome: 'cancelled' } });
    expect(h.app.agents.cancel(id)).toBe(false);
  });

  it('mid-tool: kills the whole process group of the running command', async () => {
    // A sleep no other process has: its host pid is found by its command line (the command runs
    // in its own pid namespace, so a pid it printed would not be one the test can watch).
    h = await harness([{ blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'sleep 60.0417 & echo started; wait' } }] }]);
    const id = h.session({ mode: 'yolo' });
    const running = h.app.agents.run(id, 'run a long command');
    await waitFor(() => h.events(id, 'tool.output').some((o) => o.chunk.includes('started')) && pidsWith('sleep 60.0417').length === 1, 'the command to start');
    const child = pidsWith('sleep 60.0417')[0]!;
    expect(alive(child)).toBe(true);
    h.app.agents.cancel(id);
    const r = await running;
    expect(r.outcome).toBe('cancelled');
    await waitFor(() => !alive(child), 'the background child to die');
    const result = h.events(id, 'tool.result')[0]!;
    expect(result.content).toContain('cancelled by the user (process group killed)');
    // The tool call has its result in the transcript; no further model call was made.
    expect(h.app.agents.messages.live(id).map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(h.server.mainRequests()).toHaveLength(1);
  });

  it('while waiting for approval: the approval is cancelled and the turn ends', async () => {
    h = await harness([{ blocks: [{ type: 'tool_use', name: 'write', input: { path: 'a.txt', content: 'x' } }, { type: 'tool_use', name: 'read', input: { path: 'README.md' } }] }]);
    const id = h.session();
    const running = h.app.agents.run(id, 'write');
    const a = await nextApproval(h, id);
    h.app.agents.cancel(id);
    expect((await running).outcome).toBe('cancelled');
    expect(h.app.agents.gate.get(a.id)).toMatchObject({ status: 'cancelled' });
    expect(h.app.agents.gate.pending(id)).toHaveLength(0);
    // The second call was not run but has a result, so the conversation stays valid.
    const tools = h.app.agents.messages.live(id).filter((m) => m.role === 'tool');
    expect(tools).toHaveLength(2);
    expect(JSON.stringify(tools[1]!.blocks)).toContain('Not run — the turn was cancelled.');
    expect(existsSync(join(h.repo, 'a.txt'))).toBe(false);
  });
});
