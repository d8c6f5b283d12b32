/**
 * Attack: SIGKILL the host while a user shell is open and an agent's command has detached a
 * child (`nohup sleep 600 &`). Before, the user's bash and the sleep kept running, unknown to the
 * next start. Now the pty host ends every session it started when its parent goes away, and a
 * start after a crash that took the pty host down too ends what the records name.
 */
import { randomInt } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { connectWsClient, stopWsClients } from '../../fixtures/terminals/ws-client';
import { pidsWith } from '../../support/processes';
import { tempDir } from '../../support/temp';
import { isRunning, processes, running, startHostProcess, until, type HostProcess } from './support';

const hosts: HostProcess[] = [];
const dirs: Array<{ cleanup(): void }> = [];
const markers: string[] = [];

afterEach(async () => {
  stopWsClients();
  for (const h of hosts.splice(0)) await h.stop();
  // Whatever a failed assertion left behind must not outlive the test.
  for (const m of markers.splice(0)) for (const p of running(m)) process.kill(p.pid, 'SIGKILL');
  for (const d of dirs.splice(0)) d.cleanup();
});

/** How many `sleep <marker>` processes run (exactly that command line; zombies have none). */
function sleeping(m: string): number {
  return pidsWith(`sleep ${m}`).length;
}

/** A sleep whose argument is unique to this test, so /proc/<pid>/cmdline finds it and nothing else. */
function marker(): string {
  const m = `${randomInt(600, 700)}.${randomInt(100_000, 999_999)}`;
  markers.push(m);
  return m;
}

async function openShellAndDetachedCommand(): Promise<{ host: HostProcess; shellPid: number; userSleep: string; agentSleep: string; ptyHostPid: number }> {
  const data = tempDir('fd-crash-data-');
  // A home without rc files: the shell is ready at once, and killing it cannot leave an rc file's locks behind.
  const home = tempDir('fd-crash-home-');
  const work = tempDir('fd-crash-work-');
  dirs.push(data, home, work);
  const host = await startHostProcess({ dataDir: data.path, env: { HOME: home.path, SHELL: '/bin/bash' } });
  hosts.push(host);
  const client = connectWsClient(host.port, host.token);
  const userSleep = marker();
  const agentSleep = marker();

  const shell = await client.invoke('terminals.create', { target: { kind: 'path', path: work.path }, cols: 80, rows: 24 });
  await client.invoke('terminals.write', { id: shell.id, data: `nohup sleep ${userSleep} >/dev/null 2>&1 &\r` });

  // Yolo without the OS sandbox, as in the attack (a sandboxed command's pid namespace would end the sleep by itself).
  // The hang-up is ignored before the fork, not by nohup after it: the command's bash exits at
  // once, and the kernel hangs up its terminal's foreground group then, which killed a child
  // that had not yet reached nohup's signal() (seen under CI load, as with `ssh host 'nohup x &'`).
  const session = await client.invoke('agents.sessions.create', { root: work.path, mode: 'yolo', sandbox: 'danger-full-access' });
  await client.invoke('agents.input', { sessionId: session.id, input: `!trap '' HUP; nohup sleep ${agentSleep} >/dev/null 2>&1 &` });
  // The sleeps themselves, exec'd: a looser match also counts the `bash -lc …` running the command.
  await until(() => sleeping(userSleep) === 1 && sleeping(agentSleep) === 1, 'both detached sleeps to run', 30_000);
  // The agent's command itself has ended: only what it detached is left.
  await until(async () => (await client.invoke('agents.sessions.get', { sessionId: session.id })).status !== 'running', 'the command turn to end').catch(() => undefined);

  const ptyHost = processes().find((p) => p.ppid === host.pid && p.cmdline.includes('pty-host'));
  expect(ptyHost).toBeDefined();
  expect(isRunning(shell.pid!)).toBe(true);
  return { host, shellPid: shell.pid!, userSleep, agentSleep, ptyHostPid: ptyHost!.pid };
}

describe.runIf(process.platform === 'linux')('no orphans after the host is killed', () => {
  it('SIGKILL of the host: the pty host notices and ends the shell, its job and what the command detached', { timeout: 150_000 }, async () => {
    const s = await openShellAndDetachedCommand();
    process.kill(s.host.pid, 'SIGKILL');
    await s.host.exited;
    await until(
      () => !isRunning(s.shellPid) && !isRunning(s.ptyHostPid) && running(s.userSleep).length === 0 && running(s.agentSleep).length === 0,
      'the shell, both sleeps and the pty host to be gone',
      20_000,
    );
  });

  it('SIGKILL of the host and the pty host together: the next start ends what was left', { timeout: 180_000 }, async () => {
    const s = await openShellAndDetachedCommand();
    const dataDir = s.host.process.spawnargs[s.host.process.spawnargs.indexOf('--data-dir') + 1]!;
    // Together, as a crash of the whole app: the host is frozen first, so it cannot see the pty
    // host go and end what was left before its own kill lands (seen once under CI load).
    process.kill(s.host.pid, 'SIGSTOP');
    process.kill(s.ptyHostPid, 'SIGKILL');
    process.kill(s.host.pid, 'SIGKILL');
    await s.host.exited;
    await until(() => !isRunning(s.ptyHostPid), 'the pty host to be gone');
    // Nobody is left to end them: this is the state a crash of the whole app leaves. (The
    // shell itself may already have ended of the hang-up when the pty master closed.)
    await new Promise((r) => setTimeout(r, 1_000));
    expect(sleeping(s.userSleep)).toBe(1);
    expect(sleeping(s.agentSleep)).toBe(1);

    const again = await startHostProcess({ dataDir, env: { HOME: dataDir, SHELL: '/bin/bash' } });
    hosts.push(again);
    await until(
      () => !isRunning(s.shellPid) && running(s.userSleep).length === 0 && running(s.agentSleep).length === 0,
      'the next start to end the shell and both sleeps',
      20_000,
    );
  });
});
