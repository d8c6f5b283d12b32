import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appRoot } from '../../../src-main/platform/paths';
import type { TerminalService } from '../../../src-main/terminals/terminal-service';
import { bareTerminalService } from '../../fixtures/terminals/bare-service';
import { tempDir } from '../../support/temp';
import { isAlive, waitFor } from './support';

/** Processes that ignore SIGHUP and SIGTERM: only a SIGKILL to their group ends them. */
const STUBBORN = "trap '' HUP TERM; sleep 300 & echo child:$!; wait";

const service = bareTerminalService;

async function childPid(terms: TerminalService, id: string): Promise<number> {
  return waitFor(async () => Number(/child:(\d+)/.exec((await terms.attach(id, 'test')).data)?.[1]) || null, 'the child pid');
}

describe('no orphaned processes', () => {
  const dir = tempDir('fd-orphans-');

  it('kills the ptys when the pty host dies, marks their terminals ended, and starts a new host on demand', async () => {
    const terms = service();
    try {
      const a = await terms.spawn({ file: '/bin/bash', args: ['-c', STUBBORN], cwd: dir.path, kind: 'command', title: 'a' });
      const child = await childPid(terms, a.id);
      const { hostPid, ptyPids } = terms.processes();
      expect(hostPid).toBeGreaterThan(0);
      expect(ptyPids).toContain(a.pid);
      process.kill(hostPid!, 'SIGKILL');
      await waitFor(() => !isAlive(a.pid!) && !isAlive(child), 'the pty and its child to be gone');
      await waitFor(() => terms.get(a.id).status === 'exited', 'the terminal to be marked ended');
      expect(terms.get(a.id).problem).toMatch(/terminal host stopped unexpectedly/);
      // The scrollback stays readable.
      expect((await terms.attach(a.id, 'conn')).data).toContain('child:');

      const b = await terms.spawn({ file: '/bin/sh', args: ['-c', 'echo again'], cwd: dir.path, kind: 'command', title: 'b' });
      expect(terms.processes().hostPid).not.toBe(hostPid);
      expect((await terms.whenExited(b.id)).exitCode).toBe(0);
    } finally {
      await terms.shutdown();
    }
  });

  it('ends every pty on shutdown, even processes that ignore SIGHUP and SIGTERM', async () => {
    const terms = service();
    const a = await terms.spawn({ file: '/bin/bash', args: ['-c', STUBBORN], cwd: dir.path, kind: 'command', title: 'a' });
    const child = await childPid(terms, a.id);
    const { hostPid } = terms.processes();
    await terms.shutdown();
    expect(isAlive(hostPid!)).toBe(false);
    await waitFor(() => !isAlive(a.pid!) && !isAlive(child), 'the pty and its child to be gone');
  });

  it('leaves nothing behind when the main process itself is killed', { timeout: 60_000 }, async () => {
    const main = spawn(process.execPath, ['--import', 'tsx', join(appRoot(), 'test/fixtures/terminals/orphan-main.ts'), dir.path], {
      cwd: appRoot(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    main.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const line = await waitFor(() => out.split('\n').find((l) => l.startsWith('{')), 'the stand-in main process to report', 40_000);
    const pids = JSON.parse(line) as { mainPid: number; hostPid: number; ptyPids: number[]; children: number[] };
    const all = [pids.hostPid, ...pids.ptyPids, ...pids.children];
    expect(all.length).toBe(5);
    expect(all.every(isAlive)).toBe(true);
    main.kill('SIGKILL');
    await waitFor(() => all.every((p) => !isAlive(p)), 'the pty host, the ptys and their children to be gone', 20_000);
  });
});
