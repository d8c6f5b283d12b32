/**
 * A shell in a session's container, opened in the terminal grid: typed input runs inside the
 * container (its hostname, the owner's uid, the workspace path), a resize reaches the container's
 * TTY, output arrives through the terminal service, and the exit code comes back. And the agent
 * console: the container's own TTY, attached read-only, showing the agent's commands as they run.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppServices } from '../../../src-main/app/services';
import Docker from 'dockerode';
import { ContainerRunner } from '../../../src-main/containers/container-runner';
import { ContainerService } from '../../../src-main/containers/container-service';
import { consoleLive } from '../../../src-main/containers/console-writer';
import { CONSOLE_MARKER } from '../../../src-main/containers/core/console';
import { silentLogger } from '../../../src-main/platform/logger';
import { ensureTestImage } from '../../support/container-image';
import { startTestApp } from '../../support/app';
import { waitFor } from '../../support/processes';
import { makeRepo, tempDir } from '../../support/temp';

const AGENT_UID = 1000;
let image: string;
let app: AppServices;
let cleanup: () => void;
const repo = makeRepo('fd-ctr-term-');

beforeAll(async () => {
  image = ensureTestImage();
  execFileSync('chown', ['-R', `${AGENT_UID}:${AGENT_UID}`, repo.path]);
  const started = await startTestApp();
  app = started.app;
  cleanup = started.cleanup;
}, 120_000);

afterAll(async () => {
  await app.containers.shutdown();
  app.dispose();
  cleanup();
  repo.cleanup();
});

describe('container terminals', () => {
  it('runs a shell in the container through the terminal grid', async () => {
    const session = app.agents.createSession({ root: repo.path });
    await app.containers.setPlacement(session.id, { image, limits: { memoryBytes: 256 * 1024 * 1024, cpus: 1, pids: 256 } });
    const t = await app.containers.openTerminal(session.id, { cols: 100, rows: 30 });
    expect(t.owner.sessionId).toBe(session.id);
    let out = '';
    app.terminals.onOutput(t.id, (d) => (out += d));
    const placed = app.containers.forSession(session.id)!;
    app.terminals.write(t.id, 'echo "[$(hostname)|$(id -u)|$(pwd)|$(stty size)]"; echo typed > typed.txt\r');
    await waitFor(() => out.includes(`[${placed.id.slice(0, 12)}|${AGENT_UID}|/app/volumes/workspace|30 100]`), 'the shell output', 60_000, 50);
    app.terminals.resize(t.id, 120, 40);
    await new Promise((r) => setTimeout(r, 300));
    app.terminals.write(t.id, 'echo "size=$(stty size)"; exit 7\r');
    const ended = await app.terminals.whenExited(t.id);
    expect(out).toContain('size=40 120');
    // Line ends arrive once, as the container's TTY wrote them (not \r\r\n through a second ONLCR).
    expect(out).toContain('size=40 120\r\n');
    expect(out).not.toContain('\r\r\n');
    expect(ended.exitCode).toBe(7);
    expect(readFileSync(join(repo.path, 'typed.txt'), 'utf8')).toBe('typed\n');
    expect(statSync(join(repo.path, 'typed.txt')).uid).toBe(AGENT_UID);
  }, 90_000);
});

describe('the agent console', () => {
  const run = (runner: ContainerRunner, command: string) => runner.run({ cwd: repo.path, command, env: {}, timeoutMs: 30_000, signal: new AbortController().signal });

  it("shows the agent's commands and their output live, read-only, replaying what came before; docker logs has the same", async () => {
    const session = app.agents.createSession({ root: repo.path });
    await app.containers.setPlacement(session.id, { image });
    const runner = new ContainerRunner(app.containers, session.id);
    // Before the console is opened: replayed from the engine's log when it is.
    expect((await run(runner, 'echo before-open')).exitCode).toBe(0);
    const t = await app.containers.openConsole(session.id, { cols: 100, rows: 30 });
    expect(t.title).toContain('agent console');
    let out = '';
    app.terminals.onOutput(t.id, (d) => (out += d));
    await waitFor(() => out.includes('before-open\r\n'), 'the replayed command', 30_000, 50);
    expect(out).toContain('$ \x1b[0mecho before-open');

    // Live: a command that prints control characters (text here, not a ^C or a ^S to the console,
    // and not the engine's detach sequence, which would close the attach), then fails.
    const r = await run(runner, "printf 'ctl:\\003\\023:end\\n'; printf 'detach:\\020\\021:kept\\n'; echo to-stderr >&2; exit 3");
    expect(r.exitCode).toBe(3);
    await waitFor(() => out.includes('[exit 3]'), 'the live command and its exit', 30_000, 50);
    expect(out).toContain('ctl:\x03\x13:end\r\n');
    expect(out).toContain('detach:^P\x11:kept\r\n');
    expect(out).toContain('to-stderr\r\n');

    // Typed keys go nowhere: the console does not drive anything.
    app.terminals.write(t.id, 'echo typed > typed-in-console.txt\r');
    expect((await run(runner, 'echo after-typing')).exitCode).toBe(0);
    await waitFor(() => out.includes('after-typing\r\n'), 'the next command', 30_000, 50);
    expect(existsSync(join(repo.path, 'typed-in-console.txt'))).toBe(false);
    expect(out).not.toContain('echo typed');

    const logs = await app.containers.logs(session.id);
    expect(logs).toContain('before-open');
    expect(logs).toContain('[exit 3]');

    // The console ends with its container.
    await app.containers.stop(session.id);
    const ended = await app.terminals.whenExited(t.id);
    expect(ended.exitCode).toBe(0);
    expect(out).toContain('[the container stopped]');

    // Opened again on the stopped container: it is started (as a command would), with what it showed before.
    const again = await app.containers.openConsole(session.id, { cols: 100, rows: 30 });
    let replay = '';
    app.terminals.onOutput(again.id, (d) => (replay += d));
    await waitFor(() => replay.includes('after-typing\r\n'), 'the console of the restarted container', 30_000, 50);
    expect((await new Docker({ socketPath: '/var/run/docker.sock' }).getContainer(app.containers.forSession(session.id)!.id).inspect()).State.Running).toBe(true);
    app.terminals.kill(again.id);
  }, 120_000);

  it.each([
    ['has no stty', { without: ['stty'] }],
    // `command -v stty` finds it; only the main process's own attempt tells.
    ['has an stty that refuses a raw TTY', { without: ['stty'], files: { '/bin/stty': '#!/bin/sh\necho "stty: not a tty" >&2\nexit 1\n' } }],
  ])('is off in an image that %s: nothing is written to its cooked TTY, a ^C there ends nothing, and opening it says why', async (_what, options) => {
    const bare = ensureTestImage(options);
    const session = app.agents.createSession({ root: repo.path });
    await app.containers.setPlacement(session.id, { image: bare });
    const runner = new ContainerRunner(app.containers, session.id);
    // On a cooked TTY this output would be a ^C (a SIGINT) and a ^D (an end of input) for the main process.
    expect((await run(runner, "printf 'a\\003b\\004\\n'; echo second")).exitCode).toBe(0);
    expect((await run(runner, 'echo still-here')).exitCode).toBe(0);
    const container = new Docker({ socketPath: '/var/run/docker.sock' }).getContainer(app.containers.forSession(session.id)!.id);
    // A ^C typed in a `docker attach` reaches the idle main process's TTY: it is ignored.
    const attached = (await container.attach({ stream: true, stdin: true, stdout: false, stderr: false, hijack: true })) as unknown as NodeJS.ReadWriteStream;
    attached.write('\x03\x1c');
    await new Promise((r) => setTimeout(r, 500));
    attached.end();
    expect((await container.inspect()).State).toMatchObject({ Running: true, Restarting: false });
    await expect(app.containers.openConsole(session.id, { cols: 100, rows: 30 })).rejects.toMatchObject({ code: 'unavailable', details: { reason: 'no_stty' } });
    const logs = await app.containers.logs(session.id);
    expect(logs).toContain('[no agent console: stty is missing or refused a raw TTY]');
    expect(logs).not.toContain('still-here');
    expect((await run(runner, 'echo after-the-attach')).exitCode).toBe(0);
  }, 120_000);

  it("is written to only while the marker's process is the raw cat: a restarted container's stale marker is not an answer", async () => {
    const session = app.agents.createSession({ root: repo.path });
    await app.containers.setPlacement(session.id, { image });
    const runner = new ContainerRunner(app.containers, session.id);
    expect((await run(runner, 'echo placed')).exitCode).toBe(0);
    const container = new Docker({ socketPath: '/var/run/docker.sock' }).getContainer(app.containers.forSession(session.id)!.id);
    expect(await consoleLive(container)).toBe(true);
    // As after a restart before the new main process ran stty: the marker names a process that is not cat.
    expect((await run(runner, `echo "raw 1" > ${CONSOLE_MARKER}`)).exitCode).toBe(0);
    await expect(consoleLive(container)).rejects.toThrow('the console is not ready yet');
    // A real restart: the new main process writes its own marker.
    await app.containers.stop(session.id);
    expect((await run(runner, 'echo restarted')).exitCode).toBe(0);
    expect(await consoleLive(container)).toBe(true);
    // The command that restarted it shows whole, once the new main process is raw.
    expect(await app.containers.logs(session.id)).toContain('$ echo restarted\nrestarted');
  }, 120_000);

  it('says so when its container is removed by hand while it is open', async () => {
    const session = app.agents.createSession({ root: repo.path });
    await app.containers.setPlacement(session.id, { image });
    expect((await run(new ContainerRunner(app.containers, session.id), 'echo placed')).exitCode).toBe(0);
    const t = await app.containers.openConsole(session.id, { cols: 100, rows: 30 });
    let out = '';
    app.terminals.onOutput(t.id, (d) => (out += d));
    await waitFor(() => out.includes('placed\r\n'), 'the replayed command', 30_000, 50);
    execFileSync('docker', ['rm', '-f', app.containers.forSession(session.id)!.id], { stdio: 'ignore' });
    const ended = await app.terminals.whenExited(t.id);
    expect(ended.exitCode).toBe(0);
    expect(out).toContain('[the container was removed]');
  }, 120_000);

  it('opens on the container another Flightdeck process of the same data folder placed (a CLI run) without replacing it, and samples its stats', async () => {
    const data = tempDir('fd-ctr-other-');
    let stored: Record<string, unknown> = { ses_other: { image } };
    const common = {
      dataDir: data.path,
      logger: silentLogger,
      engines: () => [{ name: 'local', source: 'default' as const, host: 'unix:///var/run/docker.sock', tls: null }],
      placements: { load: () => stored as never, save: (v: Record<string, unknown>) => (stored = v) },
      sessionInfo: () => ({ root: repo.path, projectId: null }),
    };
    const owner = new ContainerService(common);
    const viewer = new ContainerService({ ...common, terminals: app.terminals });
    try {
      expect((await run(new ContainerRunner(owner, 'ses_other'), 'echo from-the-owner')).exitCode).toBe(0);
      const id = owner.forSession('ses_other')!.id;
      for (const open of [() => viewer.openConsole('ses_other', { cols: 100, rows: 30 }), () => viewer.openTerminal('ses_other', { cols: 100, rows: 30 })]) {
        const t = await open();
        let out = '';
        app.terminals.onOutput(t.id, (d) => (out += d));
        app.terminals.write(t.id, 'hostname\r');
        await waitFor(() => out.includes('from-the-owner\r\n') || out.includes(`${id.slice(0, 12)}\r\n`), 'the owner container', 30_000, 50);
        app.terminals.kill(t.id);
      }
      // The Containers view's Logs and Inspect of that row too.
      expect(await viewer.logs('ses_other')).toContain('$ echo from-the-owner\nfrom-the-owner');
      expect((await viewer.inspect('ses_other')).Id).toBe(id);
      // And its stats (the view showed only its own containers' figures): no GPUs asked of it, none shown.
      const stats = await viewer.stats('ses_other');
      expect(stats.memoryBytes).toBeGreaterThan(0);
      expect(stats.pids).toBeGreaterThan(0);
      expect(stats.gpus).toEqual([]);
      expect(viewer.forSession('ses_other')).toBeNull();
      expect((await new Docker({ socketPath: '/var/run/docker.sock' }).getContainer(id).inspect()).State.Running).toBe(true);
      expect(owner.forSession('ses_other')?.id).toBe(id);
    } finally {
      await owner.shutdown();
      await viewer.shutdown();
      data.cleanup();
    }
  }, 120_000);
});
