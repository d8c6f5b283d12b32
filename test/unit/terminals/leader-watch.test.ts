import { spawn as spawnProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { IPty } from 'node-pty';
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

  // Elsewhere (macOS) the slave may be revoked as the session's leader exits: the mark cannot be
  // written there, and the quiet spell or node-pty ends the stream.
  const marked = process.platform === 'linux' ? 'mark' : undefined;
  const endedBy = (r: { endedBy: string | null }) => (marked ? r.endedBy : undefined);

  function run(script: string): Promise<{ output: string; noticed: boolean; exitCode: number; pid: number; endedBy: string | null }> {
    return new Promise((resolve) => {
      // Bytes, as the pty host reads them.
      const pty = spawn('/bin/sh', ['-c', script], { cols: 80, rows: 24, cwd: process.cwd(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, encoding: null });
      const chunks: Buffer[] = [];
      const t: HostTerminal = new HostTerminal(pty, {
        data: (_offset, data, done) => {
          chunks.push(Buffer.from(data));
          done();
        },
        flow: () => undefined,
        // At the exit the watch has (or has not) seen the leader go: node-pty would report it
        // anyway, 200 ms after reaping it, having given up waiting for the pty to close.
        exit: (exitCode) => resolve({ output: Buffer.concat(chunks).toString(), noticed: t.leaderExitNoticed, exitCode, pid: pty.pid, endedBy: t.streamEndedBy }),
      });
    });
  }

  it('notices a leader that exits, with every byte it wrote, without the poll', async () => {
    const r = await run('printf "one\\ntwo\\n"; exit 3');
    expect(r).toMatchObject({ output: 'one\r\ntwo\r\n', noticed: true, exitCode: 3 });
    expect(endedBy(r)).toBe(marked);
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

  it('ends the stream at the end mark: every byte before it, none of the mark, even while a child keeps writing', async () => {
    // A background job writing without a pause (the shell's own echo; deaf to the hangup the
    // leader's exit sends its group), holding the pty: no quiet spell comes, so an end that waited
    // for one ended with node-pty's own close, 200 ms after it reaped the leader. Bounded, and
    // killed whatever happens below.
    const r = await run('(trap "" HUP; i=0; while [ $i -lt 200000 ]; do echo tick; i=$((i+1)); done) & printf "done\\n"; exit 4');
    try {
      expect(r.exitCode).toBe(4);
      expect(r.noticed).toBe(true);
      expect(endedBy(r)).toBe(marked);
      // The job's lines around the leader's; the read that found the mark may end inside one.
      expect(r.output).toMatch(/^(tick\r\n)*done\r\n(tick\r\n)*(t|ti|tic|tick|tick\r)?$/);
    } finally {
      try {
        process.kill(-r.pid, 'SIGKILL');
      } catch {
        // The job had ended.
      }
    }
    // A large output up to the exit: exactly, without the mark.
    const big = await run('head -c 400000 /dev/zero | tr "\\0" a; exit 0');
    expect(endedBy(big)).toBe(marked);
    expect(big.output).toBe('a'.repeat(400_000));
  }, 30_000);

  it.skipIf(!existsSync('/proc/self/stat'))('on the signal, a leader that has ended but is not reaped yet (a zombie) counts as gone; the poll alone does not look', async () => {
    // A subshell that ends a moment later, child of a shell that has by then become a process
    // that never waits (exec sleep): a zombie until the test ends. (Ending at once, the shell
    // could reap it before its exec: dash does, under load.)
    const parent = spawnProcess('/bin/sh', ['-c', '(sleep 1; exit 0) & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = Number((await new Promise<Buffer>((r) => parent.stdout!.once('data', r))).toString().trim());
      const state = () => {
        const stat = readFileSync(`/proc/${zombie}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      };
      await expect.poll(state, { timeout: 20_000, interval: 20 }).toBe('Z');
      const pty = { pid: zombie, onData: () => undefined, onExit: () => undefined, pause: () => undefined, resume: () => undefined } as unknown as IPty;
      const t = new HostTerminal(pty, { data: (_o, _d, done) => done(), flow: () => undefined, exit: () => undefined });
      // Signal 0 still reaches a zombie: the net's poll takes it for alive.
      t.checkLeader();
      expect(t.leaderExitNoticed).toBe(false);
      t.checkLeader(true);
      expect(t.leaderExitNoticed).toBe(true);
      (t as unknown as { batcher: { dispose(): void } }).batcher.dispose();
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
