/**
 * A terminal is ended the way closing a terminal window ends it: SIGHUP first, so that the shell
 * and what its startup files run can clean up, and SIGKILL only for what is still there after the
 * grace period. A shell SIGKILLed while it starts leaves its startup's locks behind: pyenv's
 * `pyenv rehash` (run by `eval "$(pyenv init -)"` in ~/.bashrc) takes `~/.pyenv/shims/.pyenv-shim`
 * with noclobber and removes it in an EXIT trap, so a SIGKILL mid-rehash makes every later shell
 * (terminals, agents' commands) wait 60 s for a lock nobody holds.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appRoot } from '../../../src-main/platform/paths';
import type { TerminalService } from '../../../src-main/terminals/terminal-service';
import { bareTerminalService } from '../../fixtures/terminals/bare-service';
import { pyenvLikeShell, readPid } from '../../support/pyenv-like';
import { tempDir } from '../../support/temp';
import { isAlive, waitFor } from './support';

/** A bare terminal service and a folder for one test, both ended after it. */
async function withService(test: (terms: TerminalService, dir: string) => Promise<void>): Promise<void> {
  const dir = tempDir('fd-hangup-');
  const terms = bareTerminalService();
  try {
    await test(terms, dir.path);
  } finally {
    await terms.shutdown();
    dir.cleanup();
  }
}

describe('ending a terminal hangs it up before killing it', () => {
  it('closing a shell still running its startup files lets them clean up (no stale pyenv lock)', () =>
    withService(async (terms, dir) => {
      const shell = pyenvLikeShell(dir);
      const t = await terms.spawn({ file: '/bin/bash', args: shell.args, cwd: dir, kind: 'shell', title: 'bash' });
      const rehash = await waitFor(() => readPid(shell.pidFile), 'the startup file to take its lock');
      expect(existsSync(shell.lock)).toBe(true);
      expect(terms.close(t.id)).toBe(true);
      await waitFor(() => !isAlive(rehash) && !isAlive(t.pid!), 'the shell and its startup to end');
      expect(existsSync(shell.lock)).toBe(false);
    }));

  it("shutting down right after a close waits for the closed shell's startup files to clean up", () =>
    withService(async (terms, dir) => {
      const shell = pyenvLikeShell(dir, 0.6);
      const t = await terms.spawn({ file: '/bin/bash', args: shell.args, cwd: dir, kind: 'shell', title: 'bash' });
      const rehash = await waitFor(() => readPid(shell.pidFile), 'the startup file to take its lock');
      terms.close(t.id);
      // The shell is gone at once; its startup's EXIT trap still works when the host shuts down.
      await waitFor(() => !isAlive(t.pid!), 'the shell to hang up');
      await terms.shutdown();
      await waitFor(() => !isAlive(rehash), 'the startup to end');
      expect(existsSync(shell.lock)).toBe(false);
    }));

  it('a closed terminal whose processes ignore the hangup is still killed after the grace period', () =>
    withService(async (terms, dir) => {
      const t = await terms.spawn({ file: '/bin/bash', args: ['-c', "trap '' HUP TERM; sleep 300 & echo child:$!; wait"], cwd: dir, kind: 'command', title: 'a' });
      const child = await waitFor(async () => Number(/child:(\d+)/.exec((await terms.attach(t.id, 'test')).data)?.[1]) || null, 'the child pid');
      terms.close(t.id);
      await waitFor(() => !isAlive(t.pid!) && !isAlive(child), 'the stubborn pty and its child to be gone', 15_000);
    }));

  it('when the pty host itself is killed, its hung-up shells get the grace period before the main process kills what is left', () =>
    withService(async (terms, dir) => {
      const shell = pyenvLikeShell(dir);
      const t = await terms.spawn({ file: '/bin/bash', args: shell.args, cwd: dir, kind: 'shell', title: 'bash' });
      const rehash = await waitFor(() => readPid(shell.pidFile), 'the startup file to take its lock');
      const stubborn = await terms.spawn({ file: '/bin/bash', args: ['-c', "trap '' HUP TERM; sleep 300 & echo child:$!; wait"], cwd: dir, kind: 'command', title: 'a' });
      const child = await waitFor(async () => Number(/child:(\d+)/.exec((await terms.attach(stubborn.id, 'test')).data)?.[1]) || null, 'the child pid');
      process.kill(terms.processes().hostPid!, 'SIGKILL');
      await waitFor(() => !isAlive(rehash) && !isAlive(t.pid!), 'the shell and its startup to end');
      expect(existsSync(shell.lock)).toBe(false);
      // What ignores the hang-up is still killed.
      await waitFor(() => !isAlive(stubborn.pid!) && !isAlive(child), 'the stubborn pty and its child to be gone', 15_000);
    }));

  it('when the main process is killed, the orphaned pty host hangs its shells up before killing them', { timeout: 60_000 }, async () => {
    const dir = tempDir('fd-hangup-');
    try {
      const shell = pyenvLikeShell(dir.path);
      const main = spawn(process.execPath, ['--import', 'tsx', join(appRoot(), 'test/fixtures/terminals/hangup-main.ts'), dir.path, JSON.stringify(shell.args)], {
        cwd: appRoot(),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      main.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      const line = await waitFor(() => out.split('\n').find((l) => l.startsWith('{')), 'the stand-in main process to report', 40_000);
      const pids = JSON.parse(line) as { hostPid: number; ptyPids: number[] };
      const rehash = await waitFor(() => readPid(shell.pidFile), 'the startup file to take its lock');
      expect(existsSync(shell.lock)).toBe(true);
      main.kill('SIGKILL');
      await waitFor(() => [pids.hostPid, ...pids.ptyPids, rehash].every((p) => !isAlive(p)), 'the host, the shell and its startup to end', 20_000);
      expect(existsSync(shell.lock)).toBe(false);
    } finally {
      dir.cleanup();
    }
  });
});
