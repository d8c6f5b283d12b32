/**
 * Agent containers against the real local engine (dockerd): create/start/exec/stop/remove
 * with labels, the worktree mounted and written with the right owner, limits and security
 * options in inspect, credentials only in an exec, the GPU device request and the engine's
 * refusal, the task timeout, orphan reaping after SIGKILL, unreachable and hanging engines, and
 * a "remote" tcp:// engine. The image is built locally from busybox (test/support/container-image).
 */
import { spawn } from 'node:child_process';
import { chownSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join, resolve } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import { ContainerRunner } from '../../../src-main/containers/container-runner';
import { ContainerService } from '../../../src-main/containers/container-service';
import { createOptions, DEFAULT_LIMITS, LABEL } from '../../../src-main/containers/core/container-spec';
import type { EngineSpec } from '../../../src-main/containers/core/engine-spec';
import { Engine } from '../../../src-main/containers/engines';
import { silentLogger } from '../../../src-main/platform/logger';
import { ensureTestImage } from '../../support/container-image';
import { tempDir } from '../../support/temp';
import { waitFor } from '../../support/processes';

const LOCAL: EngineSpec = { name: 'local', source: 'default', host: 'unix:///var/run/docker.sock', tls: null };
const ROOT = resolve(__dirname, '../../..');
/** Tests run as root here: the worktree is handed to this uid so "non-root with the owner's uid" is observable. */
const AGENT_UID = 1000;
const SECRET = 'sk-ant-test-secret-0123456789';

let image: string;
const dirs: Array<{ cleanup(): void }> = [];
const services: ContainerService[] = [];

function worktree(): string {
  const d = tempDir('fd-ctr-wt-');
  dirs.push(d);
  writeFileSync(join(d.path, 'README.md'), 'hello from the host\n');
  chownSync(d.path, AGENT_UID, AGENT_UID);
  chownSync(join(d.path, 'README.md'), AGENT_UID, AGENT_UID);
  return d.path;
}

function service(engines: EngineSpec[] = [LOCAL]): ContainerService {
  const d = tempDir('fd-ctr-data-');
  dirs.push(d);
  const s = new ContainerService({ dataDir: d.path, logger: silentLogger, engines: () => engines });
  services.push(s);
  return s;
}

const SMALL = { memoryBytes: 256 * 1024 * 1024, cpus: 1, pids: 256 };

beforeAll(() => {
  image = ensureTestImage();
}, 120_000);

afterAll(async () => {
  for (const s of services) await s.shutdown();
  for (const d of dirs) d.cleanup();
});

describe('a session container on the local engine', () => {
  it('runs commands in the mounted worktree as the owner, with limits, security options and labels, and no credential in inspect', async () => {
    const svc = service();
    const wt = worktree();
    const placed = await svc.place({ sessionId: 'ses_ctr_a', projectId: 'prj_1', featureId: 'feat_1', worktree: wt, image, limits: SMALL });
    const runner = new ContainerRunner(svc, 'ses_ctr_a');
    const ac = new AbortController();
    const r = await runner.run({ cwd: wt, command: 'id -u; pwd; cat README.md; echo "written inside" > out.txt; echo oops >&2; exit 3', env: { PAGER: 'cat', PATH: '/host/only' }, timeoutMs: 20_000, signal: ac.signal });
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe(`${AGENT_UID}\n/app/volumes/workspace\nhello from the host\n`);
    expect(r.stderr).toBe('oops\n');
    const out = join(wt, 'out.txt');
    expect(readFileSync(out, 'utf8')).toBe('written inside\n');
    expect(statSync(out).uid).toBe(AGENT_UID);
    expect(statSync(out).gid).toBe(AGENT_UID);

    // Credentials go to one exec's environment only.
    let seen = '';
    await svc.exec('ses_ctr_a', { cmd: ['sh', '-c', 'echo "$ANTHROPIC_API_KEY"'], env: { ANTHROPIC_API_KEY: SECRET }, timeoutMs: 20_000, onStdout: (t) => (seen += t) });
    expect(seen).toBe(`${SECRET}\n`);

    const raw = await new Docker({ socketPath: '/var/run/docker.sock' }).getContainer(placed.id).inspect();
    expect(JSON.stringify(raw)).not.toContain(SECRET);
    expect(await svc.logs('ses_ctr_a')).not.toContain(SECRET);
    const labels = raw.Config.Labels;
    expect(labels[LABEL.managed]).toBe('1');
    expect(labels[LABEL.instance]).toBe(svc.instance);
    expect(labels[LABEL.session]).toBe('ses_ctr_a');
    expect(labels[LABEL.project]).toBe('prj_1');
    expect(labels[LABEL.feature]).toBe('feat_1');
    expect(raw.Config.User).toBe(`${AGENT_UID}:${AGENT_UID}`);
    const hc = raw.HostConfig as Docker.HostConfig & { Init?: boolean };
    expect(hc.CapDrop).toEqual(['ALL']);
    expect(hc.SecurityOpt).toEqual(['no-new-privileges']);
    expect(hc.Memory).toBe(SMALL.memoryBytes);
    expect(hc.NanoCpus).toBe(1e9);
    expect(hc.PidsLimit).toBe(256);
    expect(hc.NetworkMode).toBe('bridge');
    expect(hc.ExtraHosts).toEqual(['host.docker.internal:host-gateway']);
    expect(raw.Mounts.map((m) => [m.Source, m.Destination])).toEqual([[wt, '/app/volumes/workspace']]);
    // The redacted inspect the UI shows keeps the shape.
    expect((await svc.inspect('ses_ctr_a')).Id).toBe(placed.id);

    expect((await svc.list()).map((c) => c.sessionId)).toEqual(['ses_ctr_a']);
    const stats = await svc.stats('ses_ctr_a');
    expect(stats.memoryLimitBytes).toBe(SMALL.memoryBytes);
    expect(stats.memoryBytes).toBeGreaterThan(0);

    await svc.stop('ses_ctr_a');
    expect((await svc.list())[0]!.state).toBe('exited');
    await svc.remove('ses_ctr_a');
    expect(await svc.list()).toEqual([]);
    expect(existsSync(out)).toBe(true);
  }, 90_000);

  it('ends a command that outlives the task timeout, process group and all', async () => {
    const svc = service();
    const wt = worktree();
    await svc.place({ sessionId: 'ses_ctr_t', worktree: wt, image, limits: SMALL, taskTimeoutMs: 1_500 });
    const runner = new ContainerRunner(svc, 'ses_ctr_t');
    const r = await runner.run({ cwd: wt, command: 'sleep 300 & sleep 301; echo never', env: {}, timeoutMs: 60_000, signal: new AbortController().signal });
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(r.output).not.toContain('never');
    let ps = '';
    await svc.exec('ses_ctr_t', { cmd: ['ps', '-o', 'args'], timeoutMs: 20_000, onStdout: (t) => (ps += t) });
    expect(ps).not.toMatch(/sleep 30[01]/);
  }, 90_000);

  it('cancelling a command stops it', async () => {
    const svc = service();
    const wt = worktree();
    await svc.place({ sessionId: 'ses_ctr_c', worktree: wt, image, limits: SMALL });
    const ac = new AbortController();
    const running = new ContainerRunner(svc, 'ses_ctr_c').run({ cwd: wt, command: 'echo started; sleep 300', env: {}, timeoutMs: 60_000, signal: ac.signal, onOutput: () => ac.abort() });
    const r = await running;
    expect(r.exitCode).toBeNull();
    expect(r.timedOut).toBe(false);
    expect(r.output).toBe('started\n');
  }, 90_000);

  it('a missing image is a clear message offering the build, not a pull', async () => {
    const svc = service();
    const err = await svc.place({ sessionId: 'ses_ctr_m', worktree: worktree(), image: 'flightdeck-no-such-image:1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).details?.reason).toBe('image_missing');
    expect((err as AppError).message).toMatch(/Build the agent image.*never pulls/);
  }, 60_000);
});

describe('GPUs', () => {
  it('sends the exact device request and turns the engine refusal into a message naming the NVIDIA Container Toolkit', async () => {
    const engine = new Engine(LOCAL);
    const opts = createOptions({
      image,
      instance: 'gpu-test',
      sessionId: 'ses_gpu',
      projectId: null,
      featureId: null,
      owner: { pid: process.pid, id: 'x' },
      user: { uid: AGENT_UID, gid: AGENT_UID },
      workspace: { kind: 'bind', hostPath: worktree() },
      mailbox: null,
      limits: { ...DEFAULT_LIMITS, cpus: 1 },
      network: 'none',
      gpus: { kind: 'ids', ids: ['0', '1'] },
      localEngine: true,
      keep: false,
      taskTimeoutMs: 1000,
    });
    const c = await engine.call('create', (d) => d.createContainer({ ...opts, name: `flightdeck-gpu-test-${process.pid}` } as Docker.ContainerCreateOptions));
    try {
      const ins = await c.inspect();
      expect(ins.HostConfig.DeviceRequests).toEqual([{ Driver: 'nvidia', Count: 0, DeviceIDs: ['0', '1'], Capabilities: [['gpu']], Options: {} }]);
      const err = await engine.call('start', () => c.start()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).details?.reason).toBe('gpu_unavailable');
      expect((err as AppError).message).toContain('could not select device driver "nvidia"');
      expect((err as AppError).message).toContain('NVIDIA Container Toolkit');
    } finally {
      await c.remove({ force: true });
    }

    // Through the service: the refused container is not left behind.
    const svc = service();
    const placeErr = await svc.place({ sessionId: 'ses_gpu_all', worktree: worktree(), image, gpus: { kind: 'all' }, limits: SMALL }).catch((e: unknown) => e);
    expect((placeErr as AppError).details?.reason).toBe('gpu_unavailable');
    expect(await svc.list()).toEqual([]);
  }, 60_000);
});

describe('orphans', () => {
  it('reaps the container of a host process killed with SIGKILL', async () => {
    const data = tempDir('fd-ctr-orphan-');
    dirs.push(data);
    const wt = worktree();
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/containers/place-and-hang.ts', data.path, wt, image, 'ses_orphan'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    await waitFor(() => out.includes('\n'), 'the container id from the host process', 60_000, 100);
    const id = out.trim();
    const svc = new ContainerService({ dataDir: data.path, logger: silentLogger, engines: () => [LOCAL] });
    // Alive owner: nothing to reap.
    expect(await svc.reap()).toEqual([]);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const reaped = await svc.reap();
    expect(reaped.map((c) => c.id)).toEqual([id]);
    const left = await new Docker({ socketPath: '/var/run/docker.sock' }).listContainers({ all: true, filters: { id: [id] } });
    expect(left).toEqual([]);
  }, 90_000);
});

describe('engines that cannot answer', () => {
  it('a DOCKER_HOST pointing at a dead socket is a clear message', async () => {
    const e = new Engine({ name: 'dead', source: 'env', host: 'unix:///tmp/flightdeck-no-docker.sock', tls: null });
    const err = await e.info().catch((x: unknown) => x);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).details?.reason).toBe('engine_down');
    expect((err as AppError).message).toMatch(/"dead".*not reachable.*Start Docker/);
  });

  it('an engine that accepts but never answers hits the deadline instead of hanging', async () => {
    const d = tempDir('fd-ctr-hang-');
    dirs.push(d);
    const sock = join(d.path, 'hang.sock');
    const held: import('node:net').Socket[] = [];
    const server: Server = createServer((s) => held.push(s));
    await new Promise<void>((r) => server.listen(sock, r));
    try {
      const e = new Engine({ name: 'hung', source: 'user', host: `unix://${sock}`, tls: null }, 500);
      const err = await e.info().catch((x: unknown) => x);
      expect((err as AppError).details?.reason).toBe('timeout');
      expect((err as AppError).message).toContain('did not answer');
    } finally {
      for (const s of held) s.destroy();
      server.close();
    }
  });
});

describe('a remote engine over tcp://127.0.0.1', () => {
  it('answers with its information and refuses a worktree that is not on a branch (its workspace is seeded from one)', async () => {
    const port = 23000 + (process.pid % 1000);
    const socat = spawn('socat', [`TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr`, 'UNIX-CONNECT:/var/run/docker.sock'], { stdio: 'ignore' });
    try {
      const remote: EngineSpec = { name: 'remote', source: 'user', host: `tcp://127.0.0.1:${port}`, tls: null };
      const e = new Engine(remote);
      let info: Awaited<ReturnType<Engine['info']>> | null = null;
      // socat needs a moment to listen.
      for (let i = 0; i < 100 && info === null; i++) {
        info = await e.info().catch(() => null);
        if (info === null) await new Promise((r) => setTimeout(r, 100));
      }
      expect(info!.local).toBe(false);
      expect(info!.cpus).toBeGreaterThan(0);
      expect(info!.memoryBytes).toBeGreaterThan(0);
      expect(info!.nvidia).toBe(false);
      const svc = service([remote]);
      const err = await svc.place({ sessionId: 'ses_remote', worktree: worktree(), image }).catch((x: unknown) => x);
      expect((err as AppError).details?.reason).toBe('remote_workspace');
      expect((err as AppError).message).toContain('not on a branch');
    } finally {
      socat.kill('SIGTERM');
    }
  }, 60_000);
});
