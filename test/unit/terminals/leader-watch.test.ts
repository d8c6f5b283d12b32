import { spawn } from 'node-pty';
import { describe, expect, it } from 'vitest';
import { HostTerminal, leaderWatch } from '../../../src-main/terminals/pty-host/host-terminal';

/**
 * A pty's leader is a child of the process that spawned it (here the test's, in the app the pty
 * host), so its exit raises SIGCHLD there and the leader watch notices it then: not by polling
 * every terminal's leader 50 times a second, which was most of the pty host's idle CPU.
 */
describe.skipIf(process.platform === 'win32')('the leader watch', () => {
  // The net's poll out of the way: whatever notices an exit below is the signal.
  leaderWatch.pollMs = 600_000;

  function run(script: string): Promise<{ output: string; noticed: boolean; exitCode: number }> {
    return new Promise((resolve) => {
      const pty = spawn('/bin/sh', ['-c', script], { cols: 80, rows: 24, cwd: process.cwd(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
      const chunks: Buffer[] = [];
      const t: HostTerminal = new HostTerminal(pty, {
        data: (_offset, data, done) => {
          chunks.push(Buffer.from(data));
          done();
        },
        flow: () => undefined,
        // At the exit the watch has (or has not) seen the leader go: node-pty would report it
        // anyway, 200 ms after reaping it, having given up waiting for the pty to close.
        exit: (exitCode) => resolve({ output: Buffer.concat(chunks).toString(), noticed: t.leaderExitNoticed, exitCode }),
      });
    });
  }

  it('notices a leader that exits, with every byte it wrote, without the poll', async () => {
    const r = await run('printf "one\\ntwo\\n"; exit 3');
    expect(r).toEqual({ output: 'one\r\ntwo\r\n', noticed: true, exitCode: 3 });
  });

  it('notices leaders that exit together (one signal may stand for several), and one whose child still holds the pty', async () => {
    const rs = await Promise.all([
      run('echo a'),
      run('echo b'),
      run('echo c; sleep 1 >/dev/null 2>&1 &'),
      // Its background job keeps the pty open (the terminal's stream does not end by itself).
      run('sleep 2 & echo d'),
    ]);
    expect(rs.map((r) => [r.output, r.noticed])).toEqual([
      ['a\r\n', true],
      ['b\r\n', true],
      ['c\r\n', true],
      ['d\r\n', true],
    ]);
  });
});
