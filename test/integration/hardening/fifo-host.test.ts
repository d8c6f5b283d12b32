/**
 * Attack: a FIFO in the repository, and an agent that reads it, writes it and greps over it.
 * The read tool opened it on the main thread and the whole host (every request, every
 * session, /healthz) waited for a writer that never came; a write to it wedged the session.
 * Now file tools refuse anything that is not a regular file or a folder before opening it, so
 * the real browser-mode host keeps answering /healthz throughout and the turn ends normally.
 * A valve opens the FIFO every few seconds: a regression shows as /healthz failing to answer
 * in time, not as a hung test run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src-preload/contract';
import { startModelServer, type ModelServer } from '../../fixtures/model-server/index.js';
import { connectWsClient, stopWsClients } from '../../fixtures/terminals/ws-client';
import { fifoValve, makeFifo } from '../../support/fifo';
import { makeRepo, tempDir } from '../../support/temp';
import { healthz, startHostProcess, type HostProcess } from './support';

/** Well below the valve's period (4 s), generous for a loaded machine: the host answers, it does not wait on the FIFO. */
const HEALTHZ_TIMEOUT_MS = 2_500;
const PRICES = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 };

let host: HostProcess | undefined;
let server: ModelServer | undefined;
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  stopWsClients();
  await host?.stop();
  await server?.close();
  for (const c of cleanups) c();
});

describe.runIf(process.platform !== 'win32')('a FIFO in the repository', () => {
  it('read, write, patch and grep of it are refused while the host keeps answering /healthz', { timeout: 180_000 }, async () => {
    server = await startModelServer({
      script: [
        {
          blocks: [
            { type: 'tool_use', name: 'read', input: { path: 'pipe' } },
            { type: 'tool_use', name: 'write', input: { path: 'pipe', content: 'x\n' } },
            { type: 'tool_use', name: 'patch', input: { path: 'pipe', edits: [{ search: 'a', replace: 'b' }] } },
            { type: 'tool_use', name: 'grep', input: { pattern: 'needle' } },
          ],
        },
        { blocks: [{ type: 'text', text: 'The pipe is not a file.' }] },
      ],
    });
    const data = tempDir('fd-fifo-data-');
    const repo = makeRepo('fd-fifo-repo-');
    cleanups.push(() => data.cleanup(), () => repo.cleanup());
    writeFileSync(join(repo.path, 'code.txt'), 'the needle\n');
    makeFifo(join(repo.path, 'pipe'));
    const valve = fifoValve(join(repo.path, 'pipe'));
    cleanups.push(() => valve.stop());

    host = await startHostProcess({ dataDir: data.path });
    const client = connectWsClient(host.port, host.token);
    await client.invoke('agents.profiles.save', { name: 'scripted', label: 'Scripted', preset: 'custom', baseUrl: server.url, model: 'scripted-model', maxTokens: 4_096, contextWindow: 200_000, prices: PRICES, apiKey: 'sk-fifo-test-0123456789', makeDefault: true });
    const session = await client.invoke('agents.sessions.create', { root: repo.path, mode: 'auto-edit' });

    const health: Array<number | string> = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        health.push(await healthz(host!.origin, HEALTHZ_TIMEOUT_MS).catch((e: Error) => e.message));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const { turnId } = await client.invoke('agents.input', { sessionId: session.id, input: 'use the pipe' });
    let events: AgentEvent[] = [];
    const until = Date.now() + 120_000;
    while (!events.some((e) => e.turnId === turnId && e.data.type === 'turn.ended')) {
      if (Date.now() > until) throw new Error(`the turn did not end:\n${host.output()}`);
      await new Promise((r) => setTimeout(r, 100));
      events = (await client.invoke('agents.events.read', { sessionId: session.id, fromSeq: 1, limit: 10_000 })).events;
    }
    polling = false;
    await poller;

    // Every /healthz during the turn was answered in time: the host never waited on the FIFO.
    expect(health.length).toBeGreaterThan(0);
    expect(health.filter((h) => h !== 200)).toEqual([]);
    const ended = events.find((e) => e.data.type === 'turn.ended')!.data as { outcome: string };
    expect(ended.outcome).toBe('completed');
    const results = events.flatMap((e) => (e.data.type === 'tool.result' ? [e.data.content] : []));
    expect(results.slice(0, 3).every((c) => c.startsWith('pipe is a FIFO (named pipe), not a regular file'))).toBe(true);
    expect(results[3]).toBe('code.txt:1: the needle');
  });
});
