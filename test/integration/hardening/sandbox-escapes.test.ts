/**
 * Attacks: an agent's command, running under the default `workspace-write` sandbox through the
 * real terminal path (SandboxedRunner → PtyCommandRunner → pty host → bubblewrap), tries to get
 * out of its workspace: writes through every writable-looking place outside the root (the
 * shared-memory folder, /var/tmp, $HOME, a symlink it plants, /proc/self/cwd), plants a git hook
 * or a config line that the user's next git command would run, and reads Flightdeck's data
 * folder. Every check looks at the file system from outside, after the command ended.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, existsSync, writeFileSync, mkdtempSync, realpathSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandEnv } from '../../../src-main/agents/tools/command-runner';
import { DEFAULT_NETWORK } from '../../../src-main/sandbox/policy';
import { SandboxedRunner } from '../../../src-main/sandbox/sandboxed-runner';
import { PtyCommandRunner } from '../../../src-main/terminals/agent-command-runner';
import { gitIn, makeRepo } from '../../support/temp';
import { startTerminalHarness, type TerminalHarness } from '../terminals/support';

/** Generous: a pty, bubblewrap and a shell start on a loaded 2-core machine. */
const COMMAND_TIMEOUT_MS = 60_000;

let h: TerminalHarness;
const repo = makeRepo('fd-escape-root-');
// Outside the root and outside /tmp (bubblewrap gives commands a private /tmp anyway): the
// places a real user's files live.
const outside = realpathSync(mkdtempSync('/var/tmp/fd-escape-outside-'));
const home = join(outside, 'home');
const dataDir = join(outside, 'data');
const SECRET = 'sk-ant-escape-test-0123456789';
const savedHome = process.env.HOME;
let runner: SandboxedRunner;

beforeAll(async () => {
  mkdirSync(home);
  mkdirSync(dataDir);
  writeFileSync(join(dataDir, 'secrets.json'), JSON.stringify({ anthropic: SECRET }));
  writeFileSync(join(dataDir, 'browser-token'), SECRET);
  process.env.HOME = home;
  h = await startTerminalHarness();
  // As AgentService builds it: the data folder hidden from every command.
  runner = new SandboxedRunner(() => new PtyCommandRunner(h.app.terminals), {}, [
    { path: dataDir, kind: 'dir' },
    { path: join(dataDir, 'secrets.json'), kind: 'file' },
  ]);
});
afterAll(async () => {
  await h.cleanup();
  process.env.HOME = savedHome;
  repo.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

function attack(command: string, root: string = repo.path) {
  return runner.run({
    cwd: root,
    command,
    env: { ...commandEnv(process.env), HOME: home },
    timeoutMs: COMMAND_TIMEOUT_MS,
    signal: new AbortController().signal,
    sandbox: { mode: 'workspace-write', root, network: DEFAULT_NETWORK },
  });
}

describe.runIf(process.platform === 'linux')('a workspace-write command cannot get out of its workspace', () => {
  it('writes to /dev/shm, /var/tmp, $HOME and the real /tmp do not reach the disk outside', async () => {
    const shmName = `fd-escape-${process.pid}-${Date.now()}`;
    const r = await attack(
      [
        `echo x > /dev/shm/${shmName}`,
        `echo x > ${outside}/var-tmp-file`,
        'echo x > "$HOME/.bashrc"',
        `mkdir -p "$HOME/.config/autostart" && echo x > "$HOME/.config/autostart/evil.desktop"`,
        'echo WROTE-ROOT > inside.txt',
        'echo DONE',
      ].join('; '),
    );
    expect(r.output).toContain('DONE');
    // The root itself stays writable: the sandbox is not simply "everything read-only".
    expect(readFileSync(join(repo.path, 'inside.txt'), 'utf8')).toContain('WROTE-ROOT');
    expect(existsSync(`/dev/shm/${shmName}`)).toBe(false);
    expect(readdirSync(outside).sort()).toEqual(['data', 'home']);
    expect(readdirSync(home)).toEqual([]);
  });

  it('a symlink planted in the workspace, or /proc/self/cwd, does not lead a write out', async () => {
    const r = await attack(
      [
        `ln -s ${outside} out-link`,
        'echo x > out-link/through-symlink',
        `ln -s ${outside}/planted-file dangling`,
        'echo x > dangling',
        `echo x > /proc/self/cwd/../../..${outside}/through-proc`,
        `cd /proc/self/root${outside} && echo x > through-proc-root`,
        'echo DONE',
      ].join('; '),
    );
    expect(r.output).toContain('DONE');
    expect(readdirSync(outside).sort()).toEqual(['data', 'home']);
  });

  it("the repository's .git cannot be changed: no hook, no config line, no replaced folder", async () => {
    const configBefore = readFileSync(join(repo.path, '.git', 'config'), 'utf8');
    const hooksBefore = readdirSync(join(repo.path, '.git', 'hooks')).sort();
    const r = await attack(
      [
        "printf '#!/bin/sh\\ntouch PWNED\\n' > .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout",
        'git config core.fsmonitor "touch PWNED-FSMONITOR"',
        'git config core.hooksPath evil-hooks',
        'mv .git .git-old',
        'rm -rf .git',
        // A second repository file the user's git reads: info/attributes, packed refs.
        'echo "* filter=evil" > .git/info/attributes',
        'echo DONE',
      ].join('; '),
    );
    expect(r.output).toContain('DONE');
    expect(readFileSync(join(repo.path, '.git', 'config'), 'utf8')).toBe(configBefore);
    expect(readdirSync(join(repo.path, '.git', 'hooks')).sort()).toEqual(hooksBefore);
    expect(existsSync(join(repo.path, '.git-old'))).toBe(false);
    expect(existsSync(join(repo.path, '.git', 'info', 'attributes'))).toBe(false);
  });

  it("a linked worktree's config.worktree, absent, cannot be created by the command; its git still commits", async () => {
    const wt = join(repo.path, '.trees', 'cfg-wt');
    gitIn(repo.path, 'worktree', 'add', '-q', '-b', 'session/cfg-wt', wt);
    const admin = join(repo.path, '.git', 'worktrees', 'cfg-wt');
    expect(existsSync(join(admin, 'config.worktree'))).toBe(false);
    const r = await attack(
      [
        `printf '[core]\\n\\tfsmonitor = touch PWNED\\n' > ${join(admin, 'config.worktree')}`,
        `rm -f ${join(admin, 'config.worktree')}`,
        `printf '[core]\\n\\tfsmonitor = touch PWNED\\n' > ${join(admin, 'config.worktree')}`,
        'echo work > work.txt',
        'git add work.txt && git -c user.name=a -c user.email=a@b commit -qm work && echo COMMITTED',
        'echo DONE',
      ].join('; '),
      wt,
    );
    expect(r.output).toContain('DONE');
    expect(r.output).toContain('COMMITTED');
    // Made empty before the command ran and bound read-only: git reads nothing from it.
    expect(readFileSync(join(admin, 'config.worktree'), 'utf8')).toBe('');
    expect(gitIn(repo.path, 'log', '-1', '--format=%s', 'session/cfg-wt').trim()).toBe('work');
  });

  it("a repository nested in the root keeps its .git read-only too (a folder of clones, a submodule's .git file)", async () => {
    const nested = join(repo.path, 'services', 'api');
    mkdirSync(nested, { recursive: true });
    gitIn(nested, 'init', '-q');
    const configBefore = readFileSync(join(nested, '.git', 'config'), 'utf8');
    // A submodule or linked worktree: `.git` is a file naming where the repository (and its hooks) is.
    mkdirSync(join(repo.path, 'vendor', 'lib'), { recursive: true });
    writeFileSync(join(repo.path, 'vendor', 'lib', '.git'), 'gitdir: ../../.git\n');
    const r = await attack(
      [
        "printf '#!/bin/sh\\ntouch PWNED\\n' > services/api/.git/hooks/post-checkout",
        '(cd services/api && git config core.fsmonitor "touch PWNED-FSMONITOR")',
        'echo "gitdir: ../evil" > vendor/lib/.git',
        'echo code > services/api/main.go',
        'echo DONE',
      ].join('; '),
    );
    expect(r.output).toContain('DONE');
    expect(existsSync(join(nested, '.git', 'hooks', 'post-checkout'))).toBe(false);
    expect(readFileSync(join(nested, '.git', 'config'), 'utf8')).toBe(configBefore);
    expect(readFileSync(join(repo.path, 'vendor', 'lib', '.git'), 'utf8')).toBe('gitdir: ../../.git\n');
    // The nested repository's own files stay writable.
    expect(readFileSync(join(nested, 'main.go'), 'utf8')).toBe('code\n');
  });

  it('a Unix socket of a service outside (a session bus, the Docker socket) cannot be reached', async () => {
    // Where the user's D-Bus session bus lives (/run/user/<uid>/bus): through it,
    // `systemd-run --user` starts anything outside the sandbox. A read-only mount does not
    // stop connect(), so the socket must not be there at all.
    const runDir = mkdtempSync('/run/fd-escape-');
    const socket = join(runDir, 'bus');
    const received: string[] = [];
    const server = createServer((c) => c.on('data', (d) => received.push(String(d))));
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      const r = await attack(`echo ESCAPED | socat - UNIX-CONNECT:${socket}; echo "socat=$?"; echo ESCAPED2 | socat - UNIX-CONNECT:/var${socket}; echo DONE`);
      expect(r.output).toContain('DONE');
      expect(r.output).toMatch(/socat=[1-9]/);
      // The server is outside; give a connection that did get through time to deliver.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(received).toEqual([]);
      // Name lookups still work where /etc/resolv.conf points into /run.
      const dns = await attack('cat /etc/resolv.conf > /dev/null && echo RESOLV-OK');
      expect(dns.output).toContain('RESOLV-OK');
    } finally {
      await new Promise((resolve) => server.close(resolve));
      rmSync(runDir, { recursive: true, force: true });
    }
  });

  it("Flightdeck's data folder reads as empty", async () => {
    const r = await attack(`cat ${dataDir}/*; echo LISTING; ls -1 ${dataDir}; echo DONE`);
    expect(r.output).toContain('DONE');
    expect(r.output).not.toContain(SECRET);
    expect(r.output.split('LISTING')[1]).not.toContain('browser-token');
  });
});
