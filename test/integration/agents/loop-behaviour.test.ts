import { afterEach, describe, expect, it } from 'vitest';
import { harness, saveTestProfile, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.cleanup());

const bodyOf = (h: Harness, i: number) => h.server.mainRequests()[i]!.body as { system: string; messages: Array<{ role: string; content: Array<{ type: string; text?: string }> }> };
const textOf = (b: ReturnType<typeof bodyOf>) => JSON.stringify(b.messages);

describe('complexity and todos (seed 001 §3.2, §9)', () => {
  it('an enumerated request initializes the todo list, which the system prompt carries', async () => {
    h = await harness([{ blocks: [{ type: 'text', text: 'on it' }] }, { blocks: [{ type: 'text', text: 'simple' }] }]);
    const id = h.session();
    await h.app.agents.run(id, 'Please:\n1. add a login page\n2. add a logout button\n3. write the tests');
    expect(h.events(id, 'complexity')[0]).toEqual({ type: 'complexity', complex: true, rule: 'enumeration' });
    expect(h.app.agents.getSession(id).todos.map((t) => [t.text, t.status])).toEqual([
      ['add a login page', 'in_progress'],
      ['add a logout button', 'pending'],
      ['write the tests', 'pending'],
    ]);
    const system = bodyOf(h, 0).system;
    expect(system).toContain('Current todo list');
    expect(system).toContain('1. [~] add a login page');
    // A simple follow-up is not complex and leaves the list alone (it is not finished).
    await h.app.agents.run(id, 'thanks');
    expect(h.events(id, 'complexity')[1]).toEqual({ type: 'complexity', complex: false, rule: null });
    expect(h.app.agents.getSession(id).todos).toHaveLength(3);
  });

  it('the todo tool replaces the list; todo_auto_init: false in the config skips initialization', async () => {
    h = await harness([
      { blocks: [{ type: 'tool_use', name: 'todo', input: { todos: [{ text: 'read code', status: 'done' }, { text: 'change it', status: 'in_progress' }] } }] },
      { blocks: [{ type: 'text', text: 'ok' }] },
      { blocks: [{ type: 'text', text: 'ok' }] },
    ]);
    const id = h.session();
    await h.app.agents.run(id, 'work on it');
    expect(h.events(id, 'todo.updated').at(-1)!.todos.map((t) => t.status)).toEqual(['done', 'in_progress']);
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(`${h.repo}/.flightdeck`);
    writeFileSync(`${h.repo}/.flightdeck/config.yml`, 'workflow:\n  todo_auto_init: false\n');
    const id2 = h.session();
    await h.app.agents.run(id2, '1. one\n2. two');
    expect(h.events(id2, 'complexity')[0]!.complex).toBe(true);
    expect(h.app.agents.getSession(id2).todos).toEqual([]);
  });
});

describe('compaction before a model call (seed 001 §3.3)', () => {
  it('summarizes older turns when the context passes the share of the window; keeps system, todos and the last turns', async () => {
    h = await harness([
      { blocks: [{ type: 'text', text: 'reply one' }] },
      { blocks: [{ type: 'text', text: 'reply two' }] },
      { match: { userPattern: 'Write the summary' }, blocks: [{ type: 'text', text: 'SUMMARY-OF-TURN-ONE' }] },
      { blocks: [{ type: 'text', text: 'reply three' }] },
    ]);
    saveTestProfile(h.app, h.server.url, { contextWindow: 10_000 });
    const id = h.session();
    const pad = (c: string) => c.repeat(10_000);
    await h.app.agents.run(id, `1. first goal\n2. second goal\n${pad('a')}`);
    await h.app.agents.run(id, `turn two ${pad('b')}`);
    expect(h.events(id, 'compaction')).toHaveLength(0);
    await h.app.agents.run(id, `turn three ${pad('c')}`);
    const c = h.events(id, 'compaction');
    expect(c).toHaveLength(1);
    expect(c[0]).toMatchObject({ trigger: 'auto', summarizedMessages: 2 });
    expect(c[0]!.beforeTokens).toBeGreaterThan(8_000);
    expect(c[0]!.afterTokens).toBeLessThan(c[0]!.beforeTokens);
    const summaryReq = bodyOf(h, 2);
    expect(textOf(summaryReq)).toContain('aaaa');
    expect(textOf(summaryReq)).not.toContain('bbbb');
    const third = bodyOf(h, 3);
    expect(textOf(third)).toContain('SUMMARY-OF-TURN-ONE');
    expect(textOf(third)).not.toContain('aaaa');
    expect(textOf(third)).toContain(`turn two ${pad('b')}`);
    expect(textOf(third)).toContain('reply two');
    expect(third.system).toContain('1. [~] first goal');
    expect(third.system).toContain('The project root is');
    // Persisted: the conversation now starts with the summary.
    expect(h.app.agents.messages.live(id).map((m) => m.kind)).toEqual(['summary', 'chat', 'chat', 'chat', 'chat']);
  });

  it('warns once when the window is too small but nothing older can be summarized', async () => {
    h = await harness([{ blocks: [{ type: 'tool_use', name: 'read', input: { path: 'README.md' } }] }, { blocks: [{ type: 'text', text: 'ok' }] }]);
    saveTestProfile(h.app, h.server.url, { contextWindow: 1_000 });
    const id = h.session();
    expect((await h.app.agents.run(id, 'hi')).outcome).toBe('completed');
    const notices = h.events(id, 'notice').filter((n) => n.text.includes('no older turns'));
    expect(notices).toHaveLength(1);
    expect(h.events(id, 'compaction')).toHaveLength(0);
  });
});

describe('step limit (seed 001 §3.8)', () => {
  it('stops with "step limit reached" after the configured number of model calls', async () => {
    h = await harness([{ blocks: [{ type: 'tool_use', name: 'glob', input: { pattern: '*' } }], times: 20 }]);
    h.app.agents.updateSettings({ maxSteps: 3 });
    const id = h.session();
    const r = await h.app.agents.run(id, 'loop forever');
    expect(r).toMatchObject({ outcome: 'step_limit', message: 'step limit reached' });
    expect(h.server.mainRequests()).toHaveLength(3);
    expect(h.events(id, 'turn.ended').at(-1)).toMatchObject({ outcome: 'step_limit', message: 'step limit reached', steps: 3 });
    expect(h.app.agents.getSession(id).lastTurn).toMatchObject({ outcome: 'step_limit', message: 'step limit reached' });
    // The transcript is consistent: every tool call has its result.
    const msgs = h.app.agents.messages.live(id);
    expect(msgs.filter((m) => m.role === 'assistant')).toHaveLength(3);
    expect(msgs.filter((m) => m.role === 'tool')).toHaveLength(3);
  });
});
