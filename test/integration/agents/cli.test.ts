import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { startModelServer, type ModelServer, type Script } from '../../fixtures/model-server/index.js';
import { makeRepo, tempDir } from '../../support/temp';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const KEY = 'sk-cli-secret-0123456789abcdef';

async function setup(script: Script): Promise<{ server: ModelServer; data: string; repo: string }> {
  const server = await startModelServer({ script });
  const data = tempDir('fd-cli-agents-');
  const repo = makeRepo();
  cleanups.push(() => server.close(), data.cleanup, repo.cleanup);
  process.env.FD_TEST_KEY = KEY;
  cleanups.push(() => delete process.env.FD_TEST_KEY);
  const r = await cli('profiles', 'set', 'local', '--base-url', server.url, '--model', 'scripted', '--api-key-env', 'FD_TEST_KEY', '--default', '--price-input', '3', '--data-dir', data.path);
  expect(r.code).toBe(0);
  expect(r.out).not.toContain(KEY);
  return { server, data: data.path, repo: repo.path };
}

describe('flightdeck chat and profiles', () => {
  it('manages profiles without ever printing the key', async () => {
    const { data } = await setup([]);
    const list = await cli('profiles', 'list', '--data-dir', data);
    expect(list.out).toMatch(/^\* local\s+scripted\s+http:\/\/127\.0\.0\.1:\d+\s+\(key: stored; \$3\/\$0 per M in\/out\)$/m);
    const json = await cli('profiles', 'list', '--json', '--data-dir', data);
    expect(JSON.parse(json.out).find((p: { name: string }) => p.name === 'local')).toMatchObject({ apiKeySet: true, isDefault: true });
    expect(json.out + list.out).not.toContain(KEY);
    expect((await cli('profiles', 'set', 'newone', '--data-dir', data)).code).toBe(2);
    expect((await cli('profiles', 'remove', 'anthropic', '--data-dir', data)).code).toBe(1);
    expect((await cli('profiles', 'set', 'glm', '--model', 'glm-4.6', '--data-dir', data)).out).toContain('glm-4.6');
    expect((await cli('profiles', 'default', 'glm', '--data-dir', data)).code).toBe(0);
    expect((await cli('profiles', 'remove', 'local', '--data-dir', data)).out).toContain('Removed local');
  });

  it('reads the key from stdin in a real process and does not echo it', () => {
    const data = tempDir('fd-cli-stdin-');
    cleanups.push(data.cleanup);
    const r = spawnSync('npx', ['tsx', 'src-main/cli/main.ts', 'profiles', 'set', 'piped', '--base-url', 'http://127.0.0.1:9', '--model', 'm', '--api-key-stdin', '--data-dir', data.path], {
      input: `${KEY}\n`,
      encoding: 'utf8',
      cwd: join(__dirname, '../../..'),
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('piped');
    expect(r.stdout + r.stderr).not.toContain(KEY);
    expect(JSON.parse(readFileSync(join(data.path, 'secrets.json'), 'utf8'))).toEqual({ 'provider:piped': KEY });
  });

  it('runs one input, prints the transcript and the session id, and resumes with --session', async () => {
    const { data, repo, server } = await setup([{ blocks: [{ type: 'text', text: 'Hello\nfrom the CLI.' }] }, { blocks: [{ type: 'text', text: 'Again.' }] }]);
    const r = await cli('chat', '--cwd', repo, '--data-dir', data, 'remember ZEBRA');
    expect(r.code).toBe(0);
    expect(r.lines).toContain('Hello');
    expect(r.lines).toContain('from the CLI.');
    const id = /session: (ses-[a-z0-9]+)/.exec(r.out)![1]!;
    const again = await cli('chat', '--session', id, '--json', '--data-dir', data, 'what was it?');
    expect(again.code).toBe(0);
    const events = again.lines.map((l) => JSON.parse(l));
    expect(events.at(-1)).toMatchObject({ result: { sessionId: id, outcome: 'completed' } });
    expect(events.slice(0, -1).every((e) => e.sessionId === id && typeof e.seq === 'number')).toBe(true);
    expect(events.map((e) => e.data?.type)).toContain('turn.ended');
    expect(JSON.stringify(server.mainRequests()[1]!.body)).toContain('ZEBRA');
  });

  it('--approve allow|deny|ask decides approvals headlessly; ask without a TTY denies', async () => {
    const writeA: Script[number] = { blocks: [{ type: 'tool_use', name: 'write', input: { path: 'a.txt', content: 'A' } }] };
    const { data, repo } = await setup([writeA, { blocks: [{ type: 'text', text: 'done' }] }, writeA, { blocks: [{ type: 'text', text: 'done' }] }, writeA, { blocks: [{ type: 'text', text: 'done' }] }]);
    const denied = await cli('chat', '--cwd', repo, '--approve', 'deny', '--data-dir', data, 'write a');
    expect(denied.out).toContain('✘ denied: write a.txt (Denied by --approve deny (headless run).)');
    expect(existsSync(join(repo, 'a.txt'))).toBe(false);
    const asked = await cli('chat', '--cwd', repo, '--data-dir', data, 'write a');
    expect(asked.out).toContain('No terminal to ask on');
    expect(existsSync(join(repo, 'a.txt'))).toBe(false);
    const allowed = await cli('chat', '--cwd', repo, '--approve', 'allow', '--data-dir', data, 'write a');
    expect(allowed.out).toContain('✔ approved: write a.txt');
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('A');
  });

  it('--mode, bang and slash inputs, and usage errors', async () => {
    const { data, repo } = await setup([]);
    const bang = await cli('chat', '--cwd', repo, '--mode', 'yolo', '--data-dir', data, '!echo', 'from-bang');
    expect(bang.code).toBe(0);
    expect(bang.out).toContain('│ from-bang');
    expect(bang.out).toContain('[exit code 0]');
    const unknown = await cli('chat', '--cwd', repo, '--data-dir', data, '/nope');
    expect(unknown.code).toBe(1);
    expect(unknown.out).toContain('Unknown command "/nope"');
    expect((await cli('chat', '--cwd', repo, '--data-dir', data)).code).toBe(2);
    expect((await cli('chat', '--cwd', repo, '--approve', 'maybe', '--data-dir', data, 'x')).code).toBe(2);
    expect((await cli('chat', '--mode', 'fast', '--data-dir', data, 'x')).code).toBe(2);
    expect((await cli('chat', '--session', 'abc', '--data-dir', data, 'x')).code).toBe(2);
    const missing = await cli('chat', '--session', 'ses-000000000000', '--data-dir', data, 'x');
    expect(missing).toMatchObject({ code: 1, err: 'error: There is no session ses-000000000000.' });
  });
});
