/**
 * An agent's command runs in a login shell (`bash -lc`), whose startup files may run pyenv's
 * rehash: stopping the command (the turn cancelled, its time limit) must give what the SIGTERM
 * reached its grace period to clean up, not SIGKILL it the moment the shell itself exits.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChildProcessRunner } from '../../../src-main/agents/tools/command-runner';
import { pyenvLikeStartup, readPid } from '../../support/pyenv-like';
import { isAlive, waitFor } from '../../support/processes';
import { tempDir } from '../../support/temp';

function loginHome(dir: string, trapSeconds = 0) {
  const startup = pyenvLikeStartup(dir, trapSeconds);
  writeFileSync(join(dir, '.bash_profile'), `${startup.rcLine}\n`);
  return { ...startup, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir } };
}

/** A folder for one test (the login shell's home and the command's cwd), removed after it. */
async function withDir(test: (dir: string) => Promise<void>): Promise<void> {
  const dir = tempDir('fd-cmd-stop-');
  try {
    await test(dir.path);
  } finally {
    dir.cleanup();
  }
}

describe("stopping an agent's command", () => {
  it('cancelled while its login shell starts: the startup files clean up before anything is killed', () =>
    withDir(async (dir) => {
      const home = loginHome(dir);
      const stop = new AbortController();
      const run = new ChildProcessRunner().run({ cwd: dir, command: 'echo never-reached', env: home.env, timeoutMs: 60_000, signal: stop.signal });
      const rehash = await waitFor(() => readPid(home.pidFile), 'the startup file to take its lock');
      stop.abort();
      const r = await run;
      expect(r.exitCode).toBeNull();
      expect(r.output).not.toContain('never-reached');
      expect(isAlive(rehash)).toBe(false);
      expect(existsSync(home.lock)).toBe(false);
    }));

  it('timed out while its login shell starts: the same', () =>
    withDir(async (dir) => {
      const home = loginHome(dir);
      const r = await new ChildProcessRunner().run({ cwd: dir, command: 'echo never-reached', env: home.env, timeoutMs: 1_000, signal: new AbortController().signal });
      expect(r.timedOut).toBe(true);
      expect(existsSync(home.lock)).toBe(false);
    }));

  it('cancelled while its time limit already stops it: one SIGTERM, so a slow EXIT trap still finishes', () =>
    withDir(async (dir) => {
      const home = loginHome(dir, 0.6);
      const stop = new AbortController();
      const run = new ChildProcessRunner().run({ cwd: dir, command: 'echo never-reached', env: home.env, timeoutMs: 1_000, signal: stop.signal });
      await waitFor(() => readPid(home.pidFile), 'the startup file to take its lock');
      // The time limit stops it; the cancel arrives while the trap works.
      await new Promise((r) => setTimeout(r, 1_300));
      stop.abort();
      const r = await run;
      expect(r.timedOut).toBe(true);
      expect(existsSync(home.lock)).toBe(false);
    }));

  it('a stopped command whose background child ignores SIGTERM is still killed after the grace period', () =>
    withDir(async (dir) => {
      const stop = new AbortController();
      let out = '';
      const run = new ChildProcessRunner().run({
        cwd: dir,
        command: "trap '' TERM; (trap '' TERM; exec sleep 300) & echo child:$!; wait",
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
        timeoutMs: 60_000,
        signal: stop.signal,
        onOutput: (s) => (out += s),
      });
      const child = await waitFor(() => Number(/child:(\d+)/.exec(out)?.[1]) || null, 'the child pid');
      stop.abort();
      await run;
      await waitFor(() => !isAlive(child), 'the background child to be killed');
    }));
});
