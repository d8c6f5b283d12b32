import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppServices } from '../../../src-main/app/services';
import { silentLogger } from '../../../src-main/platform/logger';
import { tempDir } from '../../support/temp';
import { CLAUDE_BIN, coderHarness, TEST_KEY, type CoderHarness } from './support';

const ROOT = resolve(__dirname, '../../..');
const TSX = resolve(ROOT, 'node_modules/.bin/tsx');

function cli(args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
    for (const k of Object.keys(env)) if (k.startsWith('ANTHROPIC_') && !(opts.env && k in opts.env)) delete env[k];
    const child = spawn(TSX, ['src-main/cli/main.ts', 'coder', ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.stdin.end(opts.stdin ?? '');
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

let h: CoderHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe('flightdeck coder (CLI)', () => {
  it('reads the parameters on stdin, prints exactly the result object, exits 0; metrics go to stderr', async () => {
    h = await coderHarness([{ blocks: [{ type: 'text', text: 'From the CLI.' }] }]);
    const r = await cli(['--claude', CLAUDE_BIN], {
      stdin: JSON.stringify({ PROMPT: 'hi', cd: h.repo, timeout: 20, log_metrics: true }),
      env: { HOME: h.home, ANTHROPIC_BASE_URL: h.server.url, ANTHROPIC_API_KEY: TEST_KEY, CLAUDE_CODE_MAX_RETRIES: '0' },
    });
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(result).toEqual({ success: true, tool: 'coder', SESSION_ID: expect.any(String), result: 'From the CLI.' });
    expect(r.stderr).toContain('[coder] metrics');
    expect(r.stdout + r.stderr).not.toContain(TEST_KEY);
    expect(h.server.mainRequests()[0]!.credential).toBe(TEST_KEY);
  });

  it('takes --json, and exits 1 with the failure object', async () => {
    h = await coderHarness([{ fault: { kind: 'status', status: 529 }, times: 2 }]);
    const r = await cli(['--claude', CLAUDE_BIN, '--json', JSON.stringify({ PROMPT: 'hi', cd: h.repo })], {
      env: { HOME: h.home, ANTHROPIC_BASE_URL: h.server.url, ANTHROPIC_API_KEY: TEST_KEY, CLAUDE_CODE_MAX_RETRIES: '0' },
    });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ success: false, tool: 'coder', error_kind: 'upstream_error' });
  });

  it('answers malformed input with a config_error object', async () => {
    const bad = await cli(['--json', '{not json']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ success: false, error_kind: 'config_error' });
    const unknown = await cli([], { stdin: JSON.stringify({ PROMPT: 'x', cd: '/tmp', colour: 'blue' }) });
    expect(JSON.parse(unknown.stdout)).toMatchObject({ error_kind: 'config_error', error: expect.stringContaining('unknown parameter: colour') });
  });

  it('uses a Flightdeck profile with --profile', async () => {
    h = await coderHarness([{ blocks: [{ type: 'text', text: 'Profiled.' }] }]);
    const data = tempDir('fd-coder-cli-data-');
    const app = await AppServices.create({ dataDir: data.path, logger: silentLogger, platform: { runtime: 'browser' } });
    app.agents.profiles.save({
      name: 'glm-local',
      label: 'GLM via the scripted server',
      preset: 'glm',
      baseUrl: h.server.url,
      model: 'glm-4.7',
      maxTokens: 4096,
      contextWindow: 200_000,
      prices: { inputPerMTok: 0.6, outputPerMTok: 2.2, cacheReadPerMTok: 0.11, cacheWritePerMTok: 0 },
      apiKey: TEST_KEY,
    });
    app.dispose();
    try {
      const r = await cli(['--profile', 'glm-local', '--claude', CLAUDE_BIN, '--data-dir', data.path, '--json', JSON.stringify({ PROMPT: 'hi', cd: h.repo })], {
        env: { HOME: h.home, CLAUDE_CODE_MAX_RETRIES: '0' },
      });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ success: true, result: 'Profiled.' });
      const req = h.server.mainRequests()[0]!;
      expect((req.body as { model: string }).model).toBe('glm-4.7');
      expect(req.authorization).toBe(`Bearer ${TEST_KEY}`);
      const missing = await cli(['--profile', 'nope', '--data-dir', data.path, '--json', JSON.stringify({ PROMPT: 'hi', cd: h.repo })]);
      expect(JSON.parse(missing.stdout)).toMatchObject({ error_kind: 'config_error', error: expect.stringContaining('no provider profile "nope"') });
    } finally {
      data.cleanup();
    }
  });
});
