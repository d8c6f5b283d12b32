/**
 * Quitting and restarting: the app's containers are removed when it quits unless kept; a kept
 * container survives, is re-attached to its session by the next start (commands run in it
 * again), and is reaped once its session's process is gone without it being kept.
 */
import { execFileSync, spawn } from 'node:child_process';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainerRunner } from '../../../src-main/containers/container-runner';
import { ContainerService } from '../../../src-main/containers/container-service';
import { silentLogger } from '../../../src-main/platform/logger';
import { processStartTicks } from '../../../src-main/platform/process-identity';
import { ensureTestImage } from '../../support/container-image';
import { tempDir } from '../../support/temp';

const LOCAL = { name: 'local', source: 'default' as const, host: 'unix:///var/run/docker.sock', tls: null };
const docker = new Docker({ socketPath: '/var/run/docker.sock' });
const SMALL = { memoryBytes: 128 * 1024 * 1024, cpus: 0.5, pids: 128 };
let image: string;
const data = tempDir('fd-ctr-life-');
const wt = tempDir('fd-ctr-life-wt-');

beforeAll(() => {
  image = ensureTestImage();
  execFileSync('chown', ['1000:1000', wt.path]);
}, 120_000);

afterAll(async () => {
  const mine = ['ses_keep', 'ses_quit', 'ses_late_keep', 'ses_late_quit', 'ses_gone', 'ses_stopped', 'ses_busy', 'ses_elsewhere', 'ses_leased'];
  const left = (await docker.listContainers({ all: true, filters: { label: ['dev.flightdeck.managed=1'] } })).filter((c) => mine.includes(c.Labels['dev.flightdeck.session'] ?? ''));
  for (const c of left) await docker.getContainer(c.Id).remove({ force: true });
  data.cleanup();
  wt.cleanup();
});

const exists = async (id: string) => (await docker.listContainers({ all: true, filters: { id: [id] } })).length > 0;

describe('quit and restart', () => {
  it('removes unkept containers on quit, keeps and re-attaches kept ones', async () => {
    const placements = { ses_quit: { image, limits: SMALL }, ses_keep: { image, limits: SMALL, keep: true } };
    let stored: Record<string, unknown> = placements;
    const store = { load: () => stored as never, save: (v: Record<string, unknown>) => (stored = v) };
    const info = () => ({ root: wt.path, projectId: null });
    // The first process: pretends to be another pid so the restarted service sees a dead owner.
    const first = new ContainerService({ dataDir: data.path, logger: silentLogger, engines: () => [LOCAL], placements: store, sessionInfo: info, ownerPid: 2 ** 22 + 1, ownerId: 'gone' });
    const quit = await first.ensure('ses_quit');
    const kept = await first.ensure('ses_keep');
    await first.shutdown();
    expect(await exists(quit.id)).toBe(false);
    expect(await exists(kept.id)).toBe(true);

    const second = new ContainerService({ dataDir: data.path, logger: silentLogger, engines: () => [LOCAL], placements: store, sessionInfo: info });
    expect(await second.reap()).toEqual([]);
    expect(second.forSession('ses_keep')?.id).toBe(kept.id);
    const r = await new ContainerRunner(second, 'ses_keep').run({ cwd: wt.path, command: 'hostname', env: {}, timeoutMs: 20_000, signal: new AbortController().signal });
    expect(r.output.trim()).toBe(kept.id.slice(0, 12));
    await second.remove('ses_keep');
    expect(await exists(kept.id)).toBe(false);
  }, 90_000);

  it('a choice to keep (or not) made while the container runs takes effect at quit, without replacing it', async () => {
    let stored: Record<string, unknown> = { ses_late_keep: { image, limits: SMALL }, ses_late_quit: { image, limits: SMALL, keep: true } };
    const store = { load: () => stored as never, save: (v: Record<string, unknown>) => (stored = v) };
    const info = () => ({ root: wt.path, projectId: null });
    const first = new ContainerService({ dataDir: data.path, logger: silentLogger, engines: () => [LOCAL], placements: store, sessionInfo: info, ownerPid: 2 ** 22 + 2, ownerId: 'gone' });
    const keep = await first.ensure('ses_late_keep');
    const quit = await first.ensure('ses_late_quit');
    first.setKeep('ses_late_keep', true);
    first.setKeep('ses_late_quit', false);
    // The same containers: keeping is decided at quit, not by re-creating them.
    expect(first.forSession('ses_late_keep')?.id).toBe(keep.id);
    expect((await first.list()).filter((c) => c.sessionId.startsWith('ses_late_')).map((c) => [c.sessionId, c.keep]).sort()).toEqual([
      ['ses_late_keep', true],
      ['ses_late_quit', false],
    ]);
    await first.shutdown();
    expect(await exists(keep.id)).toBe(true);
    expect(await exists(quit.id)).toBe(false);
    const second = new ContainerService({ dataDir: data.path, logger: silentLogger, engines: () => [LOCAL], placements: store, sessionInfo: info });
    expect(await second.reap()).toEqual([]);
    expect(second.forSession('ses_late_keep')?.id).toBe(keep.id);
    await second.remove('ses_late_keep');
    expect(() => second.setKeep('ses_nowhere', true)).toThrow(/not placed in a container/);
  }, 90_000);

  it('a container removed by hand (docker rm -f) is replaced at the next command, which runs with the worktree intact; removing it again is not an error', async () => {
    let stored: Record<string, unknown> = { ses_gone: { image, limits: SMALL } };
    const store = { load: () => stored as never, save: (v: Record<string, unknown>) => (stored = v) };
    const svc = new ContainerService({ dataDir: data.path, logger: silentLogger, engines: () => [LOCAL], placements: store, sessionInfo: () => ({ root: wt.path, projectId: null }) });
    const run = (command: string) => new ContainerRunner(svc, 'ses_gone').run({ cwd: wt.path, command, env: {}, timeoutMs: 20_000, signal: new AbortController().signal });
    expect((await run('echo kept > gone-test.txt')).exitCode).toBe(0);
    const first = svc.forSession('ses_gone')!;
    await docker.getContainer(first.id).remove({ force: true });
    const r = await run('cat gone-test.txt; hostname');
    expect(r.exitCode).toBe(0);
    const second = svc.forSession('ses_gone')!;
    expect(second.id).not.toBe(first.id);
    expect(r.output.trim().split('\n')).toEqual(['kept', second.id.slice(0, 12)]);
    await docker.getContainer(second.id).remove({ force: true });
    await svc.remove('ses_gone');
    expect(svc.forSession('ses_gone')).toBeNull();
    await svc.shutdown();
  }, 90_000);

  it('a stopped container (the Stop button) starts again at the next command, the same container', async () => {
    let stored: Record<string, unknown> = { ses_stopped: { image, limits: SMALL } };
    const store = { load: () => stored as never, save: (v: Record<string, unknown>) => (stored = v) };
    const svc = new ContainerService({ dataDir: data.path, logger: silentLogger, engines: () => [LOCAL], placements: store, sessionInfo: () => ({ root: wt.path, projectId: null }) });
    const run = (command: string) => new ContainerRunner(svc, 'ses_stopped').run({ cwd: wt.path, command, env: {}, timeoutMs: 20_000, signal: new AbortController().signal });
    try {
      expect((await run('true')).exitCode).toBe(0);
      const placed = svc.forSession('ses_stopped')!;
      await svc.stop('ses_stopped');
      expect((await docker.getContainer(placed.id).inspect()).State.Running).toBe(false);
      const r = await run('hostname');
      expect(r.exitCode).toBe(0);
      expect(r.output.trim()).toBe(placed.id.slice(0, 12));
      expect(svc.forSession('ses_stopped')?.id).toBe(placed.id);
    } finally {
      await svc.shutdown();
    }
  }, 90_000);

  it("never removes a container another live Flightdeck process placed, or another data folder's, to place a session of the same name", async () => {
    const sleeper = spawn('sleep', ['120'], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 100));
      // Another process of this data folder (a CLI run): alive for as long as `sleep` runs.
      const other = new ContainerService({ dataDir: data.path, logger: silentLogger, engines: () => [LOCAL], ownerPid: sleeper.pid!, ownerId: `${sleeper.pid}@${processStartTicks(sleeper.pid!)}` });
      const theirs = await other.place({ sessionId: 'ses_busy', worktree: wt.path, image, limits: SMALL });
      const mine = new ContainerService({ dataDir: data.path, logger: silentLogger, engines: () => [LOCAL] });
      await expect(mine.place({ sessionId: 'ses_busy', worktree: wt.path, image, limits: SMALL })).rejects.toMatchObject({ code: 'conflict', details: { reason: 'in_use' } });
      expect((await docker.getContainer(theirs.id).inspect()).State.Running).toBe(true);
      // Once that process is gone its container is an orphan: placing replaces it.
      sleeper.kill('SIGKILL');
      await new Promise((r) => sleeper.once('exit', r));
      const placed = await mine.place({ sessionId: 'ses_busy', worktree: wt.path, image, limits: SMALL });
      expect(placed.id).not.toBe(theirs.id);
      expect(await exists(theirs.id)).toBe(false);
      await mine.remove('ses_busy');

      // Another data folder's container of the same name is not this one's to remove.
      const elsewhereData = tempDir('fd-ctr-life-other-');
      try {
        const elsewhere = new ContainerService({ dataDir: elsewhereData.path, logger: silentLogger, engines: () => [LOCAL] });
        const foreign = await elsewhere.place({ sessionId: 'ses_elsewhere', worktree: wt.path, image, limits: SMALL });
        await expect(mine.place({ sessionId: 'ses_elsewhere', worktree: wt.path, image, limits: SMALL })).rejects.toMatchObject({ code: 'conflict', details: { reason: 'name_taken' } });
        expect(await exists(foreign.id)).toBe(true);
        await elsewhere.remove('ses_elsewhere');
      } finally {
        elsewhereData.cleanup();
      }
    } finally {
      sleeper.kill('SIGKILL');
    }
  }, 120_000);

  it('a kept container re-attached by a process that still runs is not an orphan to another process of the data folder, even once no longer kept', async () => {
    let stored: Record<string, unknown> = { ses_leased: { image, limits: SMALL, keep: true } };
    const store = { load: () => stored as never, save: (v: Record<string, unknown>) => (stored = v) };
    const info = () => ({ root: wt.path, projectId: null });
    const first = new ContainerService({ dataDir: data.path, logger: silentLogger, engines: () => [LOCAL], placements: store, sessionInfo: info, ownerPid: 2 ** 22 + 4, ownerId: 'gone' });
    const kept = await first.ensure('ses_leased');
    await first.shutdown();
    const sleeper = spawn('sleep', ['120'], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 100));
      // The app after a restart (a live process other than this test's): it re-attaches the kept container.
      const app = new ContainerService({ dataDir: data.path, logger: silentLogger, engines: () => [LOCAL], placements: store, sessionInfo: info, ownerPid: sleeper.pid!, ownerId: `${sleeper.pid}@${processStartTicks(sleeper.pid!)}` });
      expect(await app.reap()).toEqual([]);
      expect(app.forSession('ses_leased')?.id).toBe(kept.id);
      // The user turns Keep off; a CLI run of the same data folder starts meanwhile.
      app.setKeep('ses_leased', false);
      const cli = new ContainerService({ dataDir: data.path, logger: silentLogger, engines: () => [LOCAL], placements: store, sessionInfo: info });
      expect(await cli.reap()).toEqual([]);
      expect(await exists(kept.id)).toBe(true);
      await expect(cli.place({ sessionId: 'ses_leased', worktree: wt.path, image, limits: SMALL })).rejects.toMatchObject({ code: 'conflict', details: { reason: 'in_use' } });
      // Once the app is gone, it is an orphan like any other.
      sleeper.kill('SIGKILL');
      await new Promise((r) => sleeper.once('exit', r));
      expect((await cli.reap()).map((c) => c.id)).toEqual([kept.id]);
      expect(await exists(kept.id)).toBe(false);
    } finally {
      sleeper.kill('SIGKILL');
    }
  }, 120_000);
});
