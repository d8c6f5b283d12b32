/**
 * Claude Code executor benchmarks:
 * - parse + map: stream-json lines → agent events per second (the live path of every line).
 * - cold run: wall time of one real `claude -p` turn against the scripted server (process
 *   start, hook server, settings file, stream) — the fixed cost each Coder call pays.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StreamEventMapper } from '../../src-main/coder/core/events';
import { LineSplitter, StreamState } from '../../src-main/coder/core/stream-json';
import { runCoder } from '../../src-main/coder/coder';
import { CLAUDE_BIN } from '../fixtures/model-server/claude-cli';
import { startModelServer } from '../fixtures/model-server/index';
import { makeRepo, tempDir } from '../support/temp';

/** Enough repetitions of the captured stream for a stable rate on a slow machine. */
const MAP_REPEATS = 2_000;
const COLD_RUNS = 3;

function mapRate(): Record<string, number> {
  const text = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../fixtures/claude-code/captures/write-partial.jsonl'), 'utf8');
  const started = performance.now();
  let lines = 0;
  let events = 0;
  for (let i = 0; i < MAP_REPEATS; i++) {
    const split = new LineSplitter();
    const state = new StreamState();
    const mapper = new StreamEventMapper({ sessionId: 'ses-bench01', turnId: null, profile: 'p', model: 'm', newMessageId: () => 'msg-bench01', now: () => 0 });
    for (const line of [...split.push(text), ...split.flush()]) {
      lines++;
      const d = state.accept(line);
      if (d.kind === 'message') events += mapper.map(d.message).length;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  return { lines, events, linesPerSecond: Math.round(lines / seconds), mbPerSecond: Math.round(((text.length * MAP_REPEATS) / 1e6 / seconds) * 10) / 10 };
}

async function coldRuns(): Promise<Record<string, number>> {
  const server = await startModelServer({ script: [], defaultReply: { blocks: [{ type: 'text', text: 'ok' }] } });
  const repo = makeRepo('fd-bench-coder-');
  const home = tempDir('fd-bench-home-');
  const times: number[] = [];
  try {
    for (let i = 0; i < COLD_RUNS; i++) {
      const t = performance.now();
      const r = await runCoder({ PROMPT: 'hi', cd: repo.path, timeout: 30 }, { claudePath: CLAUDE_BIN, backend: { baseUrl: server.url, apiKey: 'sk-bench-123456', model: 'm' }, envOverrides: { HOME: home.path } });
      if (!r.success) throw new Error(`bench run failed: ${r.error}`);
      times.push(performance.now() - t);
    }
  } finally {
    await server.close();
    repo.cleanup();
    home.cleanup();
  }
  times.sort((a, b) => a - b);
  return { runs: COLD_RUNS, minMs: Math.round(times[0]!), medianMs: Math.round(times[Math.floor(times.length / 2)]!) };
}

export async function run(): Promise<Record<string, unknown>> {
  return { parseAndMap: mapRate(), coldRun: await coldRuns() };
}
