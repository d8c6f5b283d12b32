import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../agents/harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const bash = (command: string) => ({ match: { userPattern: command }, blocks: [{ type: 'tool_use' as const, name: 'bash', input: { command } }] });
const done = (pattern: string) => ({ match: { userPattern: pattern }, blocks: [{ type: 'text' as const, text: 'Done.' }] });

describe("agents' commands run in terminals", () => {
  it('a bash call gets a terminal owned by its session, with live plain-text output, stdin closed and no credentials', async () => {
    const command = 'printf "\\033[31mred\\033[0m\\n"; read -r answer; echo "read:[$answer]"; echo "key:[${ANTHROPIC_API_KEY:-none}] term:$TERM"; exit 4';
    h = await harness([bash(command), done('exit code 4')]);
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = 'sk-ant-should-never-reach-commands';
    try {
      const id = h.session({ mode: 'yolo' });
      const r = await h.app.agents.run(id, `run ${command}`);
      expect(r.outcome).toBe('completed');
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
    const sessionId = h.app.agents.listSessions()[0]!.id;
    const outputs = h.events(sessionId, 'tool.output');
    const terminalId = outputs.find((o) => o.terminalId)?.terminalId;
    expect(terminalId).toBeDefined();
    const live = outputs.map((o) => o.chunk).join('');
    expect(live).toContain('red\n');
    expect(live).not.toContain('\x1b');
    expect(live).not.toContain('\r');

    const result = h.events(sessionId, 'tool.result')[0]!;
    expect(result.exitCode).toBe(4);
    expect(result.content).toContain('read:[]');
    expect(result.content).toContain('key:[none] term:dumb');
    expect(result.content).not.toContain('sk-ant-should-never-reach-commands');

    // The terminal is listed with its owner and stays readable after the command ended.
    const term = h.app.terminals.get(terminalId!);
    expect(term.owner.sessionId).toBe(sessionId);
    expect(term.kind).toBe('command');
    expect(term.status).toBe('exited');
    expect(term.exitCode).toBe(4);
    const replay = await h.app.terminals.attach(terminalId!, 'test-view');
    expect(replay.data).toContain('read:[]');
  });

  it('cancelling the turn kills the command in its terminal', async () => {
    h = await harness([bash('sleep 30; echo never')]);
    const id = h.session({ mode: 'yolo' });
    const running = h.app.agents.run(id, 'run sleep 30; echo never');
    await expect.poll(() => h!.events(id, 'tool.output').find((o) => o.terminalId)?.terminalId, { timeout: 15_000 }).toBeDefined();
    const terminalId = h.events(id, 'tool.output').find((o) => o.terminalId)!.terminalId!;
    expect(h.app.agents.cancel(id)).toBe(true);
    expect((await running).outcome).toBe('cancelled');
    await expect.poll(() => h!.app.terminals.get(terminalId).status, { timeout: 15_000 }).toBe('exited');
    expect(h.events(id, 'tool.output').map((o) => o.chunk).join('')).not.toContain('never');
  });
});

describe('removing a session', () => {
  it('leaves no event of it behind and closes the terminals of its commands', async () => {
    h = await harness([bash('echo bye'), done('exit code 0')]);
    const id = h.session({ mode: 'yolo' });
    await h.app.agents.run(id, 'run echo bye');
    const terminalId = h.events(id, 'tool.output').find((o) => o.terminalId)!.terminalId!;
    expect(h.app.terminals.list().some((t) => t.id === terminalId)).toBe(true);
    expect(h.app.agents.removeSession(id)).toBe(true);
    await h.app.events.whenFlushed();
    expect(h.app.events.read(id)).toEqual([]);
    expect(h.app.terminals.list().some((t) => t.id === terminalId)).toBe(false);
  });
});
