import { afterEach, describe, expect, it } from 'vitest';
import type { Script } from '../../fixtures/model-server/index.js';
import { harness, saveTestProfile, streamedText, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.cleanup());

const ok: Script[number] = { blocks: [{ type: 'text', text: 'recovered answer' }] };

async function runWith(script: Script) {
  h = await harness(script);
  const id = h.session();
  const r = await h.app.agents.run(id, 'hello');
  return { id, r, retries: h.events(id, 'retry') };
}

describe('provider faults and retries', () => {
  it.each([
    ['429 rate limit', { fault: { kind: 'status', status: 429 } }, 429],
    ['529 overloaded', { fault: { kind: 'status', status: 529 } }, 529],
    ['500 server error', { fault: { kind: 'status', status: 500 } }, 500],
    ['503 unavailable', { fault: { kind: 'status', status: 503 } }, 503],
  ] as const)('%s is retried with backoff and the retry is visible', async (_name, fault, status) => {
    const { id, r, retries } = await runWith([{ ...fault, times: 2 }, ok]);
    expect(r.outcome).toBe('completed');
    expect(retries.map((x) => [x.attempt, x.status])).toEqual([
      [1, status],
      [2, status],
    ]);
    expect(retries[0]!.maxRetries).toBe(4);
    expect(streamedText(h, id)).toBe('recovered answer');
    expect(h.server.mainRequests()).toHaveLength(3);
  });

  it('honours retry-after', async () => {
    const { r, retries } = await runWith([{ fault: { kind: 'status', status: 429, retryAfter: 1 } }, ok]);
    expect(r.outcome).toBe('completed');
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1_000);
    const [first, second] = h.server.mainRequests();
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(990);
  });

  it.each([
    ['a connection reset mid-stream', { fault: { kind: 'disconnect', afterEvents: 4 } }],
    ['a malformed stream event', { fault: { kind: 'malformed', afterEvents: 3 } }],
    ['an SSE overloaded error mid-stream', { fault: { kind: 'sse_error', afterEvents: 3, errorType: 'overloaded_error' } }],
  ] as const)('%s is retried; the retried step streams again from its start', async (_name, fault) => {
    const { id, r, retries } = await runWith([{ ...fault, blocks: [{ type: 'text', text: 'partial answer that breaks' }] }, ok]);
    expect(r.outcome).toBe('completed');
    expect(retries).toHaveLength(1);
    expect(retries[0]!.step).toBe(1);
    // Only the retried stream reached the transcript.
    expect((h.app.agents.messages.live(id).at(-1)!.blocks[0] as { text: string }).text).toBe('recovered answer');
  });

  it('a stalled stream is aborted after the idle timeout and retried', async () => {
    h = await harness([{ fault: { kind: 'stall', ms: 5_000, afterEvents: 2 }, blocks: [{ type: 'text', text: 'slow' }] }, ok]);
    h.app.agents.updateSettings({ idleTimeoutMs: 1_000 });
    const id = h.session();
    const r = await h.app.agents.run(id, 'hello');
    expect(r.outcome).toBe('completed');
    const retries = h.events(id, 'retry');
    expect(retries).toHaveLength(1);
    expect(retries[0]!.reason).toMatch(/stalled/);
  });

  it.each([
    [401, /^API key rejected by http:\/\/127\.0\.0\.1:\d+ \(401\)/],
    [403, /refused access \(403\)/],
    [400, /rejected the request \(400\)/],
    [404, /no such endpoint or model \(404\)/],
  ])('%i is not retried and explains what to fix', async (status, message) => {
    const { id, r, retries } = await runWith([{ fault: { kind: 'status', status }, times: 5 }]);
    expect(r.outcome).toBe('failed');
    expect(r.message).toMatch(message);
    expect(retries).toHaveLength(0);
    expect(h.server.mainRequests()).toHaveLength(1);
    expect(h.events(id, 'error')[0]).toMatchObject({ retryable: false, message: expect.stringMatching(message) });
    expect(h.app.agents.getSession(id)).toMatchObject({ status: 'idle', lastTurn: { outcome: 'failed' } });
  });

  it('gives up after the configured number of retries', async () => {
    h = await harness([{ fault: { kind: 'status', status: 500 }, times: 10 }]);
    h.app.agents.updateSettings({ maxRetries: 2 });
    const id = h.session();
    const r = await h.app.agents.run(id, 'hello');
    expect(r.outcome).toBe('failed');
    expect(r.message).toContain('Gave up after 3 attempts');
    expect(h.events(id, 'retry')).toHaveLength(2);
    expect(h.server.mainRequests()).toHaveLength(3);
  });

  it('a profile without a key fails before any request, saying where to add one', async () => {
    h = await harness([ok]);
    saveTestProfile(h.app, h.server.url, { name: 'nokey', apiKey: undefined, makeDefault: false });
    const id = h.app.agents.createSession({ root: h.repo, profile: 'nokey' }).id;
    const r = await h.app.agents.run(id, 'hello');
    expect(r).toMatchObject({ outcome: 'failed', message: expect.stringContaining('No API key for profile "nokey"') });
    // The environment variable stands in for the anthropic profile only: it is not offered as the way for this one.
    expect(r.message).not.toContain('or set ANTHROPIC_API_KEY');
    expect(r.message).toContain('ANTHROPIC_API_KEY is read for the anthropic profile only');
    expect(h.server.requests).toHaveLength(0);
  });

  it('cancelling during a backoff wait stops at once', async () => {
    h = await harness([{ fault: { kind: 'status', status: 529, retryAfter: 30 } }, ok]);
    const id = h.session();
    const running = h.app.agents.run(id, 'hello');
    const { waitFor } = await import('./harness');
    await waitFor(() => h.events(id, 'retry').length > 0, 'the retry event');
    h.app.agents.cancel(id);
    expect((await running).outcome).toBe('cancelled');
    expect(h.server.mainRequests()).toHaveLength(1);
  });
});
