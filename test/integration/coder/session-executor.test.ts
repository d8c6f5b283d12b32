import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentEventData, type AgentEvent } from '../../../src-preload/contract';
import { AppServices } from '../../../src-main/app/services';
import { silentLogger } from '../../../src-main/platform/logger';
import { startModelServer, type ModelServer, type Script } from '../../fixtures/model-server/index';
import { makeRepo, tempDir } from '../../support/temp';
import { CLAUDE_BIN, requestText, saveScriptedProfile, TEST_KEY } from './support';

interface SessionHarness {
  app: AppServices;
  server: ModelServer;
  repo: string;
  published: AgentEvent[];
  events(sessionId: string): AgentEventData[];
  claudeSession(): string;
  cleanup(): Promise<void>;
}

async function sessionHarness(script: Script): Promise<SessionHarness> {
  const server = await startModelServer({ script });
  const data = tempDir('fd-coder-data-');
  const home = tempDir('fd-coder-home-');
  const repo = makeRepo('fd-coder-session-');
  const app = await AppServices.create({
    dataDir: data.path,
    logger: silentLogger,
    platform: { runtime: 'browser' },
    coderEnv: { HOME: home.path, CLAUDE_CODE_MAX_RETRIES: '0' },
  });
  app.coder.updateSettings({ claudePath: CLAUDE_BIN, idleTimeoutS: 30, maxDurationS: 120 });
  saveScriptedProfile(app, server.url);
  const published: AgentEvent[] = [];
  app.hub.subscribe((e) => {
    if (e.topic === 'agents.event') published.push(e.payload as AgentEvent);
  });
  const h: SessionHarness = {
    app,
    server,
    repo: repo.path,
    published,
    events: (sessionId) => published.filter((e) => e.sessionId === sessionId).map((e) => e.data),
    claudeSession() {
      const s = app.agents.createSession({ root: repo.path });
      app.coder.updateSession({ sessionId: s.id, executor: 'claude-code' });
      return s.id;
    },
    async cleanup() {
      app.dispose();
      await server.close();
      data.cleanup();
      home.cleanup();
      repo.cleanup();
    },
  };
  return h;
}

/** Answers the next approval of a session as soon as it is requested. */
function answerNext(h: SessionHarness, sessionId: string, decision: 'approve_once' | 'deny', reason?: string): Promise<string> {
  return new Promise((resolve) => {
    const off = h.app.hub.subscribe((e) => {
      if (e.topic !== 'agents.approvals.changed') return;
      const a = (e.payload as { approval: { id: string; sessionId: string; status: string; summary: string } }).approval;
      if (a.sessionId !== sessionId || a.status !== 'pending') return;
      off();
      queueMicrotask(() => {
        h.app.agents.gate.answer(a.id, decision, reason);
        resolve(a.summary);
      });
    });
  });
}

let h: SessionHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

// Each test starts the real CLI (a large bundle) one or more times: under a loaded machine a start alone
// has taken over 10 s, so the default 30 s cut tests off mid-turn. Nothing here measures time.
describe('a session whose executor is Claude Code', { timeout: 120_000 }, () => {
  it('streams a turn as ordinary agent events, records its cost, and resumes the conversation next turn', async () => {
    h = await sessionHarness([
      { blocks: [{ type: 'thinking', thinking: 'Planning.' }, { type: 'text', text: 'Hello from Claude Code.' }], usage: { input_tokens: 1000, output_tokens: 100 } },
      { match: { userPattern: 'and again' }, blocks: [{ type: 'text', text: 'Still here.' }] },
    ]);
    const id = h.claudeSession();
    expect(h.app.agents.getSession(id).executor).toBe('claude-code');
    const r = await h.app.agents.run(id, 'say hello');
    expect(r.outcome).toBe('completed');
    const events = h.events(id);
    for (const e of events) expect(AgentEventData.safeParse(e).success).toBe(true);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('turn.started');
    expect(types).toEqual(expect.arrayContaining(['step.started', 'thinking.delta', 'text.delta', 'usage', 'message', 'turn.ended']));
    expect(events.filter((e) => e.type === 'text.delta').map((e) => (e as { text: string }).text).join('')).toBe('Hello from Claude Code.');
    // The transcript holds the user message and the assistant's, persisted by the engine.
    const messages = h.app.agents.messages.live(id);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[1]!.blocks).toEqual([{ type: 'thinking', thinking: 'Planning.', signature: expect.any(String) }, { type: 'text', text: 'Hello from Claude Code.' }]);
    // Cost at the profile's prices: 1000 in × $3/M + 100 out × $15/M.
    expect(h.app.agents.getSession(id).cost.usd).toBeCloseTo(0.0045, 6);
    // The profile reached the CLI: model and key (as a bearer token: custom preset).
    expect((h.server.mainRequests()[0]!.body as { model: string }).model).toBe('glm-4.7');
    expect(h.server.mainRequests()[0]!.authorization).toBe(`Bearer ${TEST_KEY}`);
    const cfg = h.app.coder.sessionConfig(id);
    expect(cfg.claudeSessionId).toMatch(/^[0-9a-f-]{36}$/);

    const r2 = await h.app.agents.run(id, 'and again');
    expect(r2.outcome).toBe('completed');
    expect(h.app.coder.sessionConfig(id).claudeSessionId).toBe(cfg.claudeSessionId);
    expect(requestText(h.server.mainRequests()[1]!.body)).toContain('Hello from Claude Code.');
    expect(JSON.stringify(h.published)).not.toContain(TEST_KEY);
  });

  it('asks for approval of a write in default mode; approved, the file is written and shown as a tool card', async () => {
    h = await sessionHarness([
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: 'src/new.ts', content: 'export const x = 1;\n' } }] },
      { match: { userPattern: 'File created successfully' }, blocks: [{ type: 'text', text: 'Wrote src/new.ts.' }] },
    ]);
    const id = h.claudeSession();
    const answered = answerNext(h, id, 'approve_once');
    const r = await h.app.agents.run(id, 'create src/new.ts');
    expect(await answered).toBe('write src/new.ts');
    expect(r.outcome).toBe('completed');
    expect(readFileSync(join(h.repo, 'src/new.ts'), 'utf8')).toBe('export const x = 1;\n');
    const events = h.events(id);
    const requested = events.find((e) => e.type === 'approval.requested');
    expect(requested).toMatchObject({ approval: { tool: 'write', source: 'claude-code', diff: expect.stringContaining('+export const x = 1;') } });
    expect(events.find((e) => e.type === 'tool.decision')).toMatchObject({ tool: 'write', decision: 'ask' });
    expect(events.find((e) => e.type === 'tool.started')).toMatchObject({ tool: 'write' });
    expect(events.find((e) => e.type === 'tool.result')).toMatchObject({ tool: 'write', isError: false });
    expect(events.map((e) => e.type === 'status' && e.status)).toContain('awaiting_approval');
  });

  it('a denied write does not run: the file is absent and the model reads the reason', async () => {
    h = await sessionHarness([
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: 'nope.txt', content: 'x' } }] },
      { match: { userPattern: 'wrong file' }, blocks: [{ type: 'text', text: 'Understood, not writing.' }] },
    ]);
    const id = h.claudeSession();
    const answered = answerNext(h, id, 'deny', 'wrong file');
    const r = await h.app.agents.run(id, 'write nope.txt');
    await answered;
    expect(r.outcome).toBe('completed');
    expect(existsSync(join(h.repo, 'nope.txt'))).toBe(false);
    expect(h.events(id).find((e) => e.type === 'tool.result')).toMatchObject({ isError: true, content: expect.stringContaining('wrong file') });
    expect(h.server.pendingTurns()).toBe(0);
  });

  it('plan mode runs Claude Code read-only', async () => {
    h = await sessionHarness([{ blocks: [{ type: 'text', text: 'A plan.' }] }]);
    const id = h.claudeSession();
    h.app.agents.updateSession({ sessionId: id, mode: 'plan' });
    await h.app.agents.run(id, 'plan it');
    const tools = (h.server.mainRequests()[0]!.body as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(tools).not.toContain('Write');
  });

  it('injects the constraints on the first turn of a conversation and shows which', async () => {
    h = await sessionHarness([{ blocks: [{ type: 'text', text: 'ok' }] }]);
    mkdirSync(join(h.repo, 'ai/contracts'), { recursive: true });
    writeFileSync(join(h.repo, 'ai/contracts/current.md'), '# Contract\nZebra scope only.\n');
    const id = h.claudeSession();
    await h.app.agents.run(id, 'do the zebra task');
    expect(requestText(h.server.mainRequests()[0]!.body)).toContain('Zebra scope only.');
    expect(h.app.coder.sessionConfig(id).injected.map((f) => f.path)).toEqual(['ai/contracts/current.md']);
    expect(h.events(id).find((e) => e.type === 'notice' && e.text.includes('ai/contracts/current.md'))).toBeTruthy();
    const info = await h.app.coder.constraints(h.repo);
    expect(info.files.map((f) => [f.path, f.exists])).toEqual([
      ['ai/contracts/current.md', true],
      ['ai/implementer_guardrails.md', false],
      ['ai/engineering_codex.md', false],
    ]);
  });

  it('reports a failure with its error kind, and ! commands stay with the engine', async () => {
    h = await sessionHarness([{ fault: { kind: 'status', status: 529 }, times: 3 }]);
    const id = h.claudeSession();
    const r = await h.app.agents.run(id, 'hello');
    expect(r.outcome).toBe('failed');
    expect(h.events(id).find((e) => e.type === 'error')).toMatchObject({ code: 'upstream_error', retryable: true });
    const bang = await h.app.agents.run(id, '!echo from-the-engine');
    expect(bang.outcome).toBe('completed');
    expect(h.server.mainRequests()).toHaveLength(1);
  });

  it('cancel stops the CLI and ends the turn as cancelled', async () => {
    h = await sessionHarness([{ fault: { kind: 'stall', ms: 30_000 }, blocks: [{ type: 'text', text: 'late' }] }]);
    const id = h.claudeSession();
    const running = h.app.agents.run(id, 'take your time');
    while (h.server.mainRequests().length === 0) await new Promise((r) => setTimeout(r, 50));
    expect(h.app.agents.cancel(id)).toBe(true);
    const r = await running;
    expect(r.outcome).toBe('cancelled');
  });

  it('the plan-mode coder tool delegates a step and returns the seed result; inner writes still ask', async () => {
    h = await sessionHarness([
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: 'step1.txt', content: 'done\n' } }] },
      { match: { userPattern: 'File created successfully' }, blocks: [{ type: 'text', text: 'Step 1 implemented.' }] },
    ]);
    const s = h.app.agents.createSession({ root: h.repo, mode: 'plan' });
    const answered = answerNext(h, s.id, 'approve_once');
    const out = await h.app.coder.runPlanTool({ PROMPT: 'Implement step 1: create step1.txt' }, { sessionId: s.id, turnId: null, signal: new AbortController().signal });
    expect(await answered).toBe('write step1.txt');
    expect(out.isError).toBe(false);
    expect(JSON.parse(out.content)).toEqual({ success: true, tool: 'coder', SESSION_ID: expect.any(String), result: 'Step 1 implemented.' });
    expect(readFileSync(join(h.repo, 'step1.txt'), 'utf8')).toBe('done\n');
    const refused = await h.app.coder.runPlanTool({ PROMPT: 'x', sandbox: 'danger-full-access' }, { sessionId: s.id, turnId: null, signal: new AbortController().signal });
    expect(JSON.parse(refused.content)).toMatchObject({ success: false, error_kind: 'config_error' });
    const bad = await h.app.coder.runPlanTool({ PROMPT: 'x', cd: '/elsewhere' }, { sessionId: s.id, turnId: null, signal: new AbortController().signal });
    expect(JSON.parse(bad.content)).toMatchObject({ success: false, error_kind: 'config_error', error: expect.stringContaining('unknown parameter: cd') });
  });

  it('a built-in plan-mode turn calls the coder tool: the delegation asks, Claude Code writes (asking again), the loop reads the seed result', async () => {
    h = await sessionHarness([
      { match: { userPattern: 'Delegate step 1' }, blocks: [{ type: 'tool_use', name: 'coder', input: { PROMPT: 'Implement step 1: create step1.txt' } }] },
      { match: { userPattern: 'Implement step 1' }, blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: 'step1.txt', content: 'done\n' } }] },
      { match: { userPattern: 'File created successfully' }, blocks: [{ type: 'text', text: 'Step 1 implemented.' }] },
      { match: { userPattern: 'Step 1 implemented' }, blocks: [{ type: 'text', text: 'Delegated and verified.' }] },
    ]);
    const s = h.app.agents.createSession({ root: h.repo, mode: 'plan' });
    const summaries: string[] = [];
    const off = h.app.hub.subscribe((e) => {
      if (e.topic !== 'agents.approvals.changed') return;
      const a = (e.payload as { approval: { id: string; sessionId: string; status: string; summary: string } }).approval;
      if (a.sessionId !== s.id || a.status !== 'pending') return;
      summaries.push(a.summary);
      queueMicrotask(() => h!.app.agents.gate.answer(a.id, 'approve_once'));
    });
    const r = await h.app.agents.run(s.id, 'Delegate step 1 to Claude Code please');
    off();
    expect(r.outcome).toBe('completed');
    // The model was offered the tool in plan mode.
    const first = h.server.mainRequests().find((q) => requestText(q.body).includes('Delegate step 1'))!;
    expect(((first.body as { tools: Array<{ name: string }> }).tools).map((t) => t.name)).toContain('coder');
    expect(summaries).toEqual(['coder: Implement step 1: create step1.txt', 'write step1.txt']);
    expect(readFileSync(join(h.repo, 'step1.txt'), 'utf8')).toBe('done\n');
    const result = h.events(s.id).find((e) => e.type === 'tool.result' && e.tool === 'coder') as { content: string; isError: boolean } | undefined;
    expect(result?.isError).toBe(false);
    expect(JSON.parse(result!.content)).toMatchObject({ success: true, tool: 'coder', result: 'Step 1 implemented.' });
    expect(h.events(s.id).some((e) => e.type === 'text.delta' && e.text.includes('Delegated'))).toBe(true);
  });

  it('outside plan mode the coder tool is not offered, and a denied delegation never starts Claude Code', async () => {
    h = await sessionHarness([
      { match: { userPattern: 'Delegate' }, blocks: [{ type: 'tool_use', name: 'coder', input: { PROMPT: 'Create never.txt' } }] },
      { match: { userPattern: 'Not now' }, blocks: [{ type: 'text', text: 'Understood.' }] },
    ]);
    const d = h.app.agents.createSession({ root: h.repo, mode: 'default' });
    await h.app.agents.run(d.id, 'hello');
    const tools = (h.server.mainRequests().at(-1)!.body as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(tools).not.toContain('coder');

    const p = h.app.agents.createSession({ root: h.repo, mode: 'plan' });
    const before = h.server.mainRequests().length;
    const denied = answerNext(h, p.id, 'deny', 'Not now');
    const r = await h.app.agents.run(p.id, 'Delegate this');
    expect(await denied).toBe('coder: Create never.txt');
    expect(r.outcome).toBe('completed');
    expect(existsSync(join(h.repo, 'never.txt'))).toBe(false);
    // Only the loop's two calls reached the server: Claude Code never ran.
    expect(h.server.mainRequests().length - before).toBe(2);
    expect(h.server.mainRequests().some((q) => requestText(q.body).includes('Create never.txt') && (q.headers['x-app'] === 'cli'))).toBe(false);
  });
});
