/**
 * The built-in loop's commands (bash tool calls, `!` commands) run confined by bubblewrap,
 * through the real terminal runner. Every check looks at the file system from outside the
 * sandbox: a write outside the session folder does not exist afterwards.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, toolThenText, type Harness } from '../agents/harness';

let h: Harness | undefined;
const strays: string[] = [];
let listener: Server | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  for (const p of strays.splice(0)) rmSync(p, { force: true, recursive: true });
  listener?.close();
  listener = undefined;
});

function outsidePath(where: string): string {
  const p = join(where, `fd-sandbox-outside-${randomBytes(6).toString('hex')}.txt`);
  strays.push(p);
  return p;
}

describe('commands of the built-in loop are confined by the session sandbox', () => {
  it('workspace-write (the default): a bash tool call writes inside the folder, not in /tmp, $HOME or .git', async () => {
    const inTmp = outsidePath(tmpdir());
    const inHome = outsidePath(homedir());
    h = await harness(
      toolThenText('bash', {
        command: `touch ${inTmp}; echo tmp=$?; touch ${inHome}; echo home=$?; touch .git/hooks/pre-commit; echo git=$?; echo made > inside.txt; echo inside=$?`,
      }),
    );
    const id = h.session({ mode: 'yolo' });
    expect(h.app.agents.getSession(id).sandbox).toBe('workspace-write');
    const r = await h.app.agents.run(id, 'write a few files');
    expect(r.outcome).toBe('completed');
    const result = h.events(id, 'tool.result')[0]!;
    expect(result.content).toContain('inside=0');
    // /tmp inside the sandbox is private: the write worked there and vanished with it.
    expect(existsSync(inTmp)).toBe(false);
    expect(result.content).toMatch(/home=1/);
    expect(existsSync(inHome)).toBe(false);
    expect(result.content).toMatch(/git=1/);
    expect(existsSync(join(h.repo, '.git/hooks/pre-commit'))).toBe(false);
    expect(existsSync(join(h.repo, 'inside.txt'))).toBe(true);
  });

  it('`!` commands get the same confinement; read-only refuses writes even inside the folder', async () => {
    const outside = outsidePath(homedir());
    h = await harness();
    const id = h.session({ mode: 'yolo' });
    await h.app.agents.run(id, `!touch ${outside}`);
    expect(h.events(id, 'command.result').at(-1)).toMatchObject({ ok: false, exitCode: 1 });
    expect(h.events(id, 'command.result').at(-1)!.text).toContain('Read-only file system');
    expect(existsSync(outside)).toBe(false);

    h.app.agents.updateSession({ sessionId: id, sandbox: 'read-only' });
    expect(h.app.agents.getSession(id).sandbox).toBe('read-only');
    await h.app.agents.run(id, '!touch ro.txt');
    expect(h.events(id, 'command.result').at(-1)).toMatchObject({ ok: false, exitCode: 1 });
    expect(existsSync(join(h.repo, 'ro.txt'))).toBe(false);
    // Reading still works.
    await h.app.agents.run(id, '!cat README.md > /dev/null && echo read-ok');
    expect(h.events(id, 'command.result').at(-1)).toMatchObject({ ok: true });
  });

  it('danger-full-access is an explicit choice, kept by the session, and runs unconfined', async () => {
    const outside = outsidePath(homedir());
    h = await harness();
    const id = h.app.agents.createSession({ root: h.repo, mode: 'yolo', sandbox: 'danger-full-access' }).id;
    expect(h.app.agents.getSession(id).sandbox).toBe('danger-full-access');
    await h.app.agents.run(id, `!touch ${outside}`);
    expect(h.events(id, 'command.result').at(-1)).toMatchObject({ ok: true, exitCode: 0 });
    expect(existsSync(outside)).toBe(true);
    // Switching back confines again.
    h.app.agents.updateSession({ sessionId: id, sandbox: 'workspace-write' });
    rmSync(outside);
    await h.app.agents.run(id, `!touch ${outside}`);
    expect(existsSync(outside)).toBe(false);
  });
});

async function listen(): Promise<number> {
  listener = createServer((sock) => {
    // The client may go before reading (the "off" case never connects; others close early).
    sock.on('error', () => undefined);
    sock.end('hello\n');
  });
  await new Promise<void>((r) => listener!.listen(0, '127.0.0.1', () => r()));
  const addr = listener.address();
  if (typeof addr !== 'object' || addr === null) throw new Error('no port');
  return addr.port;
}

describe('network for sandboxed commands follows the setting', () => {
  it('on: a command reaches a local server; off: it cannot', async () => {
    const port = await listen();
    h = await harness();
    const id = h.session({ mode: 'yolo' });
    const probe = `!exec 3<>/dev/tcp/127.0.0.1/${port} && head -c 5 <&3`;
    await h.app.agents.run(id, probe);
    expect(h.events(id, 'command.result').at(-1)).toMatchObject({ ok: true });
    expect(h.events(id, 'command.result').at(-1)!.text).toContain('hello');

    h.app.agents.updateSettings({ sandboxNetwork: 'off' });
    await h.app.agents.run(id, probe);
    expect(h.events(id, 'command.result').at(-1)).toMatchObject({ ok: false });
    expect(h.events(id, 'command.result').at(-1)!.text).not.toContain('hello');

    // Domain filtering needs a proxy only Claude Code's sandbox has: here allow-list means no network.
    h.app.agents.updateSettings({ sandboxNetwork: 'allow-list', sandboxAllowedDomains: ['localhost'] });
    await h.app.agents.run(id, probe);
    expect(h.events(id, 'command.result').at(-1)).toMatchObject({ ok: false });
  });
});

