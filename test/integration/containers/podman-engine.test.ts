/**
 * Podman's Docker-compatible socket, as a user who runs Podman instead of Docker has it: a real
 * `podman system service` (rootful, everything under a temporary folder: vfs storage, its own
 * run and tmp folders) listening at $XDG_RUNTIME_DIR/podman/podman.sock, where discovery looks.
 * The product finds it, reports it as Podman with its version, and a session placed on it runs
 * its commands in the bind-mounted worktree, reaches the host as host.docker.internal, shows
 * its stats and is removed.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainerRunner } from '../../../src-main/containers/container-runner';
import { ContainerService } from '../../../src-main/containers/container-service';
import { silentLogger } from '../../../src-main/platform/logger';
import { ensureTestImage } from '../../support/container-image';
import { untilAnswers } from '../../support/docker-tcp';
import { tempDir } from '../../support/temp';

const SESSION = 'ses_podman';
const SMALL = { memoryBytes: 256 * 1024 * 1024, cpus: 1, pids: 256 };
/**
 * Podman's default rlimits for containers (nofile 1048576, nproc 4194304) are above what a
 * process without CAP_SYS_RESOURCE (a CI container, gVisor) may set, and runc then refuses to
 * start every container. Limits at or below any sane hard limit start everywhere.
 */
const CONTAINERS_CONF = '[containers]\ndefault_ulimits = ["nofile=4096:4096", "nproc=4096:4096"]\n';

let dir: string;
let podmanArgs: string[];
let podmanEnv: NodeJS.ProcessEnv;
let service: ChildProcess;
let socket: string;
let svc: ContainerService;
let image: string;
let worktree: string;
const dirs: Array<{ cleanup(): void }> = [];

function podman(...args: string[]): string {
  return execFileSync('podman', [...podmanArgs, ...args], { env: podmanEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

beforeAll(async () => {
  const d = tempDir('fd-podman-');
  dirs.push(d);
  dir = d.path;
  writeFileSync(join(dir, 'containers.conf'), CONTAINERS_CONF);
  const runtime = join(dir, 'xdg');
  mkdirSync(join(runtime, 'podman'), { recursive: true });
  socket = join(runtime, 'podman', 'podman.sock');
  podmanEnv = { ...process.env, CONTAINERS_CONF: join(dir, 'containers.conf') };
  // vfs: works on any file system (overlay on overlay does not); cgroupfs and file events: no systemd here.
  podmanArgs = ['--root', join(dir, 'root'), '--runroot', join(dir, 'run'), '--tmpdir', join(dir, 'tmp'), '--storage-driver', 'vfs', '--cgroup-manager', 'cgroupfs', '--events-backend', 'file'];
  // The tests' busybox image, moved from the Docker engine into this Podman's storage.
  image = ensureTestImage();
  const archive = join(dir, 'image.tar');
  execFileSync('docker', ['save', '-o', archive, image]);
  podman('load', '-q', '-i', archive);
  // --time=0: serves until this test ends it.
  service = spawn('podman', [...podmanArgs, 'system', 'service', '--time=0', `unix://${socket}`], { env: podmanEnv, stdio: 'ignore' });
  const data = tempDir('fd-podman-data-');
  dirs.push(data);
  // Discovery as on a desktop with Podman: the socket under the user's runtime folder.
  svc = new ContainerService({ dataDir: data.path, logger: silentLogger, env: { XDG_RUNTIME_DIR: runtime } });
  await untilAnswers(() => svc.engine('podman').info(), 60_000);
  const w = tempDir('fd-podman-wt-');
  dirs.push(w);
  worktree = w.path;
  writeFileSync(join(worktree, 'README.md'), 'hello from the host\n');
}, 120_000);

/** Host pids whose command line names something under `folder` (this test's Podman and what it started). */
function processesUnder(folder: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(`${folder}/`)) pids.push(Number(name));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return pids;
}

afterAll(async () => {
  await svc?.shutdown();
  if (service && service.exitCode === null && service.signalCode === null) {
    const exited = new Promise((r) => service.once('exit', r));
    service.kill('SIGTERM');
    await exited;
  }
  // Podman keeps a conmon per exec for minutes (exit_command_delay) so that a client can still
  // read the exec's exit code, and conmon waits through SIGTERM; this test's storage goes now, so they go too.
  if (dir) for (const pid of processesUnder(dir)) process.kill(pid, 'SIGKILL');
  for (const x of dirs) x.cleanup();
}, 60_000);

describe('an engine on Podman', () => {
  it('is found at its socket and reported as Podman with its version', async () => {
    const version = /(\d+\.\d+\.\d+)/.exec(execFileSync('podman', ['--version'], { encoding: 'utf8' }))![1];
    const row = (await svc.engineInfos()).find((r) => r.spec.name === 'podman')!;
    expect(row.spec).toEqual({ name: 'podman', source: 'podman', host: `unix://${socket}`, tls: null });
    expect(row.error).toBeNull();
    expect(row.info).toMatchObject({ product: 'podman', version, local: true, nvidia: false });
    expect(row.info!.cpus).toBeGreaterThan(0);
    // The Docker engine of this machine is still listed next to it, as Docker.
    expect((await svc.engineInfos()).find((r) => r.spec.name === 'local')?.info?.product).toBe('docker');
  }, 60_000);

  it('runs a session: commands in the bind-mounted worktree, the host reached as host.docker.internal, stats, removal', async () => {
    const placed = await svc.place({ sessionId: SESSION, worktree, image, limits: SMALL, engine: 'podman' });
    expect(placed).toMatchObject({ engine: 'podman', local: true, network: 'bridge', worktree });
    expect(podman('ps', '--format', '{{.Names}}').split('\n')).toContain(placed.name);

    const runner = new ContainerRunner(svc, SESSION);
    const run = (command: string) => runner.run({ cwd: worktree, command, env: {}, timeoutMs: 60_000, signal: new AbortController().signal });
    const r = await run('pwd; cat README.md; echo "made in podman" > podman.txt; exit 3');
    expect(r.output).toBe('/app/volumes/workspace\nhello from the host\n');
    expect(r.exitCode).toBe(3);
    expect(readFileSync(join(worktree, 'podman.txt'), 'utf8')).toBe('made in podman\n');
    // The worktree's owner (this test's user) owns what the container wrote.
    expect(statSync(join(worktree, 'podman.txt')).uid).toBe(statSync(worktree).uid);

    // A server on the host, on the bridge's gateway: the container reaches it by the name a rewritten model URL uses.
    const gateway = podman('network', 'inspect', 'podman', '--format', '{{range .Subnets}}{{.Gateway}}{{end}}').trim();
    expect(gateway).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const server: Server = createServer((_req, res) => res.end('host answered\n'));
    await new Promise<void>((resolve) => server.listen(0, gateway, resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const h = await run(`exec 3<>/dev/tcp/host.docker.internal/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && tail -n 1 <&3`);
      expect(h.output).toBe('host answered\n');
      expect(h.exitCode).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }

    const s = await svc.stats(SESSION);
    expect(s.memoryLimitBytes).toBe(SMALL.memoryBytes);
    expect(s.memoryBytes).toBeGreaterThan(0);
    expect(s.gpus).toEqual([]);
    expect((await svc.list()).find((c) => c.sessionId === SESSION)).toMatchObject({ engine: 'podman', state: 'running', name: placed.name });

    await svc.remove(SESSION);
    expect(podman('ps', '-a', '--format', '{{.Names}}').split('\n')).not.toContain(placed.name);
  }, 120_000);
});
