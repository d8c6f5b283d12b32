/**
 * The SessionDriver against the scripted model server, for both executors: a role's tools, the
 * Coder guard in yolo mode with the hard floor off, and a per-turn report (text, tool calls,
 * this turn's usage and cost) that features, the mailbox and autopilot build on.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppServices } from '../../../src-main/app/services';
import { silentLogger } from '../../../src-main/platform/logger';
import { startModelServer, type ModelServer, type Script } from '../../fixtures/model-server/index';
import { makeRepo, tempDir } from '../../support/temp';
import { CLAUDE_BIN } from '../coder/support';
import { saveTestProfile } from './harness';

interface Harness {
  app: AppServices;
  server: ModelServer;
  repo: string;
  cleanup(): Promise<void>;
}

async function harness(script: Script): Promise<Harness> {
  const server = await startModelServer({ script });
  const data = tempDir('fd-driver-data-');
  const home = tempDir('fd-driver-home-');
  const repo = makeRepo('fd-driver-repo-');
  const app = await AppServices.create({ dataDir: data.path, logger: silentLogger, platform: { runtime: 'browser' }, coderEnv: { HOME: home.path, CLAUDE_CODE_MAX_RETRIES: '0' } });
  app.coder.updateSettings({ claudePath: CLAUDE_BIN, idleTimeoutS: 30, maxDurationS: 120 });
  saveTestProfile(app, server.url);
  return {
    app,
    server,
    repo: repo.path,
    async cleanup() {
      app.dispose();
      await server.close();
      data.cleanup();
      home.cleanup();
      repo.cleanup();
    },
  };
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const toolNames = (body: unknown) => ((body as { tools?: Array<{ name: string }> }).tools ?? []).map((t) => t.name);

describe.each([
  ['builtin', { write: 'write', bash: 'bash', writeInput: { path: 'out.txt', content: 'from the coder\n' } }],
  ['claude-code', { write: 'Write', bash: 'Bash', writeInput: { file_path: 'out.txt', content: 'from the coder\n' } }],
] as const)('SessionDriver with the %s executor', (executor, names) => {
  it('a Coder turn writes a file and reports text, tool calls, usage and cost of that turn only', async () => {
    h = await harness([
      { blocks: [{ type: 'tool_use', name: names.write, input: names.writeInput }], usage: { input_tokens: 1000, output_tokens: 100 } },
      { blocks: [{ type: 'text', text: 'Done.\n```yaml\nresult: pass\n```' }], usage: { input_tokens: 2000, output_tokens: 200 } },
      { blocks: [{ type: 'text', text: 'Second turn.' }], usage: { input_tokens: 500, output_tokens: 10 } },
    ]);
    const s = h.app.driver.createSession({ root: h.repo, role: 'coder', executor, mode: 'yolo', title: 'coder' });
    expect(s.executor ?? 'builtin').toBe(executor);
    const r = await h.app.driver.runTurn(s.id, 'write out.txt');
    expect(r.outcome).toBe('completed');
    expect(readFileSync(join(h.repo, 'out.txt'), 'utf8')).toBe('from the coder\n');
    expect(r.finalText).toContain('result: pass');
    expect(r.toolCalls).toHaveLength(1);
    expect(r.toolCalls[0]!.isError).toBe(false);
    expect(r.modelCalls).toBe(2);
    expect(r.usage.inputTokens).toBe(3000);
    expect(r.costUsd).toBeCloseTo((3000 * 3 + 300 * 15) / 1e6, 8);
    const r2 = await h.app.driver.runTurn(s.id, 'again');
    expect(r2.text).toBe('Second turn.');
    expect(r2.modelCalls).toBe(1);
    expect(r2.usage.inputTokens).toBe(500);
  });

  it("the session's standing instructions are in the system prompt of every turn", async () => {
    h = await harness([{ blocks: [{ type: 'text', text: 'one' }] }, { blocks: [{ type: 'text', text: 'two' }] }]);
    const s = h.app.driver.createSession({ root: h.repo, role: 'planner', executor, mode: 'yolo', instructions: 'Answer only with ZEBRA-7 plans.' });
    await h.app.driver.runTurn(s.id, 'first');
    await h.app.driver.runTurn(s.id, 'second');
    const systems = h.server.mainRequests().map((r) => JSON.stringify((r.body as { system?: unknown }).system ?? ''));
    expect(systems).toHaveLength(2);
    for (const sys of systems) expect(sys).toContain('ZEBRA-7');
    // Not a chat message: the transcript holds only what was said.
    expect(JSON.stringify(h.app.agents.messages.live(s.id))).not.toContain('ZEBRA-7');
  });

  it('a turn given new instructions uses them from that turn on (a continued mailbox task brings its own context)', async () => {
    h = await harness([{ blocks: [{ type: 'text', text: 'one' }] }, { blocks: [{ type: 'text', text: 'two' }] }]);
    const s = h.app.driver.createSession({ root: h.repo, role: 'coder', executor, mode: 'yolo', instructions: 'OLD-BRIEF-1' });
    await h.app.driver.runTurn(s.id, 'first');
    await h.app.driver.runTurn(s.id, 'second', { instructions: 'NEW-BRIEF-2' });
    const systems = h.server.mainRequests().map((r) => JSON.stringify((r.body as { system?: unknown }).system ?? ''));
    expect(systems).toHaveLength(2);
    expect(systems[0]).toContain('OLD-BRIEF-1');
    expect(systems[1]).toContain('NEW-BRIEF-2');
    expect(systems[1]).not.toContain('OLD-BRIEF-1');
    expect(JSON.stringify(h.app.agents.messages.live(s.id))).not.toContain('BRIEF');
  });

  it("a Coder's force push is refused by the role guard even in yolo mode with the hard floor off", async () => {
    h = await harness([
      { blocks: [{ type: 'tool_use', name: names.bash, input: { command: 'git push --force origin feature/x' } }] },
      { blocks: [{ type: 'text', text: 'Understood.' }] },
    ]);
    h.app.agents.updateSettings({ hardFloor: false });
    const s = h.app.driver.createSession({ root: h.repo, role: 'coder', executor, mode: 'yolo' });
    const r = await h.app.driver.runTurn(s.id, 'push');
    expect(r.outcome).toBe('completed');
    expect(r.toolCalls[0]!.isError).toBe(true);
    expect(r.toolCalls[0]!.output).toContain("Coder role's guard");
  });

  it('a Planner cannot write: the write tool is off (not offered, or refused)', async () => {
    h = await harness([
      { blocks: [{ type: 'tool_use', name: names.write, input: names.writeInput }] },
      { blocks: [{ type: 'text', text: 'I only read.' }] },
    ]);
    const s = h.app.driver.createSession({ root: h.repo, role: 'planner', executor, mode: 'yolo' });
    await h.app.driver.runTurn(s.id, 'plan');
    expect(existsSync(join(h.repo, 'out.txt'))).toBe(false);
    if (executor === 'builtin') expect(toolNames(h.server.mainRequests()[0]!.body)).toEqual(expect.arrayContaining(['read', 'glob', 'grep']));
    if (executor === 'builtin') expect(toolNames(h.server.mainRequests()[0]!.body)).not.toContain('write');
  });
});

describe('SessionDriver placement', () => {
  it("with a project, the session works in the folder given (the project's worktree), never in its checkout", async () => {
    h = await harness([
      { blocks: [{ type: 'tool_use', name: 'write', input: { path: 'here.txt', content: 'wt\n' } }] },
      { blocks: [{ type: 'text', text: 'ok' }] },
    ]);
    const project = await h.app.projects.add(h.repo);
    const wt = join(h.repo, '.trees', 'x');
    execFileSync('git', ['worktree', 'add', '-q', '-b', 'feature/x', wt], { cwd: h.repo });
    const s = h.app.driver.createSession({ root: wt, projectId: project.id, role: 'coder', executor: 'builtin', mode: 'yolo' });
    expect(s.root).toBe(realpathSync(wt));
    expect(s.projectId).toBe(project.id);
    await h.app.driver.runTurn(s.id, 'write');
    expect(readFileSync(join(wt, 'here.txt'), 'utf8')).toBe('wt\n');
    expect(existsSync(join(h.repo, 'here.txt'))).toBe(false);
  });
});

describe('SessionDriver cancellation', () => {
  it('an aborted signal cancels the running turn', async () => {
    h = await harness([{ delayMs: 20_000, blocks: [{ type: 'text', text: 'late' }] }]);
    const s = h.app.driver.createSession({ root: h.repo, role: 'coder', executor: 'builtin', mode: 'yolo' });
    const ac = new AbortController();
    const p = h.app.driver.runTurn(s.id, 'slow', { signal: ac.signal });
    // Abort once the model request is in flight.
    while (h.server.mainRequests().length === 0) await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    const r = await p;
    expect(r.outcome).toBe('cancelled');
  });
});
