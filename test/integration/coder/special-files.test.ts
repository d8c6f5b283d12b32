import { linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHookServer, type HookServer } from '../../../src-main/coder/approval-hook';
import { changedPaths, snapshotWorkspace } from '../../../src-main/coder/workspace-state';
import { capturePosts } from '../../../src-main/agents/orchestrator/undo';
import { fifoValve, longestStall, makeFifo } from '../../support/fifo';
import { gitIn, makeRepo, tempDir } from '../../support/temp';

/**
 * Issue 8 item 3 for the Claude Code executor and snapshots: workspace snapshots (before and
 * after a run) and /undo's blobs never open a FIFO (git hash-object or a read would wait
 * forever); the approval hook refuses file tools on FIFOs, sockets and devices, and a headless
 * run refuses writes through a hard link.
 */
const cleanups: Array<() => unknown> = [];
let server: HookServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const c of cleanups.splice(0)) await c();
});

/** Far below the valve's period: nothing waited on the FIFO. */
const MAX_STALL_MS = 2_500;

function repo(): string {
  const r = makeRepo('fd-special-');
  cleanups.push(() => r.cleanup());
  return r.path;
}

function valve(path: string): void {
  const v = fifoValve(path);
  cleanups.push(() => v.stop());
}

describe('snapshots skip FIFOs', () => {
  it('a tracked file replaced by a FIFO and an untracked FIFO: the git snapshot completes and sees the change', async () => {
    const cd = repo();
    writeFileSync(join(cd, 'data.txt'), 'data\n');
    gitIn(cd, 'add', 'data.txt');
    gitIn(cd, 'commit', '-q', '-m', 'data');
    const before = await snapshotWorkspace(cd);
    rmSync(join(cd, 'data.txt'));
    makeFifo(join(cd, 'data.txt'));
    makeFifo(join(cd, 'new-pipe'));
    valve(join(cd, 'data.txt'));
    valve(join(cd, 'new-pipe'));
    const { value: after, stallMs } = await longestStall(() => snapshotWorkspace(cd));
    expect(stallMs).toBeLessThan(MAX_STALL_MS);
    expect(after.entries.get('data.txt')).toMatch(/^ ?M ?:special:fifo:/);
    expect(await changedPaths(before, after)).toEqual(['data.txt']);
  }, 60_000);

  it('outside git: the tree walk lists a FIFO without reading it', async () => {
    const d = tempDir('fd-special-tree-');
    cleanups.push(() => d.cleanup());
    mkdirSync(join(d.path, 'sub'));
    writeFileSync(join(d.path, 'sub/a.txt'), 'a');
    makeFifo(join(d.path, 'sub/pipe'));
    valve(join(d.path, 'sub/pipe'));
    const { value: snap, stallMs } = await longestStall(() => snapshotWorkspace(d.path));
    expect(stallMs).toBeLessThan(MAX_STALL_MS);
    expect(snap.kind).toBe('tree');
    expect(snap.entries.get('sub/a.txt')).toMatch(/^sha1:/);
    expect(snap.entries.has('sub/pipe')).toBe(true);
  }, 60_000);

  it("/undo's post-images refuse a file that became a FIFO instead of handing it to git hash-object", async () => {
    const cd = repo();
    makeFifo(join(cd, 'edited.txt'));
    valve(join(cd, 'edited.txt'));
    // Before, git hash-object waited on it until the valve let it through (or git's 30 s timeout).
    await expect(capturePosts(cd, ['edited.txt'])).rejects.toThrow(/is not a regular file .* not snapshotted/);
  }, 60_000);
});

describe('the approval hook', () => {
  async function post(body: unknown): Promise<{ permissionDecision: string; permissionDecisionReason: string }> {
    const res = await fetch(server!.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${server!.secret}` }, body: JSON.stringify(body) });
    return ((await res.json()) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } }).hookSpecificOutput;
  }

  it('refuses Read, Write and Edit of a FIFO before the gate is asked', async () => {
    const cd = repo();
    makeFifo(join(cd, 'pipe'));
    const asked: string[] = [];
    server = await startHookServer({ cd, sandbox: 'workspace-write', gate: { decide: async (r) => (asked.push(r.tool), { allow: true, reason: 'ok' }) } });
    for (const [tool, input] of [
      ['Read', { file_path: join(cd, 'pipe') }],
      ['Write', { file_path: join(cd, 'pipe'), content: 'x' }],
      ['Edit', { file_path: join(cd, 'pipe'), old_string: 'a', new_string: 'b' }],
    ] as const) {
      const d = await post({ tool_name: tool, tool_input: input });
      expect(d.permissionDecision).toBe('deny');
      expect(d.permissionDecisionReason).toBe(`${join(cd, 'pipe')} is a FIFO (named pipe), not a regular file: file tools are refused on it (opening it could wait forever).`);
    }
    expect(asked).toEqual([]);
    expect((await post({ tool_name: 'Read', tool_input: { file_path: join(cd, 'README.md') } })).permissionDecision).toBe('allow');
  });

  it('headless: a Write to a hard-linked file is refused with the reason; other writes run', async () => {
    const cd = repo();
    const out = tempDir('fd-special-out-');
    cleanups.push(() => out.cleanup());
    writeFileSync(join(out.path, 'target'), 'x');
    linkSync(join(out.path, 'target'), join(cd, 'linked'));
    server = await startHookServer({ cd, sandbox: 'workspace-write', gate: null });
    const d = await post({ tool_name: 'Write', tool_input: { file_path: join(cd, 'linked'), content: 'y' } });
    expect(d.permissionDecision).toBe('deny');
    expect(d.permissionDecisionReason).toMatch(/linked has 2 hard links: .*No one can approve it/);
    expect((await post({ tool_name: 'Write', tool_input: { file_path: join(cd, 'plain'), content: 'y' } })).permissionDecision).toBe('allow');
  });
});
