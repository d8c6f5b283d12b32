import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src-preload/contract';
import { startTestApp } from '../../support/app';
import { pidsWith, processExists as alive } from '../../support/processes';
import { makeRepo, tempDir } from '../../support/temp';
import { harness, waitFor, type Harness } from './harness';

/**
 * Issue 8 item 10: a `!` command turn that is cancelled or interrupted ends like any other
 * turn: its `turn.ended` names the turn of its `turn.started`, and the session's lastTurn is set.
 * A `!` command adds its transcript message only when the command ends, so a crash in the
 * middle left nothing that named the turn.
 */
let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const root = fileURLToPath(new URL('../../..', import.meta.url));

function turnEvents(events: AgentEvent[]): Array<{ type: string; turnId: string | null; outcome?: string }> {
  return events
    .filter((e) => e.data.type === 'turn.started' || e.data.type === 'turn.ended')
    .map((e) => ({ type: e.data.type, turnId: e.turnId, ...(e.data.type === 'turn.ended' ? { outcome: e.data.outcome } : {}) }));
}

describe('an interrupted ! command has its turn', () => {
  it('cancelled while the command runs: turn.ended carries the turnId and lastTurn is set', async () => {
    h = await harness([]);
    const id = h.session({ mode: 'yolo' });
    const running = h.app.agents.run(id, '!sleep 60');
    await waitFor(() => h!.events(id, 'tool.decision').length > 0, 'the command to be allowed');
    expect(h.app.agents.cancel(id)).toBe(true);
    // Well before the sleep could end: a cancel that arrives while the terminal starts is not lost.
    const r = await running;
    expect(r.outcome).toBe('cancelled');
    await h.app.agents.sink.flushed();
    const turns = turnEvents(h.app.agents.sink.read(id, 1, 10_000));
    expect(turns).toEqual([
      { type: 'turn.started', turnId: r.turnId },
      { type: 'turn.ended', turnId: r.turnId, outcome: 'cancelled' },
    ]);
    expect(h.app.agents.getSession(id).lastTurn).toMatchObject({ turnId: r.turnId, outcome: 'cancelled' });
  }, 30_000);

  it('the app stops while the command runs: the turn is interrupted under its own turnId', async () => {
    h = await harness([]);
    const id = h.session({ mode: 'yolo' });
    const { turnId } = h.app.agents.input(id, `!echo started; sleep 60`);
    await waitFor(() => h!.events(id, 'tool.output').some((o) => o.chunk.includes('started')), 'the command to start');
    await h.restart();
    const turns = turnEvents(h.app.agents.sink.read(id, 1, 10_000));
    expect(turns).toEqual([
      { type: 'turn.started', turnId },
      { type: 'turn.ended', turnId, outcome: 'interrupted' },
    ]);
    expect(h.app.agents.getSession(id)).toMatchObject({ status: 'interrupted', lastTurn: { turnId, outcome: 'interrupted' } });
  }, 30_000);

  it('the host process is killed (SIGKILL) while the command runs: the next start ends that turn with its turnId', async () => {
    const data = tempDir('fd-bang-crash-data-');
    const repo = makeRepo('fd-bang-crash-repo-');
    let commandPid: number | null = null;
    try {
      // One process (tsx as a loader, not its CLI, which would run the host in a second process).
      const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'test', 'fixtures', 'agents', 'bang-crash-host.ts'), data.path, repo.path], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const pidFile = join(repo.path, 'bang.pid');
      const started = await waitFor(() => /STARTED (\S+) (\S+)/.exec(out) ?? (child.exitCode !== null ? { error: out } : null), 'the host to start the command', 60_000);
      if (!Array.isArray(started)) throw new Error(`the host exited: ${out}`);
      const [, sessionId, turnId] = started as RegExpExecArray;
      await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 'the command to run', 30_000);
      // Its host pid, found by its command line (inside its sandbox it has another one).
      commandPid = await waitFor(() => pidsWith('sleep 60.0423')[0], 'the command to be found');
      child.kill('SIGKILL');
      await exited;

      const restarted = await startTestApp(data.path);
      try {
        await restarted.app.agents.sink.flushed();
        const turns = turnEvents(restarted.app.agents.sink.read(sessionId!, 1, 10_000));
        expect(turns).toEqual([
          { type: 'turn.started', turnId },
          { type: 'turn.ended', turnId, outcome: 'interrupted' },
        ]);
        expect(restarted.app.agents.getSession(sessionId!)).toMatchObject({ status: 'interrupted', lastTurn: { turnId, outcome: 'interrupted' } });
      } finally {
        restarted.app.dispose();
      }
    } finally {
      // The command's process group outlived the killed host (that is another issue's subject): end it.
      if (commandPid !== null && alive(commandPid)) process.kill(commandPid, 'SIGKILL');
      data.cleanup();
      repo.cleanup();
    }
  }, 90_000);
});
