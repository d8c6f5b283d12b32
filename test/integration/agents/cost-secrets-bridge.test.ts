import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppServices } from '../../../src-main/app/services';
import { createLogger } from '../../../src-main/platform/logger';
import { startModelServer, type ModelServer } from '../../fixtures/model-server/index.js';
import { makeRepo, tempDir } from '../../support/temp';
import { harness, PRICES, saveTestProfile, TEST_KEY, waitFor, type Harness } from './harness';

let h: Harness | undefined;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  for (const c of cleanups.splice(0)) await c();
});

const ctx = { origin: 'test' as const, connectionId: 't' };

describe('cost accounting', () => {
  it('prices every call with the profile prices and sums per session, model and purpose', async () => {
    h = await harness([
      { blocks: [{ type: 'tool_use', name: 'glob', input: { pattern: '*' } }], usage: { input_tokens: 2_000, output_tokens: 100, cache_read_input_tokens: 10_000, cache_creation_input_tokens: 1_000 } },
      { blocks: [{ type: 'text', text: 'done' }], usage: { input_tokens: 500, output_tokens: 300 } },
    ]);
    const id = h.session();
    await h.app.agents.run(id, 'go');
    const usage = h.events(id, 'usage');
    expect(usage.map((u) => u.usd)).toEqual([
      (2_000 * 3 + 100 * 15 + 10_000 * 0.3 + 1_000 * 3.75) / 1e6,
      (500 * 3 + 300 * 15) / 1e6,
    ]);
    const summary = (await h.app.router.dispatch('agents.cost.get', { sessionId: id }, ctx)) as { ok: true; value: { total: { usd: number; calls: number; cacheReadTokens: number }; byModel: Array<{ model: string }> } };
    expect(summary.ok).toBe(true);
    expect(summary.value.total).toMatchObject({ calls: 2, cacheReadTokens: 10_000 });
    expect(summary.value.total.usd).toBeCloseTo(0.01425 + 0.006, 10);
    expect(summary.value.byModel.map((m) => m.model)).toEqual(['scripted-model']);
    expect(h.app.agents.getSession(id).cost.usd).toBeCloseTo(0.02025, 10);
    // Prices are the profile's at the time of the call.
    saveTestProfile(h.app, h.server.url, { prices: { ...PRICES, inputPerMTok: 100 } });
    h.server.setScript([{ blocks: [{ type: 'text', text: 'x' }], usage: { input_tokens: 1_000, output_tokens: 0 } }]);
    await h.app.agents.run(id, 'again');
    // 1000 input tokens at the new $100/M (the server reports at least one output token).
    expect(h.events(id, 'usage').at(-1)!.usd).toBeCloseTo(0.1, 4);
  });
});

describe('secrets never leak', () => {
  let server: ModelServer;
  it('the API key is not in logs, events, the database, contract outputs or command environments', async () => {
    server = await startModelServer({ script: [{ blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'env' } }] }, { blocks: [{ type: 'text', text: 'ok' }] }, { fault: { kind: 'status', status: 401 } }] });
    cleanups.push(() => server.close());
    const data = tempDir('fd-secret-');
    const repo = makeRepo();
    cleanups.push(() => data.cleanup(), () => repo.cleanup());
    const logs: string[] = [];
    const ENV_KEY = 'sk-ant-from-environment-0123456789';
    process.env.ANTHROPIC_API_KEY = ENV_KEY;
    cleanups.push(() => delete process.env.ANTHROPIC_API_KEY);
    const app = await AppServices.create({ dataDir: data.path, logger: createLogger({ level: 'debug', sink: (l) => logs.push(l) }), platform: { runtime: 'browser' } });
    cleanups.push(() => app.dispose());
    const published: unknown[] = [];
    app.hub.subscribe((e) => published.push(e));
    const save = await app.router.dispatch(
      'agents.profiles.save',
      { name: 'scripted', label: 'S', preset: 'custom', baseUrl: server.url, model: 'm', maxTokens: 1_000, contextWindow: 100_000, prices: PRICES, apiKey: TEST_KEY, makeDefault: true },
      ctx,
    );
    expect(save).toMatchObject({ ok: true, value: { apiKeySet: true, apiKeySource: 'stored' } });
    const id = app.agents.createSession({ root: repo.path, mode: 'yolo' }).id;
    await app.agents.run(id, 'print the environment');
    await app.agents.run(id, 'fail with 401');
    await app.agents.sink.flushed();
    // The bash `env` output reached the model without the keys.
    expect(server.mainRequests()[1]!.userText).toContain('PATH=');
    const outputs = [
      JSON.stringify(published),
      logs.join('\n'),
      JSON.stringify(await app.router.dispatch('agents.profiles.list', {}, ctx)),
      JSON.stringify(await app.router.dispatch('agents.sessions.list', {}, ctx)),
      JSON.stringify(await app.router.dispatch('agents.events.read', { sessionId: id }, ctx)),
      JSON.stringify(await app.router.dispatch('agents.messages.list', { sessionId: id }, ctx)),
      JSON.stringify(server.mainRequests().map((r) => r.body)),
    ];
    for (const out of outputs) {
      expect(out).not.toContain(TEST_KEY);
      expect(out).not.toContain(ENV_KEY);
    }
    expect(JSON.stringify(published)).toContain('API key rejected by');
    app.dispose();
    // Every file of the data folder, in subfolders too (backups, process records).
    for (const f of readdirSync(data.path, { recursive: true, encoding: 'utf8' })) {
      if (!statSync(join(data.path, f)).isFile()) continue;
      const content = readFileSync(join(data.path, f));
      // The key file and the backup of its previous version: private to the user.
      if (f === 'secrets.json' || f === 'secrets.json.bak') {
        expect(statSync(join(data.path, f)).mode & 0o777).toBe(0o600);
        continue;
      }
      expect(content.includes(TEST_KEY), f).toBe(false);
      expect(content.includes(ENV_KEY), f).toBe(false);
    }
  });

  it('the environment key is the default of the anthropic profile, shown only as "set"', async () => {
    process.env.ANTHROPIC_API_KEY = 'sk-ant-env-abcdefghijklmnop';
    process.env.ANTHROPIC_BASE_URL = 'http://127.0.0.1:9/anthropic';
    process.env.ANTHROPIC_MODEL = 'env-model';
    cleanups.push(() => {
      delete process.env.ANTHROPIC_API_KEY;
      delete process.env.ANTHROPIC_BASE_URL;
      delete process.env.ANTHROPIC_MODEL;
    });
    const data = tempDir('fd-env-');
    cleanups.push(() => data.cleanup());
    const app = await AppServices.create({ dataDir: data.path, logger: createLogger({ level: 'error', sink: () => {} }), platform: { runtime: 'browser' } });
    cleanups.push(() => app.dispose());
    const list = app.agents.profiles.list();
    expect(list.map((p) => p.name)).toEqual(['anthropic', 'glm', 'minimax', 'deepseek']);
    expect(list[0]).toMatchObject({ baseUrl: 'http://127.0.0.1:9/anthropic', model: 'env-model', apiKeySet: true, apiKeySource: 'env', isDefault: true, builtIn: true });
    expect(list.find((p) => p.name === 'glm')).toMatchObject({ baseUrl: 'https://open.bigmodel.cn/api/anthropic', apiKeySet: false });
    expect(list.find((p) => p.name === 'minimax')!.baseUrl).toBe('https://api.minimax.io/anthropic');
    expect(list.find((p) => p.name === 'deepseek')!.baseUrl).toBe('https://api.deepseek.com/anthropic');
    expect(JSON.stringify(list)).not.toContain('sk-ant-env');
    const removed = await app.router.dispatch('agents.profiles.remove', { name: 'glm' }, ctx);
    expect(removed).toMatchObject({ ok: false, error: { code: 'conflict' } });
  });
});

describe('through the bridge', () => {
  it('input returns at once; events, approvals and sessions arrive as contract events', async () => {
    h = await harness([{ blocks: [{ type: 'tool_use', name: 'write', input: { path: 'b.txt', content: 'bridge' } }] }, { blocks: [{ type: 'text', text: 'ok' }] }]);
    const topics: string[] = [];
    h.app.hub.subscribe((e) => topics.push(e.topic));
    const created = (await h.app.router.dispatch('agents.sessions.create', { root: h.repo }, ctx)) as { ok: true; value: { id: string } };
    const id = created.value.id;
    const started = await h.app.router.dispatch('agents.input', { sessionId: id, input: 'write b' }, ctx);
    expect(started).toMatchObject({ ok: true, value: { sessionId: id } });
    expect(await h.app.router.dispatch('agents.input', { sessionId: id, input: 'again' }, ctx)).toMatchObject({ ok: false, error: { code: 'conflict' } });
    const pending = await waitFor(async () => ((await h!.app.router.dispatch('agents.approvals.list', { sessionId: id }, ctx)) as { value: unknown[] }).value, 'x');
    void pending;
    const list = await waitFor(() => h!.app.agents.gate.pending(id)[0], 'approval');
    const answered = await h.app.router.dispatch('agents.approvals.answer', { approvalId: list.id, decision: 'approve_session' }, ctx);
    expect(answered).toMatchObject({ ok: true, value: { status: 'approved', decision: 'approve_session' } });
    expect(await h.app.router.dispatch('agents.approvals.answer', { approvalId: list.id, decision: 'deny' }, ctx)).toMatchObject({ ok: false, error: { code: 'conflict' } });
    await waitFor(() => h!.app.agents.getSession(id).status === 'idle', 'the turn to end');
    expect(topics).toEqual(expect.arrayContaining(['agents.event', 'agents.sessions.changed', 'agents.approvals.changed']));
    const read = (await h.app.router.dispatch('agents.events.read', { sessionId: id, fromSeq: 1 }, ctx)) as { ok: true; value: { events: Array<{ seq: number }>; lastSeq: number } };
    expect(read.value.events.length).toBe(read.value.lastSeq);
    expect(await h.app.router.dispatch('agents.sessions.remove', { sessionId: id }, ctx)).toMatchObject({ ok: true, value: { removed: true } });
    expect(h.app.agents.sink.lastSeq(id)).toBe(0);
  });

  it('rejects malformed input at the contract', async () => {
    h = await harness();
    for (const [channel, input] of [
      ['agents.input', { sessionId: 'nope', input: 'x' }],
      ['agents.input', { sessionId: 'ses-abcdef123', input: '' }],
      ['agents.sessions.create', {}],
      ['agents.sessions.create', { root: '/tmp', projectId: 'abcdef' }],
      ['agents.approvals.answer', { approvalId: 'apr-abcdef12', decision: 'maybe' }],
      ['agents.profiles.save', { name: 'Bad Name', label: 'x', preset: 'custom', baseUrl: 'ftp://x', model: 'm', maxTokens: 1, contextWindow: 1000, prices: PRICES }],
      ['agents.settings.update', { maxSteps: 0 }],
      ['agents.sessions.update', { sessionId: 'ses-abcdef123', mode: 'turbo' }],
    ] as const) {
      expect(await h.app.router.dispatch(channel, input, ctx), channel).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    }
    expect(await h.app.router.dispatch('agents.sessions.get', { sessionId: 'ses-abcdef123' }, ctx)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await h.app.router.dispatch('agents.sessions.create', { root: '/definitely/not/here' }, ctx)).toMatchObject({ ok: false, error: { code: 'path_not_found' } });
    expect(h.app.router.unhandled().filter((c) => c.startsWith('agents.'))).toEqual([]);
  });
});

describe('the reusable gate for other executors', () => {
  it('decide() applies mode, policy, session memory and root confinement, and waits for the user', async () => {
    h = await harness();
    const id = h.session();
    const agents = h.app.agents;
    expect(await agents.decide({ sessionId: id, tool: 'Read', input: { file_path: join(h.repo, 'README.md') } })).toMatchObject({ allow: true });
    expect(await agents.decide({ sessionId: id, tool: 'Write', input: { file_path: '/etc/passwd', content: 'x' } })).toMatchObject({ allow: false, reason: expect.stringContaining('outside the session root') });
    expect(await agents.decide({ sessionId: id, tool: 'Edit', input: { file_path: 'README.md', old_string: 'a', new_string: 'b' }, mode: 'plan' })).toMatchObject({ allow: false });
    const asking = agents.decide({ sessionId: id, tool: 'Bash', input: { command: 'npm test -- --watch=false' }, source: 'claude-code', toolUseId: 'toolu_1' });
    const a = await waitFor(() => agents.gate.pending(id)[0], 'approval');
    expect(a).toMatchObject({ tool: 'bash', source: 'claude-code', sessionRule: 'npm test *' });
    agents.gate.answer(a.id, 'approve_session');
    expect(await asking).toMatchObject({ allow: true });
    expect(await agents.decide({ sessionId: id, tool: 'Bash', input: { command: 'npm test -- src/x.test.ts' } })).toMatchObject({ allow: true, reason: expect.stringContaining('Approved for this session') });
    const denied = agents.decide({ sessionId: id, tool: 'WebFetch', input: { url: 'https://x' } });
    agents.gate.answer((await waitFor(() => agents.gate.pending(id)[0], 'approval')).id, 'deny', 'no network');
    expect(await denied).toEqual({ allow: false, reason: 'Denied by the user: no network' });
    await agents.sink.flushed();
    expect(h.events(id, 'tool.decision').map((d) => d.decision)).toEqual(['allow', 'deny', 'deny', 'ask', 'allow', 'ask']);
  });
});

describe('decide() input checks', () => {
  it('refuses ids that are not session ids', async () => {
    h = await harness();
    await expect(h.app.agents.decide({ sessionId: 'claude-123', tool: 'Bash', input: { command: 'ls' } })).rejects.toThrow(/needs an agent session id/);
  });
});
