import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/temp';
import { harness, nextApproval, toolThenText, type Harness } from './harness';

let h: Harness;
const extra: Array<{ cleanup(): void }> = [];
afterEach(async () => {
  await h?.cleanup();
  for (const d of extra.splice(0)) d.cleanup();
});

describe('bang commands (seed 001 §6)', () => {
  it('outside yolo a side-effect command goes through policy and approval, without a model request', async () => {
    h = await harness();
    const id = h.session();
    const running = h.app.agents.run(id, '!echo hello > greeting.txt && cat greeting.txt');
    const a = await nextApproval(h, id);
    expect(a).toMatchObject({ tool: 'bash', source: 'bang', summary: 'echo hello > greeting.txt && cat greeting.txt' });
    h.app.agents.gate.answer(a.id, 'approve_once');
    const r = await running;
    expect(r.outcome).toBe('completed');
    const result = h.events(id, 'command.result')[0]!;
    expect(result).toMatchObject({ kind: 'bang', ok: true, exitCode: 0 });
    expect(result.text).toBe('$ echo hello > greeting.txt && cat greeting.txt\nhello\n[exit code 0]');
    expect(h.events(id, 'tool.output').map((o) => o.chunk).join('')).toBe('hello\n');
    expect(h.server.requests).toHaveLength(0);
    // Kept in the conversation for the model's next turn.
    const m = h.app.agents.messages.live(id).at(-1)!;
    expect(m).toMatchObject({ role: 'user', kind: 'command' });
  });

  it('read-only commands run at once; a denied one reports it; exit codes come back', async () => {
    h = await harness();
    const id = h.session();
    await h.app.agents.run(id, '!git status --short');
    expect(h.events(id, 'approval.requested')).toHaveLength(0);
    const running = h.app.agents.run(id, '!touch f.txt');
    h.app.agents.gate.answer((await nextApproval(h, id)).id, 'deny', 'not now');
    expect((await running).outcome).toBe('failed');
    expect(h.events(id, 'command.result').at(-1)).toMatchObject({ ok: false, exitCode: null });
    expect(h.events(id, 'command.result').at(-1)!.text).toContain('The user denied this call: not now');
    expect(existsSync(join(h.repo, 'f.txt'))).toBe(false);
    h.app.agents.updateSession({ sessionId: id, mode: 'yolo' });
    const r = await h.app.agents.run(id, '!echo out; echo err >&2; exit 3');
    expect(r.outcome).toBe('failed');
    expect(h.events(id, 'command.result').at(-1)).toMatchObject({ ok: false, exitCode: 3 });
    expect(h.events(id, 'command.result').at(-1)!.text).toMatch(/out\n(.|\n)*err/);
  });

  it('in yolo a bang command runs without asking; an empty one explains the usage', async () => {
    h = await harness();
    const id = h.session({ mode: 'yolo' });
    await h.app.agents.run(id, '!touch yolo-bang.txt');
    expect(h.events(id, 'tool.decision')[0]).toMatchObject({ decision: 'allow', source: 'yolo' });
    expect(existsSync(join(h.repo, 'yolo-bang.txt'))).toBe(true);
    expect((await h.app.agents.run(id, '!   ')).outcome).toBe('failed');
    expect(h.events(id, 'command.result').at(-1)!.text).toContain('Usage: !<command>');
  });
});

describe('hard floor', () => {
  // Commands chosen to be harmless even if they did run (no remote to push to, no psql here),
  // so a broken floor fails the assertions instead of damaging the machine.
  const FLOORED = ['git push --force origin main', "bash -c 'git push -f origin master'", 'psql -c "DROP DATABASE prod"', 'echo x | sudo -n true && git push origin +main'];

  it('denies catastrophic commands in yolo, for the model and for bang commands', async () => {
    h = await harness(FLOORED.flatMap((c) => toolThenText('bash', { command: c })));
    const id = h.session({ mode: 'yolo' });
    for (const c of FLOORED) await h.app.agents.run(id, `please run ${c}`);
    await h.app.agents.run(id, '!git push -f origin main');
    const decisions = h.events(id, 'tool.decision');
    expect(decisions).toHaveLength(FLOORED.length + 1);
    for (const d of decisions) expect(d).toMatchObject({ decision: 'deny', source: 'hard_floor', risk: 'critical' });
    expect(h.events(id, 'tool.output')).toHaveLength(0);
    expect(h.events(id, 'tool.result')[0]!.content).toContain('Refused by the hard floor: force push to the base branch main');
  });

  it('applies to other executors through decide(), and can be turned off in settings', async () => {
    h = await harness();
    const id = h.session({ mode: 'yolo' });
    expect(await h.app.agents.decide({ sessionId: id, tool: 'Bash', input: { command: 'git push --force origin main' }, source: 'claude-code' })).toMatchObject({ allow: false });
    h.app.agents.updateSettings({ hardFloor: false });
    expect(await h.app.agents.decide({ sessionId: id, tool: 'Bash', input: { command: 'git push --force origin main' } })).toMatchObject({ allow: true });
    const r = await h.app.agents.run(id, '!git push --force origin main');
    // It really ran (and failed: there is no remote).
    expect(h.events(id, 'command.result').at(-1)).toMatchObject({ exitCode: 128 });
    expect(r.outcome).toBe('failed');
  });
});

describe('file tools cannot leave the root', () => {
  it('refuses ../, absolute paths elsewhere and symlinks out, for read, write and patch', async () => {
    const outside = tempDir('fd-outside-');
    extra.push(outside);
    writeFileSync(join(outside.path, 'secret.txt'), 'TOP SECRET');
    h = await harness([
      {
        blocks: [
          { type: 'tool_use', name: 'read', input: { path: '../secret.txt' } },
          { type: 'tool_use', name: 'read', input: { path: join(outside.path, 'secret.txt') } },
          { type: 'tool_use', name: 'read', input: { path: 'out/secret.txt' } },
          { type: 'tool_use', name: 'write', input: { path: 'out/new.txt', content: 'x' } },
          { type: 'tool_use', name: 'write', input: { path: '../escaped.txt', content: 'x' } },
          { type: 'tool_use', name: 'patch', input: { path: 'out/secret.txt', edits: [{ search: 'TOP', replace: 'NOT' }] } },
          { type: 'tool_use', name: 'grep', input: { pattern: 'SECRET', path: 'out' } },
          { type: 'tool_use', name: 'glob', input: { pattern: '**/*', path: '..' } },
        ],
      },
      { blocks: [{ type: 'text', text: 'blocked' }] },
    ]);
    symlinkSync(outside.path, join(h.repo, 'out'));
    const id = h.session({ mode: 'yolo' });
    await h.app.agents.run(id, 'try to escape');
    const results = h.events(id, 'tool.result');
    expect(results).toHaveLength(8);
    for (const r of results) {
      expect(r.isError, r.tool).toBe(true);
      expect(r.content).toMatch(/outside the session root|symbolic link/);
      expect(r.content).not.toContain('TOP SECRET');
    }
    expect(existsSync(join(outside.path, 'new.txt'))).toBe(false);
    expect(existsSync(join(h.repo, '..', 'escaped.txt'))).toBe(false);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(outside.path, 'secret.txt'), 'utf8')).toBe('TOP SECRET');
  });

  it('grep and glob do not follow symlinks out of the root', async () => {
    const outside = tempDir('fd-outside-');
    extra.push(outside);
    writeFileSync(join(outside.path, 'leak.txt'), 'TOP SECRET');
    h = await harness([{ blocks: [{ type: 'tool_use', name: 'grep', input: { pattern: 'SECRET' } }, { type: 'tool_use', name: 'glob', input: { pattern: '**/*.txt' } }] }, { blocks: [{ type: 'text', text: 'ok' }] }]);
    mkdirSync(join(h.repo, 'inner'));
    writeFileSync(join(h.repo, 'inner', 'mine.txt'), 'my SECRET');
    symlinkSync(outside.path, join(h.repo, 'link'));
    const id = h.session();
    await h.app.agents.run(id, 'search');
    const [grep, glob] = h.events(id, 'tool.result');
    expect(grep!.content).toBe('inner/mine.txt:1: my SECRET');
    expect(glob!.content).toBe('inner/mine.txt');
  });
});
