/**
 * Issue 25 §1, the Claude Code executor: the same MCP servers reach the real `claude` CLI as a
 * generated `--mcp-config` file (mode 0600, in the run's private folder, gone after the run)
 * beside `--strict-mcp-config`, and its MCP tool call passes Flightdeck's approval hook.
 */
import { chmodSync, existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src-preload/contract';
import { AppServices } from '../../../src-main/app/services';
import { inFolder, mcpServerFolder } from '../../../src-main/mcp/mcp-service';
import { claudeArgs } from '../../../src-main/coder/core/launch';
import { silentLogger } from '../../../src-main/platform/logger';
import { startModelServer, type ModelServer } from '../../fixtures/model-server/index';
import { fixtureCommand } from '../../fixtures/mcp/index';
import { makeRepo, tempDir } from '../../support/temp';
import { CLAUDE_BIN, requestText, saveScriptedProfile } from '../coder/support';

const SECRET = 'claude-mcp-secret-0a9b8c7d6e';

describe('claude arguments', () => {
  it('names the generated MCP config and keeps --strict-mcp-config', () => {
    const args = claudeArgs({ sandbox: 'workspace-write', settingsPath: '/run/s.json', resume: null, mcpConfigPath: '/run/mcp.json' });
    expect(args).toContain('--strict-mcp-config');
    expect(args.slice(args.indexOf('--mcp-config'), args.indexOf('--mcp-config') + 2)).toEqual(['--mcp-config', '/run/mcp.json']);
    const none = claudeArgs({ sandbox: 'workspace-write', settingsPath: '/run/s.json', resume: null });
    expect(none).toContain('--strict-mcp-config');
    expect(none).not.toContain('--mcp-config');
  });
});

let cleanup: (() => Promise<void>) | null = null;
afterEach(async () => {
  await cleanup?.();
  cleanup = null;
});

describe('a Claude Code session with an MCP server', () => {
  it('gets the server in a 0600 --mcp-config, asks before the MCP call (a tool set to Deny refused unasked), and the tool result reaches the model', async () => {
    const server: ModelServer = await startModelServer({
      script: [
        { blocks: [{ type: 'tool_use', name: 'mcp__fixture__echo', input: { text: 'from claude' } }] },
        { match: { userPattern: 'echo: from claude' }, blocks: [{ type: 'tool_use', name: 'mcp__fixture__where', input: {} }] },
        { match: { userPattern: 'cwd=' }, blocks: [{ type: 'tool_use', name: 'mcp__fixture__leak', input: {} }] },
        { match: { userPattern: 'the secret is' }, blocks: [{ type: 'text', text: 'The MCP server answered.' }] },
      ],
    });
    const data = tempDir('fd-mcp-cc-data-');
    const home = tempDir('fd-mcp-cc-home-');
    const rec = tempDir('fd-mcp-cc-rec-');
    const repo = makeRepo('fd-mcp-cc-repo-');
    // A wrapper in front of the real CLI records its argv and a copy of the MCP config (with its mode) while it exists.
    const wrapper = join(rec.path, 'claude');
    writeFileSync(
      wrapper,
      `#!/bin/sh
printf '%s' "\${MCP_CONNECTION_NONBLOCKING-unset}" > '${rec.path}/nonblocking'
prev=""
for a in "$@"; do
  printf '%s\\n' "$a" >> '${rec.path}/argv'
  if [ "$prev" = "--mcp-config" ]; then cp "$a" '${rec.path}/mcp.json'; stat -c %a "$a" > '${rec.path}/mode'; printf '%s' "$a" > '${rec.path}/path'; fi
  prev="$a"
done
exec '${CLAUDE_BIN}' "$@"
`,
    );
    chmodSync(wrapper, 0o755);
    const app = await AppServices.create({ dataDir: data.path, logger: silentLogger, platform: { runtime: 'browser' }, coderEnv: { HOME: home.path, CLAUDE_CODE_MAX_RETRIES: '0' } });
    cleanup = async () => {
      delete process.env.FD_MCP_CC_SECRET;
      app.dispose();
      await server.close();
      for (const d of [data, home, rec, repo]) d.cleanup();
    };
    app.coder.updateSettings({ claudePath: wrapper, idleTimeoutS: 60, maxDurationS: 180 });
    saveScriptedProfile(app, server.url);
    const published: AgentEvent[] = [];
    app.hub.subscribe((e) => {
      if (e.topic === 'agents.event') published.push(e.payload as AgentEvent);
    });
    const { command, args } = fixtureCommand(['--where-tool', '--leak-tool']);
    // The secret reaches the server through ${…}, which the CLI fills from its environment.
    process.env.FD_MCP_CC_SECRET = SECRET;
    app.mcp.add({ transport: 'stdio', name: 'fixture', command, args, env: { FIXTURE_SECRET: '${FD_MCP_CC_SECRET}' } });

    const s = app.agents.createSession({ root: repo.path });
    app.coder.updateSession({ sessionId: s.id, executor: 'claude-code' });
    const approvals: string[] = [];
    const off = app.hub.subscribe((e) => {
      if (e.topic !== 'agents.approvals.changed') return;
      const a = (e.payload as { approval: { id: string; sessionId: string; status: string; tool: string } }).approval;
      if (a.sessionId !== s.id || a.status !== 'pending') return;
      approvals.push(a.tool);
      queueMicrotask(() => app.agents.gate.answer(a.id, 'approve_once'));
    });
    const r = await app.agents.run(s.id, 'call the echo tool');
    off();
    expect(r.outcome).toBe('completed');
    expect(approvals).toEqual(['mcp__fixture__echo', 'mcp__fixture__where', 'mcp__fixture__leak']);

    // The CLI got the config file beside --strict-mcp-config; it held the server with its secret, 0600, and is gone now.
    const argv = readFileSync(join(rec.path, 'argv'), 'utf8').split('\n');
    expect(argv).toContain('--strict-mcp-config');
    expect(argv).toContain('--mcp-config');
    expect(JSON.parse(readFileSync(join(rec.path, 'mcp.json'), 'utf8'))).toEqual({ mcpServers: { fixture: { type: 'stdio', ...inFolder(command, args), env: { FIXTURE_SECRET: '${FD_MCP_CC_SECRET}' } } } });
    expect(readFileSync(join(rec.path, 'mode'), 'utf8').trim()).toBe('600');
    // The CLI waits for the servers before its first model call (else, starting slowly, their tools are missing from it).
    expect(readFileSync(join(rec.path, 'nonblocking'), 'utf8')).toBe('0');
    expect(existsSync(readFileSync(join(rec.path, 'path'), 'utf8'))).toBe(false);

    // The model was offered the tool and read its result; the secret went nowhere else.
    const first = server.mainRequests()[0]!.body as { tools: Array<{ name: string }> };
    expect(first.tools.map((t) => t.name)).toContain('mcp__fixture__echo');
    const requests = server.mainRequests();
    expect(requestText(requests.at(-2)!.body)).toContain('echo: from claude');
    // Claude Code starts its servers in the session's worktree; the server ran in the folder the
    // built-in loop uses instead (test/integration/mcp/mcp-suggestions.test.ts asks the same tool there).
    expect(requestText(requests.at(-2)!.body)).toContain(`cwd=${realpathSync(mcpServerFolder())} `);
    expect(requestText(requests.at(-2)!.body)).not.toContain(`cwd=${realpathSync(repo.path)} `);
    const result = published.find((e) => e.sessionId === s.id && e.data.type === 'tool.result');
    expect(result?.data).toMatchObject({ isError: false });
    // A server that returns its secret: the card shows it hidden, and the stored transcript too
    // (the CLI hands the result to the model itself, so only the calls before it are free of it).
    const leak = published.find((e) => e.sessionId === s.id && e.data.type === 'tool.result' && e.data.tool === 'mcp__fixture__leak');
    expect(leak?.data).toMatchObject({ content: 'the secret is ***' });
    expect(JSON.stringify(published)).not.toContain(SECRET);
    const stored = JSON.stringify(app.agents.messages.live(s.id));
    expect(stored).toContain('the secret is ***');
    expect(stored).not.toContain(SECRET);
    expect(JSON.stringify(requests.slice(0, -1).map((r) => r.body))).not.toContain(SECRET);

    // Set to always deny (Settings → MCP servers): Claude Code's call is refused by the same
    // approval hook without asking, and the server never runs it.
    app.mcp.setToolPolicy('fixture', 'echo', 'deny');
    server.setScript([
      { match: { userPattern: 'echo once more' }, blocks: [{ type: 'tool_use', name: 'mcp__fixture__echo', input: { text: 'must not run' } }] },
      { match: { userPattern: 'set to Deny' }, blocks: [{ type: 'text', text: 'Refused as you set it.' }] },
    ]);
    const asked: string[] = [];
    const off2 = app.hub.subscribe((e) => {
      if (e.topic !== 'agents.approvals.changed') return;
      const a = (e.payload as { approval: { id: string; sessionId: string; status: string; tool: string } }).approval;
      if (a.sessionId !== s.id || a.status !== 'pending') return;
      asked.push(a.tool);
      queueMicrotask(() => app.agents.gate.answer(a.id, 'deny'));
    });
    const denied = await app.agents.run(s.id, 'echo once more');
    off2();
    expect(denied.outcome).toBe('completed');
    expect(asked).toEqual([]);
    const refusal = published.filter((e) => e.sessionId === s.id && e.data.type === 'tool.result' && e.data.tool === 'mcp__fixture__echo').at(-1);
    expect(refusal?.data).toMatchObject({ isError: true, content: expect.stringContaining('mcp__fixture__echo is set to Deny') });
    expect(JSON.stringify(published)).not.toContain('echo: must not run');
    expect(requestText(server.mainRequests().at(-1)!.body)).toContain('set to Deny');
  }, 360_000);
});
