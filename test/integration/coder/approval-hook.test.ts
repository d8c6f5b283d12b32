import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHookServer, type HookServer, type ToolApprovalRequest } from '../../../src-main/coder/approval-hook';
import { tempDir } from '../../support/temp';

let server: HookServer | undefined;
const dirs: Array<{ cleanup(): void }> = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const d of dirs.splice(0)) d.cleanup();
});

function workdir(): string {
  const d = tempDir('fd-hook-');
  dirs.push(d);
  return d.path;
}

async function post(body: unknown, secret: string | null, raw?: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(server!.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(secret !== null ? { authorization: `Bearer ${secret}` } : {}) },
    body: raw ?? JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

const decision = (r: { json: unknown }) => (r.json as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;

describe('the PreToolUse HTTP hook', () => {
  it('refuses requests without the run secret', async () => {
    server = await startHookServer({ cd: workdir(), sandbox: 'workspace-write', gate: null });
    expect((await post({ tool_name: 'Bash', tool_input: { command: 'ls' } }, null)).status).toBe(403);
    expect((await post({ tool_name: 'Bash', tool_input: { command: 'ls' } }, 'wrong')).status).toBe(403);
    expect((await fetch(server.url.replace('/pre-tool-use', '/other'), { method: 'POST' })).status).toBe(404);
  });

  it('answers in Claude Code hook format, asking the gate with engine names and relative paths', async () => {
    const cd = workdir();
    const seen: ToolApprovalRequest[] = [];
    server = await startHookServer({ cd, sandbox: 'workspace-write', gate: { decide: async (r) => (seen.push(r), { allow: r.tool !== 'bash', reason: 'because' }) } });
    const write = await post({ tool_name: 'Write', tool_input: { file_path: join(cd, 'src/a.ts'), content: 'x' }, tool_use_id: 'toolu_1', session_id: 's1' }, server.secret);
    expect(decision(write)).toEqual({ hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'because' });
    const bash = await post({ tool_name: 'Bash', tool_input: { command: 'npm test' } }, server.secret);
    expect(decision(bash).permissionDecision).toBe('deny');
    expect(seen.map((r) => [r.tool, r.summary, r.toolUseId, r.claudeSessionId])).toEqual([
      ['write', 'write src/a.ts', 'toolu_1', 's1'],
      ['bash', 'npm test', '', null],
    ]);
  });

  it('fails closed: unreadable bodies, unnamed tools and gate errors are denials', async () => {
    server = await startHookServer({ cd: workdir(), sandbox: 'workspace-write', gate: { decide: async () => { throw new Error('database is closed'); } } });
    expect(decision(await post(null, server.secret, '{nope')).permissionDecision).toBe('deny');
    expect(decision(await post({ tool_input: {} }, server.secret)).permissionDecision).toBe('deny');
    const failed = decision(await post({ tool_name: 'Bash', tool_input: { command: 'ls' } }, server.secret));
    expect(failed).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('database is closed') });
  });

  it('confines file tools to cd, symlinks included, except in danger-full-access', async () => {
    const cd = workdir();
    const outside = workdir();
    symlinkSync(outside, join(cd, 'escape'));
    mkdirSync(join(cd, 'inside'));
    let asked = 0;
    const gate = { decide: async () => (asked++, { allow: true, reason: 'ok' }) };
    server = await startHookServer({ cd, sandbox: 'workspace-write', gate });
    const viaLink = decision(await post({ tool_name: 'Write', tool_input: { file_path: join(cd, 'escape/x.txt'), content: 'x' } }, server.secret));
    expect(viaLink).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('outside the working folder') });
    expect(decision(await post({ tool_name: 'Read', tool_input: { file_path: '/etc/hostname' } }, server.secret)).permissionDecision).toBe('deny');
    expect(decision(await post({ tool_name: 'Grep', tool_input: { pattern: 'x', path: join(cd, 'inside') } }, server.secret)).permissionDecision).toBe('allow');
    expect(asked).toBe(1);
    await server.close();
    server = await startHookServer({ cd, sandbox: 'danger-full-access', gate });
    expect(decision(await post({ tool_name: 'Read', tool_input: { file_path: '/etc/hostname' } }, server.secret)).permissionDecision).toBe('allow');
  });

  it("asks the gate's admit before any verdict, its own refusals too: a refusal outside cd waits for it, and admit's verdict stands", async () => {
    const cd = workdir();
    const admitted: string[] = [];
    let release: (v: { allow: false; reason: string } | null) => void = () => undefined;
    const gate = {
      admit: (r: ToolApprovalRequest) => (admitted.push(r.toolUseId), new Promise<{ allow: false; reason: string } | null>((done) => (release = done))),
      decide: async () => ({ allow: true, reason: 'ok' }),
    };
    server = await startHookServer({ cd, sandbox: 'workspace-write', gate });
    let answered: ReturnType<typeof decision> | null = null;
    const outside = post({ tool_name: 'Read', tool_input: { file_path: '/etc/hostname' }, tool_use_id: 'toolu_out' }, server.secret).then((r) => (answered = decision(r)));
    await new Promise((r) => setTimeout(r, 100));
    // Not answered (not even refused) while admit holds it: a refusal would be the CLI's next call.
    expect(admitted).toEqual(['toolu_out']);
    expect(answered).toBeNull();
    release(null);
    await outside;
    expect(answered).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('outside the working folder') });
    // A verdict of admit's stands, whatever the tool would have got.
    const inside = post({ tool_name: 'Read', tool_input: { file_path: join(cd, 'a.txt') }, tool_use_id: 'toolu_in' }, server.secret);
    await new Promise((r) => setTimeout(r, 50));
    release({ allow: false, reason: 'The phase "library" reached its limit of 1 turns' });
    expect(decision(await inside)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: 'The phase "library" reached its limit of 1 turns' });
  });

  it("asks admit before refusing a request it cannot read or that names no tool, and admit's verdict stands", async () => {
    const admitted: string[] = [];
    let limit: string | null = null;
    server = await startHookServer({
      cd: workdir(),
      sandbox: 'workspace-write',
      gate: {
        admit: async (r) => (admitted.push(r.toolUseId), limit === null ? null : { allow: false, reason: limit }),
        decide: async () => ({ allow: true, reason: 'ok' }),
      },
    });
    expect(decision(await post(null, server.secret, '{not json')).permissionDecisionReason).toBe('The hook request could not be read.');
    expect(decision(await post({ tool_input: {}, tool_use_id: 'toolu_x' }, server.secret)).permissionDecisionReason).toBe('The hook request named no tool.');
    expect(admitted).toEqual(['', 'toolu_x']);
    limit = 'The run reached its limit of 1 turns';
    expect(decision(await post(null, server.secret, '[1]'))).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: limit });
    expect(decision(await post({ tool_name: '' }, server.secret)).permissionDecisionReason).toBe(limit);
  });

  it('tells the gate when Claude Code gives up waiting, and reports pending decisions', async () => {
    let aborted = false;
    let started!: () => void;
    const waiting = new Promise<void>((r) => (started = r));
    server = await startHookServer({
      cd: workdir(),
      sandbox: 'workspace-write',
      gate: {
        decide: (_r, signal) =>
          new Promise((resolve) => {
            started();
            signal.addEventListener('abort', () => {
              aborted = true;
              resolve({ allow: false, reason: 'aborted' });
            });
          }),
      },
    });
    const ctl = new AbortController();
    const request = fetch(server.url, { method: 'POST', headers: { authorization: `Bearer ${server.secret}` }, body: JSON.stringify({ tool_name: 'Bash', tool_input: { command: 'ls' } }), signal: ctl.signal }).catch(() => null);
    await waiting;
    expect(server.pending()).toBe(1);
    ctl.abort();
    await request;
    await new Promise((r) => setTimeout(r, 100));
    expect(aborted).toBe(true);
    expect(server.pending()).toBe(0);
  });
});
