import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { groupAlive } from '../../../src-main/coder/process-group';
import { CLAUDE_BIN, coderHarness, TEST_KEY, WRAPPER, type CoderHarness } from './support';

let h: CoderHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const SEED_DETAIL_KEYS = ['exit_code', 'idle_timeout_s', 'json_decode_errors', 'last_lines', 'max_duration_s', 'message', 'retries'];

describe('Coder failures, each with its error_kind', () => {
  it('idle_timeout: the server stalls longer than `timeout`', async () => {
    h = await coderHarness([{ fault: { kind: 'stall', ms: 15_000 }, blocks: [{ type: 'text', text: 'late' }] }]);
    let pid = 0;
    // 6 s of silence: longer than the CLI's own start-up on a loaded machine (it announces its
    // session first), far shorter than the 15 s stall.
    const r = await h.run({ timeout: 6, max_duration: 30 }, { onSpawn: (p) => (pid = p) });
    expect(groupAlive(pid)).toBe(false);
    expect(r).toMatchObject({ success: false, tool: 'coder', error_kind: 'idle_timeout', error_detail: { idle_timeout_s: 6, max_duration_s: 30, retries: 0 } });
    if (r.success) throw new Error('unreachable');
    // SIGTERM: the CLI exits 143 on its own, or is reported as signalled (null).
    expect([143, null]).toContain(r.error_detail.exit_code);
    expect(Object.keys(r.error_detail).sort()).toEqual(SEED_DETAIL_KEYS);
    // The CLI announced its session before the stall: the failure keeps it, so the caller can resume.
    expect(Object.keys(r).sort()).toEqual(['SESSION_ID', 'error', 'error_detail', 'error_kind', 'success', 'tool']);
    expect(r.SESSION_ID).toMatch(/\S/);
  });

  it('timeout: max_duration ends a run that keeps producing output', async () => {
    // A slow stream: output every 300 ms keeps the idle timer fed, but the whole reply takes far longer.
    h = await coderHarness([{ delayMs: 300, blocks: [{ type: 'text', text: 'x'.repeat(400) }, { type: 'thinking', thinking: 'y'.repeat(400) }, { type: 'text', text: 'z'.repeat(400) }] }]);
    const started = Date.now();
    // The idle limit is far above the total one: only max_duration can end this run, however slowly the CLI starts.
    const r = await h.run({ timeout: 20, max_duration: 2 });
    expect(r).toMatchObject({ success: false, error_kind: 'timeout', error_detail: { max_duration_s: 2 } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
  });

  it.each([
    [500, /HTTP 500/],
    [529, /HTTP 529/],
  ])('upstream_error: the API answers %i', async (status, message) => {
    h = await coderHarness([{ fault: { kind: 'status', status }, times: 3 }]);
    const r = await h.run({});
    expect(r).toMatchObject({ success: false, error_kind: 'upstream_error', error_detail: { exit_code: 1 } });
    if (r.success) throw new Error('unreachable');
    expect(r.error).toMatch(message);
    expect(r.error_detail.last_lines.some((l) => l.includes('"type":"result"'))).toBe(true);
  });

  it('empty_result: the model answers nothing', async () => {
    h = await coderHarness([{ blocks: [], times: 5 }]);
    const r = await h.run({});
    expect(r).toMatchObject({ success: false, error_kind: 'empty_result', error_detail: { exit_code: 0 } });
  });

  it('protocol_missing_session: the stream carries no session id', async () => {
    h = await coderHarness([{ blocks: [{ type: 'text', text: 'fine' }] }]);
    const r = await h.run({}, { claudePath: WRAPPER, envOverrides: { FD_REAL_CLAUDE: CLAUDE_BIN, FD_FILTER: 'strip-session' } });
    expect(r).toMatchObject({ success: false, error_kind: 'protocol_missing_session' });
  });

  it('json_decode: the result line is not valid JSON', async () => {
    h = await coderHarness([{ blocks: [{ type: 'text', text: 'fine' }] }]);
    const r = await h.run({}, { claudePath: WRAPPER, envOverrides: { FD_REAL_CLAUDE: CLAUDE_BIN, FD_FILTER: 'corrupt-result' } });
    expect(r).toMatchObject({ success: false, error_kind: 'json_decode', error_detail: { json_decode_errors: 1, exit_code: 0 } });
  });

  it('tolerates noise and a torn line when the result itself is intact', async () => {
    h = await coderHarness([{ blocks: [{ type: 'text', text: 'fine' }] }]);
    const r = await h.run({}, { claudePath: WRAPPER, envOverrides: { FD_REAL_CLAUDE: CLAUDE_BIN, FD_FILTER: 'garbage' } });
    expect(r).toMatchObject({ success: true, result: 'fine' });
  });

  it('command_not_found: a missing binary, or no claude on PATH, says how to install it', async () => {
    h = await coderHarness([]);
    const missing = await h.run({}, { claudePath: '/nonexistent/bin/claude' });
    expect(missing).toMatchObject({ success: false, error_kind: 'command_not_found', error_detail: { exit_code: null } });
    if (missing.success) throw new Error('unreachable');
    expect(missing.error).toContain('npm install -g @anthropic-ai/claude-code');
    const emptyPath = mkdtempSync(join(tmpdir(), 'fd-nopath-'));
    const onPath = await h.run({}, { claudePath: 'claude', envOverrides: { PATH: emptyPath } });
    expect(onPath).toMatchObject({ success: false, error_kind: 'command_not_found' });
    expect(h.server.requests).toHaveLength(0);
  });

  it('command_not_found: a file that is not executable', async () => {
    h = await coderHarness([]);
    const notExec = join(mkdtempSync(join(tmpdir(), 'fd-noexec-')), 'claude');
    writeFileSync(notExec, '#!/bin/sh\necho hi\n', { mode: 0o644 });
    const r = await h.run({}, { claudePath: notExec });
    expect(r).toMatchObject({ success: false, error_kind: 'command_not_found' });
  });

  it('subprocess_error: the CLI exits non-zero without a result', async () => {
    h = await coderHarness([]);
    const script = join(mkdtempSync(join(tmpdir(), 'fd-crash-')), 'claude');
    writeFileSync(script, `#!/bin/sh\necho "boom: ${TEST_KEY}" >&2\nexit 3\n`, { mode: 0o755 });
    const r = await h.run({}, { claudePath: script });
    expect(r).toMatchObject({ success: false, error_kind: 'subprocess_error', error_detail: { exit_code: 3, last_lines: ['boom: [redacted]'] } });
    expect(JSON.stringify(r)).not.toContain(TEST_KEY);
  });

  it.each([
    [{ PROMPT: '' }, /PROMPT is empty/],
    [{ sandbox: 'full' }, /sandbox/],
    [{ timeout: 'soon' }, /timeout/],
    [{ extra: true }, /unknown parameter: extra/],
    [{ cd: '/definitely/not/here' }, /cd does not exist/],
  ])('config_error: %j', async (params, message) => {
    h = await coderHarness([]);
    const r = await h.run(params as never);
    expect(r).toMatchObject({ success: false, error_kind: 'config_error' });
    if (r.success) throw new Error('unreachable');
    expect(r.error).toMatch(message);
    expect(h.server.requests).toHaveLength(0);
  });

  it('config_error: a profile without a key', async () => {
    h = await coderHarness([]);
    const r = await h.run({}, { backend: { baseUrl: h.server.url, apiKey: ' ', model: 'm' } });
    expect(r).toMatchObject({ success: false, error_kind: 'config_error', error: expect.stringContaining('no API key') });
  });

  it('unexpected_exception: a failure of our own becomes a result, not a crash', async () => {
    h = await coderHarness([]);
    const r = await h.run({}, { onAttempt: () => { throw new Error('observer blew up'); } });
    expect(r).toMatchObject({ success: false, error_kind: 'unexpected_exception', error: expect.stringContaining('observer blew up') });
    expect(h.server.requests).toHaveLength(0);
  });
});
