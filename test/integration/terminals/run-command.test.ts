import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TerminalOutputEvent } from '../../../src-main/terminals/command-runner';
import { startTestApp } from '../../support/app';
import { tempDir } from '../../support/temp';
import { isAlive, waitFor } from './support';

describe('runCommand (the agent engine API)', () => {
  let t: Awaited<ReturnType<typeof startTestApp>>;
  const dir = tempDir('fd-run-');
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.app.terminals.shutdown();
    t.cleanup();
    dir.cleanup();
  });

  it('captures output and the exit code, in the given folder and environment, as a listed terminal', async () => {
    const r = await t.app.terminals.runCommand({
      cwd: dir.path,
      command: 'echo "out:$GREETING"; pwd; echo err >&2; exit 3',
      env: { GREETING: 'hi there' },
      owner: { projectId: 'proj-123456', sessionId: 'session-1' },
    });
    expect(r.exitCode).toBe(3);
    expect(r.signal).toBeNull();
    expect(r.output).toBe(`out:hi there\n${dir.path}\nerr\n`);
    expect(r).toMatchObject({ truncated: false, timedOut: false, cancelled: false });
    const info = t.app.terminals.get(r.terminalId);
    expect(info).toMatchObject({ kind: 'command', status: 'exited', exitCode: 3, owner: { projectId: 'proj-123456', sessionId: 'session-1' } });
    // The user can still open it and read what it printed.
    expect((await t.app.terminals.attach(r.terminalId, 'conn-user')).data).toContain('out:hi there');
  });

  it('ends a command at its time limit, with its children', async () => {
    const r = await t.app.terminals.runCommand({ cwd: dir.path, command: 'sleep 30 & echo "started bg:$!"; sleep 30; echo never', timeoutMs: 500 });
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(r.signal).toBe('SIGTERM');
    expect(r.output).toContain('started');
    expect(r.output).not.toContain('never');
    expect(t.app.terminals.get(r.terminalId).problem).toMatch(/time limit/);
    const bg = Number(/bg:(\d+)/.exec(r.output)?.[1]);
    expect(bg).toBeGreaterThan(0);
    await waitFor(() => !isAlive(bg), 'the background child to be gone');
  });

  it('cancels through an AbortSignal, and refuses to start when already aborted', async () => {
    const ac = new AbortController();
    const running = t.app.terminals.runCommand({ cwd: dir.path, command: 'echo ready; sleep 30', signal: ac.signal });
    await waitFor(() => t.app.terminals.list().find((x) => x.command === 'echo ready; sleep 30' && x.status === 'running'), 'the command to start');
    ac.abort();
    const r = await running;
    expect(r).toMatchObject({ cancelled: true, timedOut: false, exitCode: null, signal: 'SIGTERM' });
    const pid = t.app.terminals.get(r.terminalId).pid!;
    expect(isAlive(pid)).toBe(false);

    const before = t.app.terminals.list().length;
    await expect(t.app.terminals.runCommand({ cwd: dir.path, command: 'echo no', signal: AbortSignal.abort() })).rejects.toThrow();
    expect(t.app.terminals.list().length).toBe(before);
  });

  it('caps the returned output, keeping its head and tail', async () => {
    const r = await t.app.terminals.runCommand({ cwd: dir.path, command: 'echo FIRST; head -c 400000 /dev/zero | tr "\\0" x; echo; echo LAST', outputCapBytes: 10_000 });
    expect(r.exitCode).toBe(0);
    expect(r.truncated).toBe(true);
    expect(r.output.startsWith('FIRST\n')).toBe(true);
    expect(r.output.endsWith('LAST\n')).toBe(true);
    expect(r.output).toMatch(/bytes of output omitted/);
    expect(Buffer.byteLength(r.output)).toBeLessThan(10_000 + 100);
  });

  it("appends the output to the run's event log, capped, readable after the terminal is closed", async () => {
    const runId = 'run-terminal-test';
    const r = await t.app.terminals.runCommand({ cwd: dir.path, command: 'for i in $(seq 1 3000); do echo "log line $i"; done', runId });
    t.app.terminals.close(r.terminalId);
    await t.app.events.whenFlushed();
    const events = t.app.events.read<TerminalOutputEvent>(runId);
    expect(events.length).toBeGreaterThan(1);
    expect(events.every((e) => e.type === 'terminal.output' && e.payload.terminalId === r.terminalId)).toBe(true);
    const logged = events.map((e) => e.payload.data).join('').replace(/\r\n/g, '\n');
    expect(logged).toBe(r.output);
    expect(logged).toContain('log line 3000\n');
  });

  it('caps what one command writes to the event log', async () => {
    const runId = 'run-terminal-cap';
    const r = await t.app.terminals.runCommand({ cwd: dir.path, command: 'head -c 1200000 /dev/zero | tr "\\0" y', runId, outputCapBytes: 1_000 });
    expect(r.exitCode).toBe(0);
    await t.app.events.whenFlushed();
    const events = t.app.events.read<TerminalOutputEvent>(runId);
    expect(events.map((e) => e.payload.data).join('').length).toBe(1_000_000);
    expect(events[events.length - 1]!.payload).toMatchObject({ data: '', truncated: true });
  });

  it('refuses a folder that does not exist', async () => {
    await expect(t.app.terminals.runCommand({ cwd: `${dir.path}/missing`, command: 'true' })).rejects.toMatchObject({ code: 'path_not_found' });
  });
});
