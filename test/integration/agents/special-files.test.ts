import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fifoValve, longestStall, makeFifo } from '../../support/fifo';
import { tempDir } from '../../support/temp';
import { harness, nextApproval, waitFor, type Harness } from './harness';

/**
 * Issue 8 item 3: a FIFO (or socket, or device) in the repository froze the whole host: the
 * read tool opened it on the main thread and every request waited; a write to it wedged the
 * session past any cancel. File tools now refuse what is not a regular file or a folder
 * without ever opening it in a way that can wait. A valve opens the FIFO every few seconds, so
 * a regression shows up as a stall of the event loop (asserted against), not a hung test run.
 * Hard links: a change to a file with more than one name asks first, in every mode.
 */
let h: Harness | undefined;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  await h?.cleanup();
  h = undefined;
});

/**
 * Far below the valve's period (4 s): the event loop is never held while a tool waits on the
 * FIFO. Generous for a loaded machine, where timers can be late by a few hundred ms.
 */
const MAX_STALL_MS = 2_500;

function listen(path: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(path, () => resolve(s));
  });
}

const results = (hh: Harness, id: string) => hh.events(id, 'tool.result');

describe('FIFOs, sockets and devices in the repository', () => {
  it('read, write, patch, grep and glob refuse them at once; the event loop never stalls; the session stays usable', async () => {
    h = await harness([
      {
        blocks: [
          { type: 'tool_use', name: 'read', input: { path: 'pipe' } },
          { type: 'tool_use', name: 'read', input: { path: 'to-pipe' } },
          { type: 'tool_use', name: 'read', input: { path: 'sock' } },
          { type: 'tool_use', name: 'read', input: { path: 'null-device' } },
          { type: 'tool_use', name: 'write', input: { path: 'pipe', content: 'written\n' } },
          { type: 'tool_use', name: 'patch', input: { path: 'pipe', edits: [{ search: 'a', replace: 'b' }] } },
          { type: 'tool_use', name: 'grep', input: { pattern: 'needle' } },
          { type: 'tool_use', name: 'grep', input: { pattern: 'x', path: 'pipe' } },
          { type: 'tool_use', name: 'glob', input: { pattern: '**/*' } },
          { type: 'tool_use', name: 'read', input: { path: 'src/code.txt' } },
        ],
      },
      { blocks: [{ type: 'text', text: 'Those are not files I can use.' }] },
      { blocks: [{ type: 'text', text: 'Still here.' }] },
    ]);
    const repo = h.repo;
    mkdirSync(join(repo, 'src'));
    writeFileSync(join(repo, 'src/code.txt'), 'a needle in the code\n');
    makeFifo(join(repo, 'pipe'));
    makeFifo(join(repo, 'src/inner-pipe'));
    symlinkSync('pipe', join(repo, 'to-pipe'));
    const sock = await listen(join(repo, 'sock'));
    cleanups.push(() => new Promise((r) => sock.close(() => r(null))));
    // A character device inside the root: a bind of /dev/null's kind (mknod needs root).
    const canMknod = process.getuid?.() === 0;
    if (canMknod) {
      const r = (await import('node:child_process')).spawnSync('mknod', [join(repo, 'null-device'), 'c', '1', '3']);
      if (r.status !== 0) throw new Error(String(r.stderr));
    }
    const valves = [fifoValve(join(repo, 'pipe')), fifoValve(join(repo, 'src/inner-pipe'))];
    cleanups.push(() => valves.forEach((v) => v.stop()));

    const id = h.session({ mode: 'auto-edit' });
    const { value: r, stallMs } = await longestStall(() => h!.app.agents.run(id, 'look at the special files'));
    expect(r.outcome).toBe('completed');
    expect(stallMs).toBeLessThan(MAX_STALL_MS);

    const out = results(h, id).map((x) => x.content);
    expect(out[0]).toMatch(/^pipe is a FIFO \(named pipe\), not a regular file/);
    // The link resolves inside the root to the same FIFO: refused the same way, by its real name.
    expect(out[1]).toMatch(/^pipe is a FIFO \(named pipe\), not a regular file/);
    expect(out[2]).toMatch(/^sock is a socket, not a regular file/);
    if (canMknod) expect(out[3]).toMatch(/^null-device is a character device, not a regular file/);
    else expect(out[3]).toMatch(/does not exist/);
    expect(out[4]).toMatch(/^pipe is a FIFO \(named pipe\), not a regular file/);
    expect(out[5]).toMatch(/^pipe is a FIFO \(named pipe\), not a regular file/);
    // grep walks the tree that holds two FIFOs and a socket and finds the regular file's line.
    expect(out[6]).toBe('src/code.txt:1: a needle in the code');
    expect(out[7]).toMatch(/^pipe is a FIFO \(named pipe\), not a regular file/);
    expect(out[8]!.split('\n')).toContain('src/code.txt');
    expect(out[8]).not.toMatch(/pipe|sock/);
    expect(out[9]).toContain('a needle in the code');
    expect(results(h, id).slice(0, 6).every((x) => x.isError)).toBe(true);

    // Not wedged: the next turn runs as usual.
    expect((await h.app.agents.run(id, 'still there?')).outcome).toBe('completed');
  }, 90_000);

  it('a command that blocks on the FIFO is cancelled, and the host keeps answering meanwhile', async () => {
    h = await harness([{ blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'echo waiting; cat > pipe' } }] }]);
    makeFifo(join(h.repo, 'pipe'));
    const id = h.session({ mode: 'yolo' });
    const { value: r, stallMs } = await longestStall(async () => {
      const running = h!.app.agents.run(id, 'write into the pipe');
      await waitFor(() => h!.events(id, 'tool.output').some((o) => o.chunk.includes('waiting')), 'the command to start', 30_000);
      // The host answers other requests while the command waits.
      const listed = (await h!.app.router.dispatch('agents.sessions.list', {}, { origin: 'test', connectionId: 't' })) as { ok: boolean };
      expect(listed.ok).toBe(true);
      expect(h!.app.agents.cancel(id)).toBe(true);
      return running;
    });
    expect(r.outcome).toBe('cancelled');
    expect(stallMs).toBeLessThan(MAX_STALL_MS);
  }, 60_000);
});

describe('hard links', () => {
  function linkedOutside(repo: string): { outside: string; inside: string } {
    const dir = tempDir('fd-outside-');
    cleanups.push(() => dir.cleanup());
    const outside = join(dir.path, 'settings.conf');
    writeFileSync(outside, 'original outside the root\n');
    const inside = join(repo, 'linked.conf');
    linkSync(outside, inside);
    return { outside, inside };
  }

  for (const mode of ['auto-edit', 'yolo'] as const) {
    it(`in ${mode} mode a write to a file with two names asks first and says why; denied, nothing changes`, async () => {
      h = await harness([
        { blocks: [{ type: 'tool_use', name: 'write', input: { path: 'linked.conf', content: 'changed by the agent\n' } }] },
        { blocks: [{ type: 'text', text: 'Understood.' }] },
      ]);
      const { outside, inside } = linkedOutside(h.repo);
      const id = h.session({ mode });
      const running = h.app.agents.run(id, 'change linked.conf');
      const a = await nextApproval(h, id);
      expect(a.tool).toBe('write');
      expect(a.reason).toBe('linked.conf has 2 hard links: changing it also changes the same file under its other names, which can be outside the session root. This asks in every mode.');
      expect(a.risk).toBe('high');
      h.app.agents.gate.answer(a.id, 'deny', 'not that file');
      expect((await running).outcome).toBe('completed');
      expect(readFileSync(outside, 'utf8')).toBe('original outside the root\n');
      expect(readFileSync(inside, 'utf8')).toBe('original outside the root\n');
    }, 60_000);
  }

  it("another executor's Edit (Claude Code, through decide()) of a hard-linked file asks too, even in auto-edit", async () => {
    h = await harness([]);
    const { outside } = linkedOutside(h.repo);
    const id = h.session({ mode: 'auto-edit' });
    const ctl = new AbortController();
    const verdict = h.app.agents.decide({ sessionId: id, tool: 'Edit', input: { file_path: 'linked.conf', old_string: 'original', new_string: 'x' }, source: 'claude-code', signal: ctl.signal });
    const a = await nextApproval(h, id);
    expect(a).toMatchObject({ tool: 'patch', risk: 'high', sessionRule: 'patch hard-linked linked.conf' });
    expect(a.reason).toMatch(/^linked\.conf has 2 hard links/);
    h.app.agents.gate.answer(a.id, 'deny');
    expect(await verdict).toMatchObject({ allow: false });
    expect(readFileSync(outside, 'utf8')).toBe('original outside the root\n');
    // A file with one name is not asked about in auto-edit.
    writeFileSync(join(h.repo, 'single.conf'), 'one name\n');
    expect(await h.app.agents.decide({ sessionId: id, tool: 'Edit', input: { file_path: 'single.conf', old_string: 'one', new_string: 'x' } })).toMatchObject({ allow: true });
  }, 60_000);

  it('approved, the change goes through the link (the other name sees it); "for this session" covers that one file only', async () => {
    h = await harness([
      { blocks: [{ type: 'tool_use', name: 'patch', input: { path: 'linked.conf', edits: [{ search: 'original', replace: 'patched' }] } }] },
      { blocks: [{ type: 'tool_use', name: 'patch', input: { path: 'linked.conf', edits: [{ search: 'patched', replace: 'patched twice' }] } }] },
      { blocks: [{ type: 'tool_use', name: 'patch', input: { path: 'other.conf', edits: [{ search: 'other', replace: 'third' }] } }] },
      { blocks: [{ type: 'text', text: 'Done.' }] },
    ]);
    const { outside } = linkedOutside(h.repo);
    const otherDir = tempDir('fd-outside2-');
    cleanups.push(() => otherDir.cleanup());
    const other = join(otherDir.path, 'other.conf');
    writeFileSync(other, 'other\n');
    linkSync(other, join(h.repo, 'other.conf'));
    const id = h.session({ mode: 'auto-edit' });
    const running = h.app.agents.run(id, 'change both');
    const first = await nextApproval(h, id);
    expect(first.sessionRule).toBe('patch hard-linked linked.conf');
    expect(first.diff).toContain('+patched outside the root');
    h.app.agents.gate.answer(first.id, 'approve_session');
    // The second patch of the same file is covered; the other hard-linked file asks again.
    const second = await waitFor(() => h!.app.agents.gate.pending(id).find((x) => x.id !== first.id), 'the second approval');
    expect(second.sessionRule).toBe('patch hard-linked other.conf');
    expect(readFileSync(outside, 'utf8')).toBe('patched twice outside the root\n');
    h.app.agents.gate.answer(second.id, 'approve_once');
    expect((await running).outcome).toBe('completed');
    expect(readFileSync(other, 'utf8')).toBe('third\n');
    expect(h.events(id, 'approval.requested')).toHaveLength(2);
  }, 60_000);
});
