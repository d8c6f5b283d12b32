/**
 * Issue 25 §1: a published MCP server from npm (@modelcontextprotocol/server-everything, a
 * devDependency, runs offline) configured once: Test lists its tools and the built-in loop's
 * mcp__everything__echo reaches it.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp } from '../../support/app';

const require_ = createRequire(import.meta.url);
const EVERYTHING = join(dirname(require_.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');

let done: (() => Promise<void>) | null = null;
afterEach(async () => {
  await done?.();
  done = null;
});

describe('a published MCP server', () => {
  it('server-everything over stdio: its tools listed, echo called', async () => {
    const started = await startTestApp();
    done = async () => {
      await started.app.mcp.close();
      started.cleanup();
    };
    const app = started.app;
    app.mcp.add({ transport: 'stdio', name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] });
    const r = await app.mcp.test('everything');
    expect(r.error).toBeNull();
    expect(r.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    const tools = app.mcp.toolsFor('any');
    expect(tools.map((t) => t.spec.name)).toEqual(expect.arrayContaining(['mcp__everything__echo', 'mcp__everything__get-sum']));
    const echo = tools.find((t) => t.spec.name === 'mcp__everything__echo')!;
    expect((echo.spec.input_schema as { properties: Record<string, unknown> }).properties).toHaveProperty('message');
    expect(await echo.run({ message: 'hello from flightdeck' }, { sessionId: 'x', turnId: 'y', signal: new AbortController().signal })).toEqual({ content: 'Echo: hello from flightdeck', isError: false });
  }, 120_000);
});
