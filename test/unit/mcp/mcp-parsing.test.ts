/** Parsers of MCP server input: a repository's .mcp.json and the contract. (The Settings form's: test/unit/renderer/mcp-command-line.test.ts.) */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readMcpJson } from '../../../src-main/mcp/mcp-service';
import { McpServerInput } from '../../../src-preload/contract';

describe('.mcp.json', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const write = (text: string) => {
    dir = mkdtempSync(join(tmpdir(), 'fd-mcp-json-'));
    writeFileSync(join(dir, '.mcp.json'), text);
    return dir;
  };

  it('reads stdio and http servers in Claude Code\'s format and skips what does not fit', () => {
    const root = write(
      JSON.stringify({
        mcpServers: {
          ok: { command: 'npx', args: ['-y', 'x'], env: { K: 'v' } },
          web: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer t' } },
          'bad__name': { command: 'x' },
          noCommand: { args: [] },
          badArgs: { command: 'x', args: 'not a list' },
          fileUrl: { url: 'file:///etc/passwd' },
          nul: null,
        },
      }),
    );
    expect(readMcpJson(root).map((s) => s.name)).toEqual(['ok', 'web']);
  });

  it('gives nothing for a missing, malformed or oversized file', () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-mcp-json-'));
    expect(readMcpJson(dir)).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
    for (const text of ['not json', '[]', '{"mcpServers": 3}', 'null', JSON.stringify({ mcpServers: { a: { command: 'x', pad: 'y'.repeat(300_000) } } })]) {
      expect(readMcpJson(write(text))).toEqual([]);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the contract refuses what a server must not be', () => {
    expect(McpServerInput.safeParse({ transport: 'stdio', name: 'x', command: 'c', env: { 'A B': 'v' } }).success).toBe(false);
    expect(McpServerInput.safeParse({ transport: 'http', name: 'x', url: 'http://h/mcp', headers: { H: 'a\r\nInjected: 1' } }).success).toBe(false);
    expect(McpServerInput.safeParse({ transport: 'stdio', name: '-x', command: 'c' }).success).toBe(false);
    expect(McpServerInput.safeParse({ transport: 'ws', name: 'x', url: 'ws://h' }).success).toBe(false);
  });
});
