/**
 * Issue 25 §1, the CLI: `mcp add NAME -- COMMAND [ARGS…]` (with `--env K=V`), `mcp add NAME
 * --url URL --header K:V`, `mcp list` (names of secrets, never values), `mcp test NAME` (the
 * server's tools), `mcp remove NAME`, against the real MCP fixture server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { tempDir } from '../../support/temp';
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
    expect((await cli('mcp', 'add', 'bad', '--url', 'http://127.0.0.1:1/mcp', '--header', 'novalue', ...d)).code).toBe(2);
    expect((await cli('mcp', 'add', 'bad', ...d)).code).toBe(2);
    expect((await cli('mcp', 'add', 'a__b', ...d, '--', 'x')).code).toBe(2);
    const down = await cli('mcp', 'add', 'down', '--url', 'http://127.0.0.1:1/mcp', ...d);
    expect(down.code).toBe(0);
    const failed = await cli('mcp', 'test', 'down', ...d);
    expect(failed.code).toBe(1);
    expect(failed.err).toContain('The MCP server "down" could not be started');
  }, 120_000);
});
