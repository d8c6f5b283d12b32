import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer, type Script } from '../../../fixtures/model-server/index.js';
import { testConnection } from '../../../../src-main/agents/provider/connection-test';
import type { ResolvedProfile } from '../../../../src-main/agents/provider/types';
import { startTestApp } from '../../../support/app';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const PRICES = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 };

function profile(baseUrl: string, apiKey: string | null = 'sk-test-key'): ResolvedProfile {
  return { name: 'p', baseUrl, apiKey, model: 'claude-test', maxTokens: 1000, contextWindow: 100_000, prices: PRICES } as ResolvedProfile;
}

/** The scripted server, with the one-token test request treated as a scripted (main) request so faults apply. */
async function server(script: Script): Promise<ModelServer> {
  const s = await startModelServer({ script, isMain: () => true });
  cleanups.push(() => s.close());
  return s;
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('provider "Test connection" against the scripted model server', () => {
  it('ok: one request for one token with the key and model, and the latency', async () => {
    const s = await server([{ blocks: [{ type: 'text', text: 'p' }] }]);
    const r = await testConnection(profile(s.url));
    expect(r.outcome).toBe('ok');
    expect(r.headline).toMatch(/^Connected in \d+ ms$/);
    expect(r.latencyMs).toBeGreaterThanOrEqual(0);
    expect(s.requests).toHaveLength(1);
    expect(s.requests[0]!.body).toMatchObject({ model: 'claude-test', max_tokens: 1 });
    expect(s.requests[0]!.credential).toContain('sk-test-key');
  });

  it.each([
    [401, 'key_rejected', /API key was rejected \(401\)/],
    [403, 'key_rejected', /not allowed to use this model \(403\)/],
    [404, 'model_unknown', /model or endpoint is unknown \(404\)/],
    [429, 'rate_limited', /Rate limited \(429\)/],
    [500, 'server_error', /endpoint failed \(500\)/],
  ] as const)('status %i is told as %s, without retrying', async (status, outcome, headline) => {
    const s = await server([{ fault: { kind: 'status', status }, times: 5 }]);
    const r = await testConnection(profile(s.url));
    expect(r.outcome).toBe(outcome);
    expect(r.headline).toMatch(headline);
    expect(r.status).toBe(status);
    expect(s.requests).toHaveLength(1);
  });

  it('a wrong base URL path is a 404 the server names not_found_error: model or endpoint unknown', async () => {
    const s = await server([]);
    const r = await testConnection(profile(`${s.url}/wrong/prefix`));
    expect(r.outcome).toBe('model_unknown');
  });

  it('unreachable: connection refused, and an endpoint that never answers (timeout)', async () => {
    const refused = await testConnection(profile(`http://127.0.0.1:${await closedPort()}`));
    expect(refused.outcome).toBe('unreachable');
    expect(refused.headline).toMatch(/unreachable: connection refused/);
    expect(refused.latencyMs).toBeNull();

    const s = await server([{ fault: { kind: 'stall', ms: 5_000 } }]);
    const slow = await testConnection(profile(s.url), { timeoutMs: 500 });
    expect(slow.outcome).toBe('unreachable');
    expect(slow.headline).toMatch(/did not answer within/);
  });

  it('no key: says so without sending anything', async () => {
    const s = await server([]);
    const r = await testConnection(profile(s.url, null));
    expect(r.outcome).toBe('no_key');
    expect(s.requests).toHaveLength(0);
  });

  it('over the bridge: a saved profile is tested with its stored key', async () => {
    const s = await server([{ fault: { kind: 'status', status: 401 } }, { blocks: [{ type: 'text', text: 'p' }] }]);
    const t = await startTestApp();
    cleanups.push(() => t.cleanup());
    const ctx = { origin: 'test' as const, connectionId: 't' };
    const saved = await t.app.router.dispatch('agents.profiles.save', { name: 'local', label: 'Local', preset: 'custom', baseUrl: s.url, model: 'claude-test', maxTokens: 1000, contextWindow: 100_000, prices: PRICES, apiKey: 'sk-stored-key' }, ctx);
    expect(saved).toMatchObject({ ok: true });
    expect(await t.app.router.dispatch('providers.testConnection', { name: 'local' }, ctx)).toMatchObject({ ok: true, value: { outcome: 'key_rejected' } });
    expect(await t.app.router.dispatch('providers.testConnection', { name: 'local' }, ctx)).toMatchObject({ ok: true, value: { outcome: 'ok' } });
    expect(s.requests.map((r) => r.credential)).toEqual([expect.stringContaining('sk-stored-key'), expect.stringContaining('sk-stored-key')]);
    expect(await t.app.router.dispatch('providers.testConnection', { name: 'nope' }, ctx)).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });
});
