/**
 * Issue 25 §1: MCP servers configured once. A real MCP server (test/fixtures/mcp, the official
 * SDK) over stdio and streamable HTTP: tools listed, the built-in loop offers them as
 * mcp__SERVER__TOOL and runs a call only after approval (one approved, one denied), a server
 * that dies is reported and restarted once, and a secret env or header value never shows up in
 * logs, events or anything the renderer receives.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src-preload/contract';
import { AppServices } from '../../../src-main/app/services';
import type { Logger } from '../../../src-main/platform/logger';
import { startModelServer, type ModelServer, type Script } from '../../fixtures/model-server/index.js';
import { fixtureCommand, startHttpFixture } from '../../fixtures/mcp/index';
import { makeRepo, tempDir } from '../../support/temp';
import { saveTestProfile, waitFor } from '../agents/harness';

const SECRET = 'mcp-secret-7c1e2a9b44f0d3e8';
const ctx = { origin: 'test' as const, connectionId: 't' };

/** Every log line, with its fields, as text. */
function capturingLogger(lines: string[]): Logger {
  const make = (scope: string): Logger => {
    const put = (level: string) => (msg: string, fields?: Record<string, unknown>) => lines.push(`${level} ${scope} ${msg} ${JSON.stringify(fields ?? {}, (_k, v: unknown) => (v instanceof Error ? `${v.message} ${v.stack}` : v))}`);
    return { debug: put('debug'), info: put('info'), warn: put('warn'), error: put('error'), child: (s) => make(`${scope}.${s}`) };
  };
  return make('app');
}

interface Env {
  app: AppServices;
  server: ModelServer;
  repo: string;
  logs: string[];
  /** Every hub publication (what the renderer receives), as JSON. */
  published: string[];
  agentEvents: AgentEvent[];
  cleanup(): Promise<void>;
}

let env: Env | null = null;
afterEach(async () => {
  await env?.cleanup();
  env = null;
});

async function setup(script: Script): Promise<Env> {
  const server = await startModelServer({ script });
  const data = tempDir('fd-mcp-data-');
  const repo = makeRepo('fd-mcp-repo-');
  const logs: string[] = [];
  const app = await AppServices.create({ dataDir: data.path, logger: capturingLogger(logs), platform: { runtime: 'browser' } });
  const published: string[] = [];
  const agentEvents: AgentEvent[] = [];
  app.hub.subscribe((e) => {
    published.push(JSON.stringify(e));
    if (e.topic === 'agents.event') agentEvents.push(e.payload as AgentEvent);
  });
  saveTestProfile(app, server.url);
  return {
    app,
    server,
    repo: repo.path,
    logs,
    published,
    agentEvents,
    async cleanup() {
      await app.mcp.close();
      app.dispose();
      await server.close();
      data.cleanup();
      repo.cleanup();
    },
  };
}

function events<T extends AgentEvent['data']['type']>(e: Env, sessionId: string, type: T): Array<Extract<AgentEvent['data'], { type: T }>> {
  return e.agentEvents.filter((x) => x.sessionId === sessionId && x.data.type === type).map((x) => x.data) as never;
}

const use = (name: string, input: Record<string, unknown>) => ({ blocks: [{ type: 'tool_use' as const, name, input }] });
const text = (t: string) => ({ blocks: [{ type: 'text' as const, text: t }] });

function expectNoSecret(e: Env): void {
  expect(e.logs.join('\n')).not.toContain(SECRET);
  expect(e.published.join('\n')).not.toContain(SECRET);
  expect(JSON.stringify(e.app.mcp.list())).not.toContain(SECRET);
  // What the model was sent (requests to the stand-in server) never carries it either.
  expect(JSON.stringify(e.server.requests)).not.toContain(SECRET);
}

describe('MCP servers over stdio', () => {
  it('lists the tools, offers them prefixed, runs an approved call, refuses a denied one, and keeps the secret out of everything', async () => {
    env = await setup([use('mcp__fixture__echo', { text: 'hello mcp' }), use('mcp__fixture__secret_check', {}), text('both done'), use('mcp__fixture__echo', { text: 'again' }), text('denied then')]);
    const { command, args } = fixtureCommand();
    const added = await env.app.router.dispatch('mcp.add', { transport: 'stdio', name: 'fixture', command, args, env: { FIXTURE_SECRET: SECRET } }, ctx);
    expect(added).toMatchObject({ ok: true, value: { name: 'fixture', envNames: ['FIXTURE_SECRET'], status: 'stopped' } });

    const tested = (await env.app.router.dispatch('mcp.test', { name: 'fixture' }, ctx)) as { ok: true; value: { ok: boolean; tools: Array<{ name: string }> } };
    expect(tested.value.ok).toBe(true);
    expect(tested.value.tools.map((t) => t.name).sort()).toEqual(['crash', 'echo', 'secret_check']);
    expect(env.app.mcp.get('fixture').status).toBe('running');

    const id = env.app.agents.createSession({ root: env.repo }).id;
    const turn = env.app.agents.run(id, 'use the fixture');
    const first = await waitFor(() => env!.app.agents.gate.pending(id)[0], 'the echo approval', 60_000);
    expect(first.tool).toBe('mcp__fixture__echo');
    // The model was offered the server's tools under the prefix, with their input schema.
    const offered = (env.server.mainRequests()[0]!.body as { tools: Array<{ name: string; input_schema: { properties?: Record<string, unknown> } }> }).tools;
    expect(offered.find((t) => t.name === 'mcp__fixture__echo')?.input_schema.properties).toHaveProperty('text');
    env.app.agents.gate.answer(first.id, 'approve_once');
    const second = await waitFor(() => env!.app.agents.gate.pending(id).find((a) => a.id !== first.id), 'the secret_check approval', 60_000);
    env.app.agents.gate.answer(second.id, 'approve_session');
    await turn;
    const results = events(env, id, 'tool.result');
    expect(results.map((r) => [r.tool, r.isError, r.content])).toEqual([
      ['mcp__fixture__echo', false, 'echo: hello mcp'],
      ['mcp__fixture__secret_check', false, `secret present, ${SECRET.length} characters`],
    ]);

    // Denied: the server is never called, the model is told.
    const again = env.app.agents.run(id, 'once more');
    const third = await waitFor(() => env!.app.agents.gate.pending(id)[0], 'the second echo approval', 60_000);
    env.app.agents.gate.answer(third.id, 'deny', 'not now');
    await again;
    const denied = events(env, id, 'tool.result').at(-1)!;
    expect(denied).toMatchObject({ tool: 'mcp__fixture__echo', isError: true });
    expect(denied.content).toContain('The user denied this call: not now');

    // Set to always deny in Settings: refused without asking; set to always allow: runs unasked.
    expect(await env.app.router.dispatch('mcp.setToolPolicy', { name: 'fixture', tool: 'echo', policy: 'deny' }, ctx)).toMatchObject({ ok: true, value: { toolPolicy: { echo: 'deny' } } });
    env.server.setScript([use('mcp__fixture__echo', { text: 'refused' }), text('refused then'), use('mcp__fixture__echo', { text: 'allowed' }), text('allowed then')]);
    await env.app.agents.run(id, 'try denied');
    expect(events(env, id, 'tool.decision').at(-1)).toMatchObject({ tool: 'mcp__fixture__echo', decision: 'deny', reason: 'mcp__fixture__echo is set to Deny (Settings → MCP servers).' });
    expect(events(env, id, 'tool.result').at(-1)).toMatchObject({ isError: true, content: expect.stringContaining('is set to Deny') });
    env.app.mcp.setToolPolicy('fixture', 'echo', 'allow');
    await env.app.agents.run(id, 'try allowed');
    expect(events(env, id, 'tool.decision').at(-1)).toMatchObject({ decision: 'allow', reason: 'mcp__fixture__echo is set to Allow (Settings → MCP servers).' });
    expect(events(env, id, 'tool.result').at(-1)).toMatchObject({ isError: false, content: 'echo: allowed' });
    expect(env.app.agents.gate.pending(id)).toEqual([]);
    // Back to ask: the decision is the user's again.
    expect(env.app.mcp.setToolPolicy('fixture', 'echo', 'ask').toolPolicy).toEqual({});
    expect(env.app.agents.gate.evaluate(id, 'mcp__fixture__echo', { text: 'x' }, 'default').decision).toBe('ask');
    // A session placed in a container is offered none: its servers would run here, on the host,
    // outside the isolation the placement promises.
    const offeredTo = (sid: string) => (env!.app.agents.extraTools?.(sid, 'default') ?? []).map((t) => t.spec.name);
    const placed = env.app.agents.createSession({ root: env.repo }).id;
    expect(offeredTo(placed)).toContain('mcp__fixture__echo');
    await env.app.containers.setPlacement(placed, { image: 'flightdeck-test', limits: { memoryBytes: 128 * 1024 * 1024, cpus: 0.5, pids: 128 }, network: 'none', gpus: { kind: 'none' } } as Parameters<typeof env.app.containers.setPlacement>[1]);
    expect(offeredTo(placed)).not.toContain('mcp__fixture__echo');
    expect(await env.app.agents.prepareExtraTools?.(placed)).toEqual([]);
    expect(offeredTo(id)).toContain('mcp__fixture__echo');
    expectNoSecret(env);
  }, 120_000);

  it('reports a server that dies, restarts it once, then leaves it failed with its last error', async () => {
    env = await setup([]);
    const { command, args } = fixtureCommand(['--leak-stderr']);
    env.app.mcp.add({ transport: 'stdio', name: 'fragile', command, args, env: { FIXTURE_SECRET: SECRET } });
    const c1 = await env.app.mcp.test('fragile');
    expect(c1.ok).toBe(true);
    const crash = env.app.mcp.toolsFor('no-session').length; // no session: per-project filter finds global servers
    expect(crash).toBe(3);
    const tool = env.app.mcp.toolsFor('no-session').find((t) => t.spec.name === 'mcp__fragile__crash')!;
    const r1 = await tool.run({}, { sessionId: 'x', turnId: 'y', signal: new AbortController().signal });
    expect(r1.isError).toBe(true);
    // Restarted once: running again, the crash named in its last error.
    await waitFor(() => env!.app.mcp.get('fragile').status === 'running', 'the restart', 60_000);
    expect(env.app.mcp.get('fragile').lastError).toMatch(/stopped unexpectedly.*started again/s);
    // The restarted server works.
    const echo = env.app.mcp.toolsFor('no-session').find((t) => t.spec.name === 'mcp__fragile__echo')!;
    expect(await echo.run({ text: 'back' }, { sessionId: 'x', turnId: 'y', signal: new AbortController().signal })).toEqual({ content: 'echo: back', isError: false });
    // A second death: not restarted again, status failed, in words.
    const tool2 = env.app.mcp.toolsFor('no-session').find((t) => t.spec.name === 'mcp__fragile__crash')!;
    await tool2.run({}, { sessionId: 'x', turnId: 'y', signal: new AbortController().signal });
    await waitFor(() => env!.app.mcp.get('fragile').status === 'failed', 'the failed status', 60_000);
    const last = env.app.mcp.get('fragile').lastError!;
    expect(last).toContain('already restarted once');
    // Its stderr (which printed the secret) is quoted redacted.
    expect(last).toContain('starting with secret ***');
    // Neither a call nor the next model call's preparation starts it behind the user's back.
    const echo2 = env.app.mcp.toolsFor('no-session').find((t) => t.spec.name === 'mcp__fragile__echo')!;
    expect(await echo2.run({ text: 'x' }, { sessionId: 'x', turnId: 'y', signal: new AbortController().signal })).toEqual({ content: last, isError: true });
    await env.app.mcp.prepare('no-session');
    expect(env.app.mcp.get('fragile').status).toBe('failed');
    expectNoSecret(env);
    // Test starts it again.
    expect((await env.app.mcp.test('fragile')).ok).toBe(true);
    // A tool handed out before the server was disabled does not start it again.
    const echo3 = env.app.mcp.toolsFor('no-session').find((t) => t.spec.name === 'mcp__fragile__echo')!;
    await env.app.mcp.setEnabled('fragile', false);
    expect(await echo3.run({ text: 'x' }, { sessionId: 'x', turnId: 'y', signal: new AbortController().signal })).toEqual({ content: 'The MCP server "fragile" was removed or disabled; its tools are no longer available.', isError: true });
    expect(env.app.mcp.get('fragile').status).toBe('stopped');
  }, 120_000);

  it('fills ${VAR} and ${VAR:-default} from the environment, as Claude Code fills its --mcp-config', async () => {
    env = await setup([]);
    process.env.FD_MCP_REF = 'filled-value';
    try {
      const { command, args } = fixtureCommand();
      // The server tells the length of what it got: 'x' + 'ab' (the default) + 'filled-value' = 15.
      const configured = 'x${FD_MCP_UNSET:-ab}${FD_MCP_REF}';
      env.app.mcp.add({ transport: 'stdio', name: 'refs', command, args, env: { FIXTURE_SECRET: configured } });
      expect((await env.app.mcp.test('refs')).ok).toBe(true);
      const check = env.app.mcp.toolsFor('none').find((t) => t.spec.name === 'mcp__refs__secret_check')!;
      expect(await check.run({}, { sessionId: 'x', turnId: 'y', signal: new AbortController().signal })).toEqual({ content: 'secret present, 15 characters', isError: false });
      // Claude Code gets the text as written and fills it itself (test/integration/mcp/mcp-claude-code.test.ts).
      expect(env.app.mcp.claudeConfig(null).mcpServers.refs).toMatchObject({ env: { FIXTURE_SECRET: configured } });
    } finally {
      delete process.env.FD_MCP_REF;
    }
  }, 120_000);

  it('a command that does not exist fails the test in words', async () => {
    env = await setup([]);
    env.app.mcp.add({ transport: 'stdio', name: 'missing', command: 'no-such-mcp-server-xyz', args: [] });
    const r = await env.app.mcp.test('missing');
    expect(r).toMatchObject({ ok: false, tools: [] });
    expect(r.error).toContain('"no-such-mcp-server-xyz" was not found on PATH');
    expect(env.app.mcp.get('missing')).toMatchObject({ status: 'failed', lastError: r.error });
  });

  it('a session whose server fails to start is told once, and the turn goes on without its tools', async () => {
    env = await setup([text('first'), text('second')]);
    env.app.mcp.add({ transport: 'stdio', name: 'missing', command: 'no-such-mcp-server-xyz', args: [] });
    const id = env.app.agents.createSession({ root: env.repo }).id;
    expect((await env.app.agents.run(id, 'one')).outcome).toBe('completed');
    expect((await env.app.agents.run(id, 'two')).outcome).toBe('completed');
    const notices = events(env, id, 'notice').filter((n) => n.text.includes('MCP server'));
    expect(notices).toHaveLength(1);
    expect(notices[0]!.text).toContain('"no-such-mcp-server-xyz" was not found on PATH');
    expect(notices[0]!.text).toContain('Its tools are not offered to the agent');
  });
});

describe('MCP servers over streamable HTTP', () => {
  it('lists tools with a secret header, calls one, and never shows the header value', async () => {
    env = await setup([]);
    const http = await startHttpFixture();
    try {
      env.app.mcp.add({ transport: 'http', name: 'remote', url: http.url, headers: { 'x-fixture-secret': SECRET } });
      const r = await env.app.mcp.test('remote');
      expect(r.ok).toBe(true);
      expect(r.tools.map((t) => t.name).sort()).toEqual(['crash', 'echo', 'secret_check']);
      const check = env.app.mcp.toolsFor('none').find((t) => t.spec.name === 'mcp__remote__secret_check')!;
      expect(await check.run({}, { sessionId: 'x', turnId: 'y', signal: new AbortController().signal })).toEqual({ content: `secret present, ${SECRET.length} characters`, isError: false });
      expect(env.app.mcp.get('remote').headerNames).toEqual(['x-fixture-secret']);
      expectNoSecret(env);
      // Removing it forgets its secret from the key store.
      expect(await env.app.mcp.remove('remote')).toBe(true);
      expect(env.app.mcp.list()).toEqual([]);
    } finally {
      await http.close();
    }
  }, 120_000);
});

describe('secrets in what the server says back', () => {
  it('a bare bearer token quoted by a server is redacted like the whole header value', async () => {
    env = await setup([]);
    const http = await startHttpFixture();
    try {
      const token = `reject-${SECRET}`;
      env.app.mcp.add({ transport: 'http', name: 'bearer', url: http.url, headers: { Authorization: `Bearer ${token}` } });
      const r = await env.app.mcp.test('bearer');
      expect(r.ok).toBe(false);
      // The server's answer is quoted (so the user sees why), with the bare token hidden.
      expect(r.error).toContain('token rejected: ***');
      expect(r.error).not.toContain(SECRET);
      expect(env.app.mcp.get('bearer').lastError).toContain('token rejected: ***');
      expectNoSecret(env);
    } finally {
      await http.close();
    }
  }, 120_000);
});

describe('the contract', () => {
  it('rejects malformed servers and duplicate names', async () => {
    env = await setup([]);
    const bad = [
      { transport: 'stdio', name: 'a__b', command: 'x' },
      { transport: 'stdio', name: '', command: 'x' },
      { transport: 'stdio', name: 'ok', command: '' },
      { transport: 'http', name: 'ok', url: 'file:///etc/passwd' },
      { transport: 'http', name: 'ok', url: 'http://x', headers: { 'bad header': 'v' } },
      { transport: 'stdio', name: 'ok', command: 'x', env: { A: 'line\nbreak' } },
      { transport: 'stdio', name: 'ok', command: 'x', extra: 1 },
    ];
    for (const b of bad) expect(await env.app.router.dispatch('mcp.add', b, ctx)).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await env.app.router.dispatch('mcp.add', { transport: 'stdio', name: 'one', command: 'x' }, ctx)).toMatchObject({ ok: true });
    expect(await env.app.router.dispatch('mcp.add', { transport: 'stdio', name: 'one', command: 'y' }, ctx)).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(await env.app.router.dispatch('mcp.test', { name: 'nope' }, ctx)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    // Stored secrets are in the key file, not in the database's settings.
    env.app.mcp.add({ transport: 'stdio', name: 'two', command: 'x', env: { TOKEN: SECRET } });
    const rows = env.app.db.prepare('SELECT value FROM settings').all() as Array<{ value: string }>;
    expect(JSON.stringify(rows)).not.toContain(SECRET);
    expect(readFileSync(join(env.app.dataDir, 'secrets.json'), 'utf8')).toContain(SECRET);
  });
});
