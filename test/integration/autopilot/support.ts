import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AutopilotRun } from '../../../src-preload/contract';
import { startModelServer, type ModelServer, type Script } from '../../fixtures/model-server/index.js';
import { AppServices } from '../../../src-main/app/services';
import { silentLogger } from '../../../src-main/platform/logger';
import { CLAUDE_BIN } from '../../fixtures/model-server/claude-cli';
import { makeRepo, tempDir } from '../../support/temp';
import { saveTestProfile } from '../agents/harness';

export interface AutopilotHarness {
  app: AppServices;
  server: ModelServer;
  repo: string;
  dataDir: string;
  /** Starts a run and waits until it stops or pauses. */
  run(input: Record<string, unknown>): Promise<AutopilotRun>;
  cleanup(): Promise<void>;
}

export async function autopilotHarness(script: Script, opts: { repo?: string; claude?: boolean } = {}): Promise<AutopilotHarness> {
  const server = await startModelServer({ script });
  const data = tempDir('fd-autopilot-data-');
  const home = tempDir('fd-autopilot-home-');
  const repo = opts.repo ? { path: opts.repo, cleanup() {} } : makeRepo('fd-autopilot-repo-');
  // The real claude CLI gets a fresh HOME and no retries of its own (an error surfaces at once).
  const app = await AppServices.create({ dataDir: data.path, logger: silentLogger, platform: { runtime: 'browser' }, coderEnv: { HOME: home.path, CLAUDE_CODE_MAX_RETRIES: '0' } });
  const started = { app };
  if (opts.claude) app.coder.updateSettings({ claudePath: CLAUDE_BIN, idleTimeoutS: 60, maxDurationS: 180 });
  started.app.agents.backoff = { baseMs: 5, maxMs: 40 };
  saveTestProfile(started.app, server.url);
  return {
    app: started.app,
    server,
    repo: repo.path,
    dataDir: data.path,
    async run(input) {
      const run = await started.app.autopilot.startRun({ repo: repo.path, ...input });
      return started.app.autopilot.wait(run.id);
    },
    async cleanup() {
      started.app.dispose();
      await server.close();
      data.cleanup();
      home.cleanup();
      repo.cleanup();
    },
  };
}

/** A scripted agent turn: each tool call answered in turn, then a closing text. */
export function turn(calls: Array<{ name: string; input: Record<string, unknown> }>, text = 'Done.'): Script {
  return [...calls.map((c) => ({ blocks: [{ type: 'tool_use' as const, name: c.name, input: c.input }] })), { blocks: [{ type: 'text' as const, text }] }];
}

export function write(path: string, content: string): { name: string; input: Record<string, unknown> } {
  return { name: 'write', input: { path, content } };
}

export function plan(o: { next?: string; backlog?: string[]; done?: string[]; goal?: string; testCmd?: string; notes?: string[] }): string {
  let id = (o.done?.length ?? 0) + 1;
  const step = (t: string) => `- [ ] (STEP_ID=${String(id++).padStart(3, '0')}) ${t}`;
  const done = (o.done ?? []).map((t, i) => `- [x] (STEP_ID=${String(i + 1).padStart(3, '0')}) ${t}`);
  return [
    '# PLAN',
    '',
    '## Goal',
    `- ${o.goal ?? 'Add the modules'}`,
    '',
    '## Acceptance',
    `- [ ] TEST_CMD passes: \`${o.testCmd ?? 'node --test'}\``,
    '',
    '## Next (exactly ONE item)',
    ...(o.next ? [step(o.next)] : []),
    '',
    '## Backlog',
    ...(o.backlog ?? []).map(step),
    '',
    '## Done',
    ...done,
    '',
    '## Notes',
    ...(o.notes ?? []).map((n) => `- ${n}`),
    '',
  ].join('\n');
}

export const SUM_JS = 'module.exports = (a, b) => a + b;\n';
export const SUM_TEST = "const test = require('node:test');\nconst assert = require('node:assert');\nconst sum = require('./sum.js');\ntest('sum', () => assert.strictEqual(sum(2, 3), 5));\n";
export const MUL_JS = 'module.exports = (a, b) => a * b;\n';
export const MUL_TEST = "const test = require('node:test');\nconst assert = require('node:assert');\nconst mul = require('./mul.js');\ntest('mul', () => assert.strictEqual(mul(2, 3), 6));\n";

/** The run's JSONL log lines. */
export function logLines(run: AutopilotRun): Array<Record<string, unknown>> {
  const file = join(run.worktree, run.options.logFile);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

export function logFiles(worktree: string): string[] {
  return readdirSync(join(worktree, '.flightdeck', 'autopilot', 'logs'));
}
