import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentEvent, AgentEventData, AgentMode } from '../../../src-preload/contract';
import type { AppServices } from '../../../src-main/app/services';
import { startModelServer, type ModelServer, type Script } from '../../fixtures/model-server/index.js';
import { startTestApp } from '../../support/app';
import { makeRepo, tempDir } from '../../support/temp';

export const TEST_KEY = 'sk-test-9f8e7d6c5b4a3210-secret';
export const PRICES = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 };

export interface Harness {
  app: AppServices;
  server: ModelServer;
  repo: string;
  dataDir: string;
  /** Every agent event published on the hub, in order. */
  published: AgentEvent[];
  session(opts?: { mode?: AgentMode; root?: string }): string;
  /** Published event payloads of one session, optionally of one type. */
  events<T extends AgentEventData['type']>(sessionId: string, type?: T): Array<Extract<AgentEventData, { type: T }>>;
  restart(): Promise<void>;
  cleanup(): Promise<void>;
}

export function saveTestProfile(app: AppServices, url: string, over: Record<string, unknown> = {}): void {
  app.agents.profiles.save({
    name: 'scripted',
    label: 'Scripted server',
    preset: 'custom',
    baseUrl: url,
    model: 'scripted-model',
    maxTokens: 4_096,
    contextWindow: 200_000,
    prices: PRICES,
    apiKey: TEST_KEY,
    makeDefault: true,
    ...over,
  } as never);
}

/** Real services on a temp data dir, a real git repo, the scripted model server. */
export async function harness(script: Script = [], opts: { repo?: string } = {}): Promise<Harness> {
  const server = await startModelServer({ script });
  const data = tempDir('fd-agents-data-');
  const repo = opts.repo ? { path: opts.repo, cleanup() {} } : makeRepo('fd-agents-repo-');
  let started = await startTestApp(data.path);
  const published: AgentEvent[] = [];
  const wire = (app: AppServices) => {
    app.agents.backoff = { baseMs: 5, maxMs: 40 };
    app.hub.subscribe((e) => {
      if (e.topic === 'agents.event') published.push(e.payload as AgentEvent);
    });
  };
  wire(started.app);
  saveTestProfile(started.app, server.url);
  const h: Harness = {
    get app() {
      return started.app;
    },
    server,
    repo: repo.path,
    dataDir: data.path,
    published,
    session(o = {}) {
      return started.app.agents.createSession({ root: o.root ?? repo.path, ...(o.mode ? { mode: o.mode } : {}) }).id;
    },
    events(sessionId, type) {
      return published.filter((e) => e.sessionId === sessionId && (type === undefined || e.data.type === type)).map((e) => e.data) as never;
    },
    async restart() {
      started.app.dispose();
      started = await startTestApp(data.path);
      wire(started.app);
    },
    async cleanup() {
      // Every stored event of a live session was published: none was dropped for not fitting the contract.
      await started.app.agents.sink.flushed();
      for (const s of started.app.agents.listSessions()) {
        const stored = started.app.agents.sink.read(s.id, 1, 100_000).map((e) => e.seq);
        const shown = published.filter((e) => e.sessionId === s.id).map((e) => e.seq);
        if (JSON.stringify(stored) !== JSON.stringify(shown)) throw new Error(`session ${s.id}: stored seqs ${stored.length} != published ${shown.length}`);
      }
      started.app.dispose();
      await server.close();
      data.cleanup();
      repo.cleanup();
    },
  };
  return h;
}

export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) writeFileSync(join(root, rel), content);
}

/** Text of all text deltas of a session, joined. */
export function streamedText(h: Harness, sessionId: string): string {
  return h.events(sessionId, 'text.delta').map((d) => d.text).join('');
}

/** Polls until `pick` returns a value (events arrive asynchronously, after they are persisted). */
export async function waitFor<T>(pick: () => T | undefined | null | false, what: string, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = pick();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Waits for the next approval of a session that is still pending, and returns it. */
export async function nextApproval(h: Harness, sessionId: string): Promise<import('../../../src-preload/contract').Approval> {
  return waitFor(() => h.app.agents.gate.pending(sessionId)[0], 'a pending approval');
}

/** A scripted turn that calls one tool, and the closing text reply after it. */
export function toolThenText(name: string, input: Record<string, unknown>, text = 'Done.'): Script {
  return [{ blocks: [{ type: 'tool_use', name, input }] }, { blocks: [{ type: 'text', text }] }];
}
