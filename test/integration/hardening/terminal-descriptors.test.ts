/**
 * Attack: with a user terminal open, an agent's command listed /proc/self/fd and found the
 * user's pty master (/dev/ptmx), then wrote a command line into it that the user's shell ran.
 * node-pty's forkpty leaves every master inheritable; every pty program now starts through a
 * prelude that closes all descriptors but 0, 1 and 2.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandEnv } from '../../../src-main/agents/tools/command-runner';
import { PtyCommandRunner } from '../../../src-main/terminals/agent-command-runner';
import { tempDir } from '../../support/temp';
import { startTerminalHarness, type TerminalHarness } from '../terminals/support';
import { until } from './support';

let h: TerminalHarness;
const work = tempDir('fd-descriptors-');
// User shells start in a home without start-up files (the harness's): quick, and killing one at
// the end cannot leave a start-up file's lock behind.
beforeAll(async () => {
  h = await startTerminalHarness();
});
afterAll(async () => {
  await h.cleanup();
  work.cleanup();
});

/** "N -> target" lines of `ls -l /proc/<pid>/fd` (the shell's table; ls's own handle is in ls, not there). */
function fdLines(output: string): string[] {
  return output
    .split('\n')
    .map((l) => /\s(\d+) -> (.*)$/.exec(l.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => `${m[1]} -> ${m[2]}`);
}

function descriptorsOf(pid: number): string[] {
  return readdirSync(`/proc/${pid}/fd`).map((fd) => {
    try {
      return `${fd} -> ${readlinkSync(`/proc/${pid}/fd/${fd}`)}`;
    } catch {
      return `${fd} -> ?`;
    }
  });
}

describe.runIf(process.platform === 'linux')('what a terminal program inherits', () => {
  it("an agent's command sees only its own stdio, not the user's open terminal", async () => {
    // The user's shell, open and idle, as in the attack.
    const shell = await h.client.invoke('terminals.create', { target: { kind: 'path', path: work.path }, cols: 80, rows: 24 });
    const runner = new PtyCommandRunner(h.app.terminals);
    const r = await runner.run({
      cwd: work.path,
      // The command's own shell ($$) and a grandchild both list their descriptors.
      command: 'ls -l /proc/$$/fd; echo CHILD-FOLLOWS; sh -c \'ls -l /proc/$$/fd\'',
      env: commandEnv(process.env),
      timeoutMs: 30_000,
      signal: new AbortController().signal,
    });
    expect(r.exitCode).toBe(0);
    const [own, child] = r.output.split('CHILD-FOLLOWS');
    for (const part of [own!, child!]) {
      const lines = fdLines(part);
      expect(lines.map((l) => Number(l.split(' ')[0])).sort()).toEqual([0, 1, 2]);
      expect(part).not.toContain('ptmx');
    }

    // And the user's shell, opened before, holds nothing of the command's terminal either.
    const theirs = descriptorsOf(shell.pid!);
    expect(theirs.map((l) => Number(l.split(' ')[0])).sort()).toEqual(expect.arrayContaining([0, 1, 2]));
    expect(theirs.filter((l) => l.includes('ptmx'))).toEqual([]);
  });

  it('a user shell opened while other terminals run holds no other pty master', async () => {
    const first = await h.client.invoke('terminals.create', { target: { kind: 'path', path: work.path }, cols: 80, rows: 24 });
    const second = await h.client.invoke('terminals.create', { target: { kind: 'path', path: work.path }, cols: 80, rows: 24 });
    // Wait until both shells are at their prompt (their start-up files may hold pipes meanwhile).
    for (const t of [first, second]) {
      await h.client.invoke('terminals.write', { id: t.id, data: 'echo READY-$((40+2))\r' });
      await until(async () => (await h.app.terminals.attach(t.id, 'probe')).data.includes('READY-42'), 'the shell to answer', 60_000);
    }
    for (const pid of [first.pid!, second.pid!]) {
      const fds = descriptorsOf(pid);
      expect(fds.filter((l) => l.includes('ptmx'))).toEqual([]);
      // Anything above 2 is what the shell opened itself (bash keeps a copy of its tty at 255).
      for (const l of fds.filter((x) => Number(x.split(' ')[0]) > 2)) expect(l).toMatch(/-> \/dev\/pts\/\d+$/);
    }
  });
});
