/**
 * A remote engine over ssh://, as a user reaches a GPU machine: a real sshd on 127.0.0.1 (its
 * own host key and authorized key, in a temporary folder), the key in a real ssh-agent, and the
 * Docker engine of this machine behind it (`docker system dial-stdio`, as with `docker -H
 * ssh://`). The engine's facts come over ssh, and a session placed there works in a volume
 * seeded from the branch, its commit coming back to the local branch.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainerRunner } from '../../../src-main/containers/container-runner';
import { ContainerService } from '../../../src-main/containers/container-service';
import type { EngineSpec } from '../../../src-main/containers/core/engine-spec';
import { workspaceVolumeName } from '../../../src-main/containers/core/workspace-sync';
import { Engine } from '../../../src-main/containers/engines';
import { silentLogger } from '../../../src-main/platform/logger';
import { ensureTestImage } from '../../support/container-image';
import { tempDir } from '../../support/temp';

const SESSION = 'ses_ssh_ws';
const SMALL = { memoryBytes: 256 * 1024 * 1024, cpus: 1, pids: 256 };
const docker = new Docker({ socketPath: '/var/run/docker.sock' });

let sshd: ChildProcess;
let agentPid: number | null = null;
let savedSock: string | undefined;
let engine: EngineSpec;
let svc: ContainerService;
let repo: string;
const dirs: Array<{ cleanup(): void }> = [];

function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Host User', '-c', 'user.email=host@example.test', ...args], { cwd, encoding: 'utf8' }).trim();
}

beforeAll(async () => {
  const d = tempDir('fd-ssh-engine-');
  dirs.push(d);
  const keygen = (name: string) => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(d.path, name)]);
  keygen('host_key');
  keygen('user_key');
  writeFileSync(join(d.path, 'authorized_keys'), readFileSync(join(d.path, 'user_key.pub')), { mode: 0o600 });
  execFileSync('mkdir', ['-p', '/run/sshd']);
  const port = 25000 + (process.pid % 1000);
  // -D: stays in the foreground (a child this test ends); -e: logs to stderr.
  sshd = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', '/dev/null', '-p', String(port), '-h', join(d.path, 'host_key'), '-o', 'ListenAddress=127.0.0.1', '-o', `AuthorizedKeysFile=${join(d.path, 'authorized_keys')}`, '-o', 'PasswordAuthentication=no', '-o', 'PermitRootLogin=prohibit-password', '-o', 'StrictModes=no', '-o', 'UsePAM=no', '-o', `PidFile=${join(d.path, 'sshd.pid')}`], { stdio: 'ignore' });
  const sock = join(d.path, 'agent.sock');
  const out = execFileSync('ssh-agent', ['-a', sock], { encoding: 'utf8' });
  agentPid = Number(/SSH_AGENT_PID=(\d+)/.exec(out)?.[1] ?? 0) || null;
  execFileSync('ssh-add', ['-q', join(d.path, 'user_key')], { env: { ...process.env, SSH_AUTH_SOCK: sock } });
  // The engine takes the key from the user's agent, as `docker -H ssh://` does.
  savedSock = process.env.SSH_AUTH_SOCK;
  process.env.SSH_AUTH_SOCK = sock;
  engine = { name: 'gpu-box', source: 'user', host: `ssh://root@127.0.0.1:${port}`, tls: null };
  const data = tempDir('fd-ssh-engine-data-');
  dirs.push(data);
  svc = new ContainerService({ dataDir: data.path, logger: silentLogger, engines: () => [engine] });
  const r = tempDir('fd-ssh-engine-repo-');
  dirs.push(r);
  repo = r.path;
  gitIn(repo, 'init', '-q', '-b', 'work');
  writeFileSync(join(repo, 'README.md'), 'hello over ssh\n');
  gitIn(repo, 'add', 'README.md');
  gitIn(repo, 'commit', '-qm', 'host: first');
}, 180_000);

afterAll(async () => {
  await svc?.shutdown();
  if (svc) await docker.getVolume(workspaceVolumeName(svc.instance, SESSION)).remove({ force: true }).catch(() => undefined);
  sshd?.kill('SIGTERM');
  if (agentPid) process.kill(agentPid, 'SIGTERM');
  if (savedSock === undefined) delete process.env.SSH_AUTH_SOCK;
  else process.env.SSH_AUTH_SOCK = savedSock;
  for (const d of dirs) d.cleanup();
});

describe('an engine over ssh://', () => {
  it("reports the remote engine's facts through sshd", async () => {
    const e = new Engine(engine);
    // sshd needs a moment to listen.
    let info: Awaited<ReturnType<Engine['info']>> | null = null;
    for (let i = 0; i < 100 && !info; i++) {
      info = await e.info().catch(() => null);
      if (!info) await new Promise((r) => setTimeout(r, 100));
    }
    expect(info).toMatchObject({ name: 'gpu-box', local: false, product: 'docker', nvidia: false });
    expect(info!.apiVersion).toMatch(/^1\.\d+$/);
    expect(info!.cpus).toBeGreaterThan(0);
  }, 60_000);

  it('runs a session in a volume seeded from the branch; its commit comes back over ssh', async () => {
    const image = ensureTestImage({ git: true });
    const placed = await svc.place({ sessionId: SESSION, worktree: repo, image, limits: SMALL, engine: 'gpu-box' });
    expect(placed.local).toBe(false);
    const r = await new ContainerRunner(svc, SESSION).run({
      cwd: repo,
      command: 'cat README.md; echo "made on the remote" > remote.txt && git add remote.txt && git commit -qm "agent: remote.txt" && echo committed',
      env: {},
      timeoutMs: 60_000,
      signal: new AbortController().signal,
    });
    expect(r.output).toBe('hello over ssh\ncommitted\n');
    expect(r.exitCode).toBe(0);
    expect(gitIn(repo, 'log', '--format=%s', 'work')).toBe('agent: remote.txt\nhost: first');
    expect(readFileSync(join(repo, 'remote.txt'), 'utf8')).toBe('made on the remote\n');
    expect(svc.workspaceSyncState(SESSION)?.state).toBe('in_sync');
  }, 180_000);

  it('a kept remote container re-attached after a restart still brings its commits back', async () => {
    const image = ensureTestImage({ git: true });
    const data = tempDir('fd-ssh-keep-data-');
    dirs.push(data);
    // The first process pretends to be another pid, so the restarted service sees its owner gone.
    const first = new ContainerService({ dataDir: data.path, logger: silentLogger, engines: () => [engine], ownerPid: 2 ** 22 + 3, ownerId: 'gone' });
    const placed = await first.place({ sessionId: 'ses_ssh_keep', worktree: repo, image, limits: SMALL, engine: 'gpu-box', keep: true });
    await first.shutdown();
    try {
      const second = new ContainerService({ dataDir: data.path, logger: silentLogger, engines: () => [engine] });
      expect(await second.reap()).toEqual([]);
      expect(second.forSession('ses_ssh_keep')?.id).toBe(placed.id);
      const c = await second.exec('ses_ssh_keep', { cmd: ['sh', '-c', 'echo after-restart > restart.txt && git add restart.txt && git commit -qm "agent: after restart"'], workdir: '/app/volumes/workspace', timeoutMs: 60_000 });
      expect(c.exitCode).toBe(0);
      const synced = await second.syncWorkspace('ses_ssh_keep');
      expect(synced.state).toBe('in_sync');
      expect(gitIn(repo, 'log', '-1', '--format=%s', 'work')).toBe('agent: after restart');
      expect(readFileSync(join(repo, 'restart.txt'), 'utf8')).toBe('after-restart\n');
      // Everything is on the local branch: the workspace volume goes with the container.
      await second.remove('ses_ssh_keep');
      expect((await docker.listVolumes()).Volumes?.some((v) => v.Name === workspaceVolumeName(second.instance, 'ses_ssh_keep'))).toBe(false);
    } finally {
      await docker.getContainer(placed.id).remove({ force: true }).catch(() => undefined);
      await docker.getVolume(workspaceVolumeName(first.instance, 'ses_ssh_keep')).remove({ force: true }).catch(() => undefined);
    }
  }, 180_000);
});
