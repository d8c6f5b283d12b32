/**
 * Issue 25 §1, the CLI: `mcp add NAME -- COMMAND [ARGS…]` (with `--env K=V`), `mcp add NAME
 * --url URL --header K:V`, `mcp list` (names of secrets, never values), `mcp test NAME` (the
 * server's tools), `mcp remove NAME`, against the real MCP fixture server. Secret values can
 * stay off the command line (ps, shell history): `--env K` reads from stdin, `--env-from FILE`.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileSecretStore } from '../../../src-main/agents/provider/secrets';
import { cli } from '../../support/cli';
import { makeRepo, tempDir } from '../../support/temp';
import { startModelServer } from '../../fixtures/model-server/index.js';
import { fixtureCommand, startHttpFixture } from '../../fixtures/mcp/index';

const SECRET = 'cli-secret-55aa11bb22cc';
let dir: { path: string; cleanup(): void } | null = null;
afterEach(() => {
  dir?.cleanup();
  dir = null;
});

describe('flightdeck mcp', () => {
  it('adds a command server with a secret env, lists it without the value, tests it, removes it', async () => {
    dir = tempDir('fd-mcp-cli-');
    const d = ['--data-dir', dir.path];
    const { command, args } = fixtureCommand();
    const add = await cli('mcp', 'add', 'fixture', '--env', `FIXTURE_SECRET=${SECRET}`, ...d, '--', command, ...args);
    expect(add.code).toBe(0);
    expect(add.out).toContain('Added MCP server fixture');

    const list = await cli('mcp', 'list', ...d);
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/^fixture\s+stdio\s+enabled everywhere/m);
    expect(list.out).toContain('env: FIXTURE_SECRET');
    expect(list.out + list.err).not.toContain(SECRET);
    const json = await cli('mcp', 'list', '--json', ...d);
    expect(JSON.parse(json.out)[0]).toMatchObject({ name: 'fixture', envNames: ['FIXTURE_SECRET'] });
    expect(json.out).not.toContain(SECRET);

    const test = await cli('mcp', 'test', 'fixture', ...d);
    expect(test.code).toBe(0);
    expect(test.lines[0]).toBe('fixture: 3 tool(s)');
    expect(test.out).toContain('  echo — Echo the text back.');
    expect(test.out + test.err).not.toContain(SECRET);

    expect((await cli('mcp', 'add', 'fixture', ...d, '--', 'x')).code).not.toBe(0);

    // Per project: enabled for one repository's project only, then for none; everywhere again.
    const repo = makeRepo('fd-mcp-cli-scope-');
    try {
      const only = await cli('mcp', 'enable', 'fixture', '--repo', repo.path, '--json', ...d);
      expect(only.code).toBe(0);
      const projectIds = (JSON.parse(only.out) as { projectIds: string[] }).projectIds;
      expect(projectIds).toHaveLength(1);
      expect((await cli('mcp', 'list', ...d)).out).toMatch(/^fixture\s+stdio\s+enabled for 1 project\(s\)/m);
      expect((await cli('mcp', 'disable', 'fixture', '--repo', repo.path, ...d)).out).toBe('fixture is enabled for no project.');
      expect((await cli('mcp', 'enable', 'fixture', ...d)).out).toBe('fixture is enabled everywhere.');
      const refused = await cli('mcp', 'disable', 'fixture', '--repo', repo.path, ...d);
      expect(refused.code).toBe(2);
      expect(refused.err).toContain('fixture is enabled for every project; choose its projects with: mcp enable fixture --repo DIR');
    } finally {
      repo.cleanup();
    }
    const rm = await cli('mcp', 'remove', 'fixture', ...d);
    expect(rm.code).toBe(0);
    expect((await cli('mcp', 'list', ...d)).out).toContain('No MCP servers');
    expect((await cli('mcp', 'remove', 'fixture', ...d)).code).toBe(1);
  }, 120_000);

  it('adds a URL server with a header and tests it; refuses malformed usage', async () => {
    dir = tempDir('fd-mcp-cli-');
    const d = ['--data-dir', dir.path];
    const http = await startHttpFixture();
    try {
      expect((await cli('mcp', 'add', 'remote', '--url', http.url, '--header', `x-fixture-secret: ${SECRET}`, ...d)).code).toBe(0);
      const test = await cli('mcp', 'test', 'remote', ...d);
      expect(test.code).toBe(0);
      expect(test.out).toContain('secret_check');
      const list = await cli('mcp', 'list', ...d);
      expect(list.out).toContain('headers: x-fixture-secret');
      expect(list.out).not.toContain(SECRET);
    } finally {
      await http.close();
    }
    expect((await cli('mcp', 'add', 'bad', '--url', 'http://127.0.0.1:1/mcp', '--header', ':novalue', ...d)).code).toBe(2);
    expect((await cli('mcp', 'add', 'bad', ...d)).code).toBe(2);
    expect((await cli('mcp', 'add', 'a__b', ...d, '--', 'x')).code).toBe(2);
    const down = await cli('mcp', 'add', 'down', '--url', 'http://127.0.0.1:1/mcp', ...d);
    expect(down.code).toBe(0);
    const failed = await cli('mcp', 'test', 'down', ...d);
    expect(failed.code).toBe(1);
    expect(failed.err).toContain('The MCP server "down" could not be started');
  }, 120_000);
});

const ROOT = resolve(__dirname, '../../..');

/**
 * `flightdeck <args>` as its own process (the installed command, bin/flightdeck.mjs) with
 * `input` on its stdin (a pipe, not a terminal).
 */
function cliWithStdin(args: string[], input: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [resolve(ROOT, 'bin/flightdeck.mjs'), ...args], { cwd: ROOT, input, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('secret values off the command line', () => {
  it('reads --env K and --header K from stdin, one line each, and --env-from / --headers-from', () => {
    dir = tempDir('fd-mcp-cli-stdin-');
    const d = ['--data-dir', dir.path];
    const stored = (key: string) => new FileSecretStore(join(dir!.path, 'secrets.json')).get(key);
    const piped = cliWithStdin(['mcp', 'add', 'piped', '--env', 'TOKEN', '--env', 'OTHER', '--env', 'INLINE=visible', ...d, '--', 'node', 'server.js'], `${SECRET}\nsecond-value\n`);
    expect(piped.stderr).toBe('');
    expect(piped.code).toBe(0);
    expect(stored('mcp:piped:env:TOKEN')).toBe(SECRET);
    expect(stored('mcp:piped:env:OTHER')).toBe('second-value');
    expect(stored('mcp:piped:env:INLINE')).toBe('visible');
    expect(piped.stdout).not.toContain(SECRET);

    // Fewer lines than names: refused in words, nothing added.
    const short = cliWithStdin(['mcp', 'add', 'short', '--env', 'A', '--env', 'B', ...d, '--', 'node'], 'only-one\n');
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('A, B read their values from stdin, one line each, but stdin had 1 line(s)');

    // Files: K=V lines, comments and blank lines skipped; headers as Name: value.
    const envFile = join(dir.path, 'server.env');
    writeFileSync(envFile, `# the token\nTOKEN=${SECRET}\n\nMODE=fast\n`);
    const fromFile = cliWithStdin(['mcp', 'add', 'filed', '--env-from', envFile, ...d, '--', 'node'], '');
    expect(fromFile.code).toBe(0);
    expect([stored('mcp:filed:env:TOKEN'), stored('mcp:filed:env:MODE')]).toEqual([SECRET, 'fast']);
    const headerFile = join(dir.path, 'headers.txt');
    writeFileSync(headerFile, `Authorization: Bearer ${SECRET}\n`);
    expect(cliWithStdin(['mcp', 'add', 'web', '--url', 'https://example.com/mcp', '--headers-from', headerFile, '--header', 'x-key', ...d], 'k-from-stdin\n').code).toBe(0);
    expect([stored('mcp:web:header:Authorization'), stored('mcp:web:header:x-key')]).toEqual([`Bearer ${SECRET}`, 'k-from-stdin']);
    const bad = cliWithStdin(['mcp', 'add', 'bad', '--env-from', join(dir.path, 'missing.env'), ...d, '--', 'node'], '');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('cannot read');
    expect(bad.stderr).toContain('ENOENT');
  }, 120_000);
});

describe('flightdeck chat with an MCP server', () => {
  it('offers the enabled server to the model and runs its tool once approved (--approve allow)', async () => {
    dir = tempDir('fd-mcp-chat-');
    const d = ['--data-dir', dir.path];
    const repo = makeRepo('fd-mcp-chat-repo-');
    const server = await startModelServer({
      script: [
        { blocks: [{ type: 'tool_use', name: 'mcp__fixture__echo', input: { text: 'via chat' } }] },
        { match: { userPattern: 'echo: via chat' }, blocks: [{ type: 'text', text: 'The fixture echoed.' }] },
      ],
    });
    try {
      process.env.FD_MCP_TEST_KEY = 'sk-mcp-chat-key-0123456789';
      expect((await cli('profiles', 'set', 'local', '--base-url', server.url, '--model', 'scripted', '--api-key-env', 'FD_MCP_TEST_KEY', '--default', ...d)).code).toBe(0);
      const { command, args } = fixtureCommand();
      expect((await cli('mcp', 'add', 'fixture', '--env', `FIXTURE_SECRET=${SECRET}`, ...d, '--', command, ...args)).code).toBe(0);
      const r = await cli('chat', '--cwd', repo.path, '--approve', 'allow', ...d, 'use the echo tool');
      expect(r.code).toBe(0);
      expect(r.out).toContain('The fixture echoed.');
      expect(r.out + r.err).not.toContain(SECRET);
      expect((server.mainRequests()[0]!.body as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toContain('mcp__fixture__echo');
      expect(JSON.stringify(server.mainRequests()[1]!.body)).toContain('echo: via chat');
      // Disabled: chat no longer offers it.
      expect((await cli('mcp', 'disable', 'fixture', ...d)).code).toBe(0);
      server.reset();
      await cli('chat', '--cwd', repo.path, '--approve', 'allow', ...d, 'anything');
      expect((server.mainRequests()[0]!.body as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).not.toContain('mcp__fixture__echo');
    } finally {
      delete process.env.FD_MCP_TEST_KEY;
      await server.close();
      repo.cleanup();
    }
  }, 120_000);
});
