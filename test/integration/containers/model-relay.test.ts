/**
 * The host-side model relay of Claude Code in a container (issue 20 §3), against the stand-in
 * model server over real HTTP: the run's token is swapped for the real key, and anything else —
 * a wrong or missing token, a path other than the Messages API — is refused without reaching
 * the model endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelRelay, type ModelRelay } from '../../../src-main/containers/claude-bridge/model-relay';
import { startModelServer, type ModelServer } from '../../fixtures/model-server/index';

const KEY = 'sk-relay-test-0123456789-real-key';
let server: ModelServer;
let relay: ModelRelay;
let base: string;

beforeAll(async () => {
  server = await startModelServer({ script: [{ blocks: [{ type: 'text', text: 'relayed answer' }] }] });
  relay = await startModelRelay({ host: '127.0.0.1', upstream: server.url, key: KEY });
  base = `http://127.0.0.1:${relay.port}`;
});

afterAll(async () => {
  relay.close();
  await server.close();
});

const body = JSON.stringify({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hello' }] });

async function post(path: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  const r = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers }, body });
  return { status: r.status, text: await r.text() };
}

describe('the model relay', () => {
  it('forwards a Messages call carrying the token with the real key instead', async () => {
    const r = await post('/v1/messages?beta=true', { 'x-api-key': relay.token, authorization: `Bearer ${relay.token}` });
    expect(r.status).toBe(200);
    expect(r.text).toContain('relayed answer');
    const got = server.requests.filter((q) => q.route === 'messages');
    expect(got).toHaveLength(1);
    expect(got[0]!.apiKey).toBe(KEY);
    expect(got[0]!.authorization).toBe(`Bearer ${KEY}`);
    expect(got[0]!.query).toBe('?beta=true');
    expect(JSON.stringify(got[0]!.headers)).not.toContain(relay.token);
    // The bearer alone is enough (how an auth-token client sends it).
    expect((await post('/v1/messages/count_tokens', { authorization: `Bearer ${relay.token}` })).status).toBe(200);
  });

  it('refuses a wrong or missing token, and any path but the Messages API, without forwarding', async () => {
    const before = server.requests.length;
    // One character off (the token's own last character may be a 0: then a 1).
    const wrong = await post('/v1/messages', { 'x-api-key': `${relay.token.slice(0, -1)}${relay.token.endsWith('0') ? '1' : '0'}` });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('authentication_error');
    expect((await post('/v1/messages', {})).status).toBe(401);
    // The real key itself is not a token either: only what the run was given works.
    expect((await post('/v1/messages', { 'x-api-key': KEY })).status).toBe(401);
    const other = await post('/v1/complete', { 'x-api-key': relay.token });
    expect(other.status).toBe(403);
    expect(other.text).toContain('Only the Messages API');
    expect((await post('/v1/messages/../files', { 'x-api-key': relay.token })).status).not.toBe(200);
    const get = await fetch(`${base}/v1/models`, { headers: { 'x-api-key': relay.token } });
    expect(get.status).toBe(403);
    // Claude Code's reachability check is answered by the relay itself.
    expect((await fetch(`${base}/`, { method: 'HEAD' })).status).toBe(200);
    expect(server.requests.length).toBe(before);
  });
});
