/**
 * Running the Coder executor against the real claude CLI and the scripted model server: a
 * fresh HOME and working repository per test, the CLI's own API retries turned off (so an
 * upstream error surfaces at once), and a profile pointing at the server.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CLAUDE_BIN } from '../../fixtures/model-server/claude-cli';
import { startModelServer, type ModelServer, type Script } from '../../fixtures/model-server/index';
import { makeRepo } from '../../support/temp';
import { runCoder, type CoderRunOptions } from '../../../src-main/coder/coder';
import type { CoderParamsInput } from '../../../src-main/coder/core/params';
import type { CoderResult } from '../../../src-main/coder/core/result';
import type { AppServices } from '../../../src-main/app/services';

export { CLAUDE_BIN };
export const WRAPPER = resolve(__dirname, '../../fixtures/claude-code/wrappers/filter-claude.mjs');
/** A key shaped like a real one, so redaction is tested against something that looks secret. */
export const TEST_KEY = 'sk-ant-test-7f3a9c1e5b2d4f60';

export interface CoderHarness {
  server: ModelServer;
  repo: string;
  home: string;
  run(params: Partial<CoderParamsInput>, opts?: CoderRunOptions): Promise<CoderResult>;
  cleanup(): Promise<void>;
}

export async function coderHarness(script: Script = []): Promise<CoderHarness> {
  const server = await startModelServer({ script });
  const repo = makeRepo('fd-coder-repo-');
  const home = join(repo.path, '..', `${repo.path.split('/').pop()}-home`);
  mkdirSync(home, { recursive: true });
  return {
    server,
    repo: repo.path,
    home,
    run: (params, opts = {}) =>
      runCoder(
        { PROMPT: 'Do the task.', cd: repo.path, timeout: 20, max_duration: 60, ...params },
        {
          claudePath: CLAUDE_BIN,
          backend: { profile: 'test', baseUrl: server.url, apiKey: TEST_KEY, model: 'claude-sonnet-4-5' },
          killGraceMs: 1_000,
          ...opts,
          envOverrides: { HOME: home, CLAUDE_CODE_MAX_RETRIES: '0', ...opts.envOverrides },
        },
      ),
    async cleanup() {
      await server.close();
      repo.cleanup();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Saves the default agent profile "scripted": the scripted model server at `baseUrl`, with TEST_KEY. */
export function saveScriptedProfile(app: AppServices, baseUrl: string): void {
  app.agents.profiles.save({
    name: 'scripted',
    label: 'Scripted server',
    preset: 'custom',
    baseUrl,
    model: 'glm-4.7',
    maxTokens: 4_096,
    contextWindow: 200_000,
    prices: { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 },
    apiKey: TEST_KEY,
    makeDefault: true,
  });
}

/** The text of every message of a recorded request (to look for prompts and context). */
export function requestText(body: unknown): string {
  return JSON.stringify((body as { messages?: unknown })?.messages ?? []);
}
