/**
 * Orchestrator overhead per step: a turn of many tool-call steps against the scripted model
 * server, compared with bare SDK streaming calls of the same request body to the same server
 * in the same run. The difference is what the loop adds per step (events persisted and
 * published, messages saved, policy, the tool itself, cost accounting).
 */
import Anthropic from '@anthropic-ai/sdk';
import { startTestApp } from '../support/app';
import { makeRepo } from '../support/temp';
import { startModelServer } from '../fixtures/model-server/index.js';

/** Steps per measured turn: enough to average out per-turn costs (session updates, turn events). */
const STEPS = 40;
/** Measured turns and bare calls; a few warm-ups first so JIT and connection setup do not count. */
const ROUNDS = 5;
const WARMUP_CALLS = 5;
const KEY = 'sk-bench-0123456789';

function stats(samples: number[]): { median: number; p95: number; mean: number; n: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  const round = (x: number) => Math.round(x * 100) / 100;
  return { median: round(at(0.5)), p95: round(at(0.95)), mean: round(s.reduce((a, b) => a + b, 0) / s.length), n: s.length };
}

export async function run(): Promise<Record<string, unknown>> {
  const server = await startModelServer({ script: [] });
  const repo = makeRepo('fd-bench-');
  const { app, cleanup } = await startTestApp();
  try {
    app.agents.profiles.save({
      name: 'bench', label: 'Bench', preset: 'custom', baseUrl: server.url, model: 'bench-model', maxTokens: 1_024, contextWindow: 1_000_000,
      prices: { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 }, apiKey: KEY, makeDefault: true,
    });
    const step = { blocks: [{ type: 'text' as const, text: 'Reading the file again.' }, { type: 'tool_use' as const, name: 'read', input: { path: 'README.md' } }] };
    const stepMs: number[] = [];
    let rowsPerStep = 0;
    let requestBody: Record<string, unknown> | null = null;
    for (let round = 0; round <= ROUNDS; round++) {
      server.setScript([{ ...step, times: STEPS - 1 }, { blocks: [{ type: 'text', text: 'Done.' }] }]);
      server.reset();
      const id = app.agents.createSession({ root: repo.path, mode: 'auto-edit' }).id;
      const t0 = performance.now();
      const r = await app.agents.run(id, 'read the readme many times');
      const ms = performance.now() - t0;
      if (r.outcome !== 'completed') throw new Error(`bench turn ended ${r.outcome}: ${r.message}`);
      // Round 0 warms up; its request body (system, tools, messages) is replayed bare below.
      if (round === 0) {
        requestBody = server.mainRequests()[STEPS - 1]!.body as Record<string, unknown>;
        continue;
      }
      stepMs.push(ms / STEPS);
      rowsPerStep = app.agents.sink.lastSeq(id) / STEPS;
    }

    const client = new Anthropic({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
    const bareMs: number[] = [];
    const { model, max_tokens, system, messages, tools } = requestBody as Anthropic.MessageCreateParamsStreaming & Record<string, never>;
    server.setScript([{ ...step, times: 1_000 }]);
    for (let i = 0; i < WARMUP_CALLS + ROUNDS * STEPS; i++) {
      const t0 = performance.now();
      const stream = await client.messages.create({ model, max_tokens, system, messages, tools, stream: true });
      for await (const ev of stream) void ev;
      if (i >= WARMUP_CALLS) bareMs.push(performance.now() - t0);
    }
    const orchestrator = stats(stepMs);
    const bare = stats(bareMs);
    return {
      what: `per step: a ${STEPS}-step turn (text + read tool call each step) through the orchestrator vs a bare SDK streaming call with the same request body`,
      stepsPerTurn: STEPS,
      orchestratorStepMs: orchestrator,
      bareSdkCallMs: bare,
      overheadPerStepMs: Math.round((orchestrator.median - bare.median) * 100) / 100,
      overheadRatio: Math.round((orchestrator.median / bare.median) * 100) / 100,
      eventRowsPerStep: Math.round(rowsPerStep * 10) / 10,
      requestBodyKiB: Math.round(JSON.stringify(requestBody).length / 102.4) / 10,
    };
  } finally {
    cleanup();
    repo.cleanup();
    await server.close();
  }
}
