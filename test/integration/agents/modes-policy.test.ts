import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, nextApproval, toolThenText, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.cleanup());

describe('modes × tool policy (seed 001 §4–§5)', () => {
  it('plan refuses write and patch with a readable tool result and changes nothing', async () => {
    h = await harness([
      { blocks: [{ type: 'tool_use', name: 'write', input: { path: 'new.txt', content: 'x' } }, { type: 'tool_use', name: 'patch', input: { path: 'README.md', edits: [{ search: 'sample', replace: 'changed' }] } }] },
      { blocks: [{ type: 'text', text: 'Here is the plan instead.' }] },
    ]);
    const id = h.session({ mode: 'plan' });
    expect((await h.app.agents.run(id, 'plan a change')).outcome).toBe('completed');
    const results = h.events(id, 'tool.result');
    expect(results.map((r) => r.isError)).toEqual([true, true]);
    expect(results[0]!.content).toMatch(/^Not run — plan mode: files are not changed/);
    expect(h.events(id, 'tool.decision').map((d) => [d.decision, d.source])).toEqual([
      ['deny', 'mode'],
      ['deny', 'mode'],
    ]);
    expect(existsSync(join(h.repo, 'new.txt'))).toBe(false);
    expect(readFileSync(join(h.repo, 'README.md'), 'utf8')).toBe('# sample\n');
    // The model was told why.
    expect(h.server.mainRequests()[1]!.userText).toContain('plan mode');
  });

  it('plan refuses side-effect commands but runs read-only ones', async () => {
    h = await harness([
      { blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'touch made.txt' } }, { type: 'tool_use', name: 'bash', input: { command: 'git status --short && ls' } }] },
      { blocks: [{ type: 'text', text: 'ok' }] },
    ]);
    const id = h.session({ mode: 'plan' });
    await h.app.agents.run(id, 'look around');
    const [touch, status] = h.events(id, 'tool.result');
    expect(touch).toMatchObject({ isError: true, exitCode: null });
    expect(touch!.content).toContain('plan mode: commands with side effects are not run');
    expect(status).toMatchObject({ isError: false, exitCode: 0 });
    expect(status!.content).toContain('README.md');
    expect(existsSync(join(h.repo, 'made.txt'))).toBe(false);
    expect(h.events(id, 'approval.requested')).toHaveLength(0);
  });

  it('default asks before writing, shows the diff, and writes once approved', async () => {
    h = await harness(toolThenText('write', { path: 'README.md', content: '# changed\n' }));
    const id = h.session();
    const running = h.app.agents.run(id, 'change the readme');
    const a = await nextApproval(h, id);
    expect(a).toMatchObject({ tool: 'write', status: 'pending', risk: 'medium', sessionRule: 'write', summary: 'write README.md', source: 'agent' });
    expect(a.diff).toContain('-# sample');
    expect(a.diff).toContain('+# changed');
    expect(h.app.agents.getSession(id)).toMatchObject({ status: 'awaiting_approval', pendingApprovals: 1 });
    expect(readFileSync(join(h.repo, 'README.md'), 'utf8')).toBe('# sample\n');
    h.app.agents.gate.answer(a.id, 'approve_once');
    expect((await running).outcome).toBe('completed');
    expect(readFileSync(join(h.repo, 'README.md'), 'utf8')).toBe('# changed\n');
    expect(h.events(id, 'approval.resolved')[0]!.approval).toMatchObject({ status: 'approved', decision: 'approve_once' });
  });

  it('an "approve for this session" that lost the race to another answer remembers no rule', async () => {
    h = await harness(toolThenText('write', { path: 'README.md', content: '# changed\n' }));
    const id = h.session();
    const running = h.app.agents.run(id, 'change the readme');
    const a = await nextApproval(h, id);
    const gate = h.app.agents.gate;
    const repo = (gate as unknown as { repo: { get(id: string): unknown; rules(sessionId: string): string[] } }).repo;
    // Another process answers first; this one still holds the pending row it read before.
    const stale = repo.get(a.id);
    gate.answer(a.id, 'approve_once');
    const realGet = repo.get.bind(repo);
    repo.get = (x: string) => (x === a.id ? stale : realGet(x));
    try {
      expect(() => gate.answer(a.id, 'approve_session')).toThrow(/answered at the same time/);
    } finally {
      repo.get = realGet;
    }
    expect(repo.rules(id)).toEqual([]);
    expect((await running).outcome).toBe('completed');
  });

  it('a denial with a reason goes back to the model and nothing runs', async () => {
    h = await harness(toolThenText('bash', { command: 'npm publish' }, 'Understood.'));
    const id = h.session();
    const running = h.app.agents.run(id, 'publish it');
    const a = await nextApproval(h, id);
    expect(a).toMatchObject({ tool: 'bash', summary: 'npm publish', risk: 'high', sessionRule: 'npm publish *' });
    h.app.agents.gate.answer(a.id, 'deny', 'we release from CI only');
    await running;
    const r = h.events(id, 'tool.result')[0]!;
    expect(r.content).toContain('The user denied this call: we release from CI only');
    expect(h.server.mainRequests()[1]!.userText).toContain('we release from CI only');
  });

  it('approve for this session remembers the command family, not the exact string', async () => {
    h = await harness([
      // Inline code (`node -e …`) is remembered exactly (issue 26); a program with file arguments by family.
      { blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'tee one.txt <<< one' } }] },
      { blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'tee two.txt <<< two' } }] },
      { blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'touch other.txt' } }] },
      { blocks: [{ type: 'text', text: 'done' }] },
    ]);
    const id = h.session();
    const running = h.app.agents.run(id, 'run tee twice');
    const first = await nextApproval(h, id);
    expect(first.sessionRule).toBe('tee *');
    h.app.agents.gate.answer(first.id, 'approve_session');
    const third = await nextApproval(h, id);
    expect(third.summary).toBe('touch other.txt');
    h.app.agents.gate.answer(third.id, 'approve_once');
    await running;
    expect(h.events(id, 'tool.decision').map((d) => d.source)).toEqual(['policy', 'session_rule', 'policy']);
    expect(h.events(id, 'tool.result').map((r) => r.content.split('\n')[1])).toEqual(['one', 'two', '(no output)']);
    expect(h.app.agents.gate.rules(id)).toEqual(['tee *']);
  });

  it('auto-edit writes and patches without asking but still asks for commands', async () => {
    h = await harness([
      { blocks: [{ type: 'tool_use', name: 'write', input: { path: 'src/new.ts', content: 'export const a = 1;\n' } }, { type: 'tool_use', name: 'patch', input: { path: 'README.md', edits: [{ search: 'sample', replace: 'patched' }] } }] },
      { blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'touch x.txt' } }] },
      { blocks: [{ type: 'text', text: 'done' }] },
    ]);
    const id = h.session({ mode: 'auto-edit' });
    const running = h.app.agents.run(id, 'add a file');
    const a = await nextApproval(h, id);
    expect(a.tool).toBe('bash');
    h.app.agents.gate.answer(a.id, 'deny');
    await running;
    expect(readFileSync(join(h.repo, 'src/new.ts'), 'utf8')).toBe('export const a = 1;\n');
    expect(readFileSync(join(h.repo, 'README.md'), 'utf8')).toBe('# patched\n');
    expect(h.events(id, 'tool.decision').map((d) => [d.tool, d.decision, d.source])).toEqual([
      ['write', 'allow', 'mode'],
      ['patch', 'allow', 'mode'],
      ['bash', 'ask', 'policy'],
    ]);
    expect(existsSync(join(h.repo, 'x.txt'))).toBe(false);
  });

  it('yolo runs any bash command unasked', async () => {
    h = await harness(toolThenText('bash', { command: 'touch yolo.txt && echo made' }));
    const id = h.session({ mode: 'yolo' });
    await h.app.agents.run(id, 'go');
    expect(h.events(id, 'tool.decision')[0]).toMatchObject({ decision: 'allow', source: 'yolo' });
    expect(h.events(id, 'approval.requested')).toHaveLength(0);
    expect(existsSync(join(h.repo, 'yolo.txt'))).toBe(true);
  });

  it('a switched-off tool is refused before any policy, even in yolo', async () => {
    h = await harness(toolThenText('bash', { command: 'touch nope.txt' }));
    const id = h.session({ mode: 'yolo' });
    h.app.agents.updateSession({ sessionId: id, disabledTools: ['bash'] });
    await h.app.agents.run(id, 'go');
    expect(h.events(id, 'tool.decision')[0]).toMatchObject({ decision: 'deny', source: 'disabled' });
    expect(existsSync(join(h.repo, 'nope.txt'))).toBe(false);
  });

  it('the strict preset asks even for read-only commands; read-only denies writes in any mode', async () => {
    h = await harness([...toolThenText('bash', { command: 'ls' }), ...toolThenText('write', { path: 'a.txt', content: 'x' })]);
    const id = h.session();
    await h.app.agents.run(id, '/permissions strict');
    const running = h.app.agents.run(id, 'list');
    const a = await nextApproval(h, id);
    expect(a.summary).toBe('ls');
    h.app.agents.gate.answer(a.id, 'approve_once');
    await running;
    await h.app.agents.run(id, '/permissions read-only');
    h.app.agents.updateSession({ sessionId: id, mode: 'auto-edit' });
    await h.app.agents.run(id, 'write it');
    expect(h.events(id, 'tool.decision').at(-1)).toMatchObject({ tool: 'write', decision: 'deny' });
    expect(existsSync(join(h.repo, 'a.txt'))).toBe(false);
  });
});
