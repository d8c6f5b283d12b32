/**
 * A session on a remote engine (the real dockerd reached over tcp://127.0.0.1 through socat, so
 * the service treats it as remote): the workspace is a volume seeded from a git bundle of the
 * branch, the agent's commits come back through a bundle the container writes, the local branch
 * is fast-forwarded only when nothing local is lost, and a divergence is reported, not resolved.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainerRunner } from '../../../src-main/containers/container-runner';
import { ContainerService } from '../../../src-main/containers/container-service';
import type { EngineSpec } from '../../../src-main/containers/core/engine-spec';
import { remoteRef, workspaceVolumeName, type WorkspaceSyncState } from '../../../src-main/containers/core/workspace-sync';
import { Engine } from '../../../src-main/containers/engines';
import { silentLogger } from '../../../src-main/platform/logger';
import { ensureTestImage } from '../../support/container-image';
import { tempDir } from '../../support/temp';

const SESSION = 'ses_remote_ws';
const SMALL = { memoryBytes: 256 * 1024 * 1024, cpus: 1, pids: 256 };
const docker = new Docker({ socketPath: '/var/run/docker.sock' });

let image: string;
let socat: ChildProcess;
let remote: EngineSpec;
let svc: ContainerService;
let repo: string;
const events: WorkspaceSyncState[] = [];
const dirs: Array<{ cleanup(): void }> = [];
const cleanVolumes: string[] = [];

function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Host User', '-c', 'user.email=host@example.test', ...args], { cwd, encoding: 'utf8' }).trim();
}

async function run(command: string): Promise<{ exitCode: number | null; output: string }> {
  const r = await new ContainerRunner(svc, SESSION).run({ cwd: repo, command, env: {}, timeoutMs: 60_000, signal: new AbortController().signal });
  return { exitCode: r.exitCode, output: r.output };
}

beforeAll(async () => {
  image = ensureTestImage({ git: true });
  const port = 24000 + (process.pid % 1000);
  socat = spawn('socat', [`TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr`, 'UNIX-CONNECT:/var/run/docker.sock'], { stdio: 'ignore' });
  remote = { name: 'remote', source: 'user', host: `tcp://127.0.0.1:${port}`, tls: null };
  const e = new Engine(remote);
  // socat needs a moment to listen.
  let up = false;
  for (let i = 0; i < 100 && !up; i++) {
    up = await e.info().then((info) => !info.local, () => false);
    if (!up) await new Promise((r) => setTimeout(r, 100));
  }
  expect(up).toBe(true);
  const r = tempDir('fd-remote-ws-');
  dirs.push(r);
  repo = r.path;
  gitIn(repo, 'init', '-q', '-b', 'work');
  writeFileSync(join(repo, 'README.md'), 'hello from the host\n');
  gitIn(repo, 'add', 'README.md');
  gitIn(repo, 'commit', '-qm', 'host: first');
  const data = tempDir('fd-remote-ws-data-');
  dirs.push(data);
  svc = new ContainerService({ dataDir: data.path, logger: silentLogger, engines: () => [remote], onSyncState: (_id, s) => events.push(s) });
}, 180_000);

afterAll(async () => {
  await svc?.shutdown();
  socat?.kill('SIGTERM');
  if (svc) await docker.getVolume(workspaceVolumeName(svc.instance, SESSION)).remove({ force: true }).catch(() => undefined);
  for (const v of cleanVolumes) await docker.getVolume(v).remove({ force: true }).catch(() => undefined);
  for (const d of dirs) d.cleanup();
});

describe('a session on a remote engine', () => {
  it('works in a volume cloned from the branch, and its commit reaches the local branch after the command', async () => {
    const placed = await svc.place({ sessionId: SESSION, worktree: repo, image, limits: SMALL, engine: 'remote' });
    expect(placed.local).toBe(false);
    expect(placed.remote?.branch).toBe('work');
    const ins = await docker.getContainer(placed.id).inspect();
    expect(ins.Mounts.map((m) => [m.Type, m.Name, m.Destination])).toEqual([['volume', workspaceVolumeName(svc.instance, SESSION), '/app/volumes/workspace']]);

    const r = await run('pwd; cat README.md; git branch --show-current; echo "made in the container" > agent.txt && git add agent.txt && git commit -qm "agent: add agent.txt" && echo committed');
    expect(r.output).toBe('/app/volumes/workspace\nhello from the host\nwork\ncommitted\n');
    expect(r.exitCode).toBe(0);

    // Synced after the command: the branch moved forward, the file is in the worktree.
    expect(gitIn(repo, 'log', '--format=%s', 'work')).toBe('agent: add agent.txt\nhost: first');
    expect(readFileSync(join(repo, 'agent.txt'), 'utf8')).toBe('made in the container\n');
    expect(gitIn(repo, 'status', '--porcelain')).toBe('');
    expect(gitIn(repo, 'rev-parse', remoteRef(SESSION))).toBe(gitIn(repo, 'rev-parse', 'work'));
    const state = svc.workspaceSyncState(SESSION)!;
    expect(state.state).toBe('in_sync');
    expect(events.at(-1)).toEqual(state);
    expect((await svc.list()).find((c) => c.sessionId === SESSION)?.workspaceSync?.state).toBe('in_sync');
  }, 180_000);

  it('leaves a dirty worktree alone (remote_ahead), then fast-forwards it once it is clean', async () => {
    const before = gitIn(repo, 'rev-parse', 'work');
    expect((await run('echo two >> agent.txt && git commit -qam "agent: second line"')).exitCode).toBe(0);
    // The automatic sync after that command fast-forwarded already; make a new container commit with the local worktree dirty.
    expect(gitIn(repo, 'rev-parse', 'work')).not.toBe(before);
    writeFileSync(join(repo, 'README.md'), 'local edit not committed\n');
    const c = await svc.exec(SESSION, { cmd: ['sh', '-c', 'echo three >> agent.txt && git commit -qam "agent: third line"'], workdir: '/app/volumes/workspace', timeoutMs: 60_000 });
    expect(c.exitCode).toBe(0);
    const local = gitIn(repo, 'rev-parse', 'work');
    const dirty = await svc.syncWorkspace(SESSION);
    expect(dirty.state).toBe('remote_ahead');
    expect(dirty.message).toContain('uncommitted changes');
    expect(gitIn(repo, 'rev-parse', 'work')).toBe(local);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('local edit not committed\n');

    gitIn(repo, 'checkout', '-q', '--', 'README.md');
    const clean = await svc.syncWorkspace(SESSION);
    expect(clean.state).toBe('in_sync');
    expect(gitIn(repo, 'log', '-1', '--format=%s', 'work')).toBe('agent: third line');
    expect(readFileSync(join(repo, 'agent.txt'), 'utf8')).toBe('made in the container\ntwo\nthree\n');
  }, 180_000);

  it("never replaces a file git ignores here (a .env) with the container's committed copy", async () => {
    // Ignored on this machine only: the container's clone has none of its excludes, so the agent can commit one.
    writeFileSync(join(repo, '.git/info/exclude'), '.env\n.env.mine\n');
    writeFileSync(join(repo, '.env'), 'SECRET=the-users\n');
    const local = gitIn(repo, 'rev-parse', 'work');
    expect((await run('echo SECRET=the-agents > .env && git add .env && git commit -qm "agent: env"')).exitCode).toBe(0);
    const s = svc.workspaceSyncState(SESSION)!;
    expect(s.state).toBe('remote_ahead');
    expect(s.message).toContain('files that git ignores');
    expect(readFileSync(join(repo, '.env'), 'utf8')).toBe('SECRET=the-users\n');
    expect(gitIn(repo, 'rev-parse', 'work')).toBe(local);
    // Moved aside by the user (to a name also ignored): the next sync brings the commit.
    execFileSync('mv', [join(repo, '.env'), join(repo, '.env.mine')]);
    expect((await svc.syncWorkspace(SESSION)).state).toBe('in_sync');
    expect(gitIn(repo, 'log', '-1', '--format=%s', 'work')).toBe('agent: env');
    expect(readFileSync(join(repo, '.env.mine'), 'utf8')).toBe('SECRET=the-users\n');
  }, 180_000);

  it('reports a divergence and overwrites nothing when the local branch moved meanwhile', async () => {
    writeFileSync(join(repo, 'local.txt'), 'made on the host\n');
    gitIn(repo, 'add', 'local.txt');
    gitIn(repo, 'commit', '-qm', 'host: local commit');
    const local = gitIn(repo, 'rev-parse', 'work');
    expect((await run('echo four >> agent.txt && git commit -qam "agent: fourth line"')).exitCode).toBe(0);

    const s = svc.workspaceSyncState(SESSION)!;
    expect(s.state).toBe('diverged');
    expect(s.message).toContain('Nothing was overwritten');
    expect(s.localHead).toBe(local);
    expect(gitIn(repo, 'rev-parse', 'work')).toBe(local);
    expect(readFileSync(join(repo, 'local.txt'), 'utf8')).toBe('made on the host\n');
    expect(readFileSync(join(repo, 'agent.txt'), 'utf8')).toBe('made in the container\ntwo\nthree\n');
    // The container's commit waits in its ref for the user to merge.
    expect(gitIn(repo, 'log', '-1', '--format=%s', remoteRef(SESSION))).toBe('agent: fourth line');
    expect(s.remoteHead).toBe(gitIn(repo, 'rev-parse', remoteRef(SESSION)));
    expect(existsSync(join(repo, '.git'))).toBe(true);
    // Removing the container keeps the volume: it holds a commit the local branch does not have.
    await svc.remove(SESSION);
    expect((await docker.listVolumes()).Volumes?.some((v) => v.Name === workspaceVolumeName(svc.instance, SESSION))).toBe(true);
  }, 180_000);

  it("keeps the workspace volume while the agent's work in it is not all on the branch: uncommitted files, a stash, another branch", async () => {
    const session = 'ses_remote_ws_wip';
    const r = tempDir('fd-remote-wip-');
    dirs.push(r);
    gitIn(r.path, 'init', '-q', '-b', 'work');
    writeFileSync(join(r.path, 'README.md'), 'wip repo\n');
    gitIn(r.path, 'add', 'README.md');
    gitIn(r.path, 'commit', '-qm', 'host: first');
    const volume = workspaceVolumeName(svc.instance, session);
    cleanVolumes.push(volume);
    const volumeExists = async () => (await docker.listVolumes()).Volumes?.some((v) => v.Name === volume) ?? false;
    const runIn = async (command: string) => (await new ContainerRunner(svc, session).run({ cwd: r.path, command, env: {}, timeoutMs: 60_000, signal: new AbortController().signal })).exitCode;
    const git = 'git -c user.name=Agent -c user.email=agent@example.test';
    for (const leftover of ['echo draft > wip.txt', `echo draft > wip.txt && git add wip.txt && ${git} stash -q`, `${git} checkout -qb side && echo side > side.txt && git add side.txt && ${git} commit -qm side && git checkout -q work`]) {
      await svc.place({ sessionId: session, worktree: r.path, image, limits: SMALL, engine: 'remote' });
      expect(await runIn(leftover)).toBe(0);
      // In sync as far as the branch goes: only the clean-up check tells.
      expect(svc.workspaceSyncState(session)!.state).toBe('in_sync');
      await svc.remove(session);
      expect(await volumeExists()).toBe(true);
      // Cleared for the next round (the clone is the same volume's).
      await svc.place({ sessionId: session, worktree: r.path, image, limits: SMALL, engine: 'remote' });
      expect(await runIn(`rm -f wip.txt side.txt; git stash clear; git branch -D side 2>/dev/null; git status --porcelain`)).toBe(0);
      await svc.remove(session);
      expect(await volumeExists()).toBe(false);
    }
  }, 300_000);
});

