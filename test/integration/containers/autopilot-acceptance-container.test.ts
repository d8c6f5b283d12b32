/**
 * Issue 20 §2.4 for a run whose agent session is placed in a container: the acceptance command
 * runs in that container (the real Docker engine), like the agent's own commands — what the
 * agent wrote into test.sh reaches the worktree through the mount and nothing on the host
 * outside it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordSelfScript } from '../../../src-main/autopilot/acceptance';
import { ensureTestImage } from '../../support/container-image';
import { isAlive, pidsWith, waitFor } from '../../support/processes';
import { gitIn, makeRepo, tempDir } from '../../support/temp';
import { autopilotHarness, logLines, plan, turn, write, type AutopilotHarness } from '../autopilot/support';

let image: string;
let h: AutopilotHarness | undefined;
const cleanups: Array<() => void> = [];

beforeAll(() => {
  image = ensureTestImage();
}, 120_000);

afterEach(async () => {
  await h?.app.containers.shutdown();
  await h?.cleanup();
  h = undefined;
  for (const c of cleanups.splice(0)) c();
});

describe('autopilot acceptance command of a run placed in a container', () => {
  it('runs in the session container: writes reach the worktree, nothing outside it on the host', async () => {
    const outside = tempDir('fd-acceptance-ctr-outside-');
    const repo = makeRepo('fd-acceptance-ctr-repo-');
    cleanups.push(outside.cleanup, repo.cleanup);
    writeFileSync(join(repo.path, 'test.sh'), 'exit 0\n');
    gitIn(repo.path, 'add', 'test.sh');
    gitIn(repo.path, 'commit', '-q', '-m', 'test.sh');
    const testSh = ['test -f /.dockerenv && echo container > where.txt', `echo escaped > ${outside.path}/marker`, `echo escaped > ${repo.path}/escaped.txt`, 'exit 0', ''].join('\n');
    // The execute prompt fails once: the run pauses with its session, which is then placed in a container.
    h = await autopilotHarness([...turn([write('PLAN.md', plan({ next: 'Make the tests pass', testCmd: 'sh test.sh' }))], 'Planned.'), { fault: { kind: 'status', status: 400, message: 'scripted stop' }, blocks: [] }], { repo: repo.path });
    const paused = await h.run({ goal: 'Make the tests pass', testCmd: 'sh test.sh' });
    expect([paused.status, paused.state.phase]).toEqual(['paused', 'S3_EXECUTE_STEP']);
    await h.app.containers.setPlacement(paused.sessionId!, { image, limits: { memoryBytes: 256 * 1024 * 1024, cpus: 1, pids: 256 } });
    h.server.setScript(turn([write('test.sh', testSh)], 'Rewrote the tests.'));
    h.app.autopilot.resume(paused.id);
    const run = await h.app.autopilot.wait(paused.id);
    expect([run.status, run.state.exitReason, run.message]).toEqual(['stopped', 'done', null]);
    expect(logLines(run).find((l) => l.type === 'verification')?.where).toBe('container');
    expect(readFileSync(join(run.worktree, 'where.txt'), 'utf8')).toBe('container\n');
    expect(existsSync(join(outside.path, 'marker'))).toBe(false);
    expect(existsSync(join(repo.path, 'escaped.txt'))).toBe(false);
  }, 180_000);

  it("ends the run's acceptance command a dead Flightdeck process left running in the (kept) container before it runs another", async () => {
    const repo = makeRepo('fd-acceptance-ctr-left-');
    cleanups.push(repo.cleanup);
    const sleep = `sleep ${86_400 + Math.floor(Math.random() * 100_000)}`;
    cleanups.push(() => {
      for (const pid of pidsWith(sleep)) process.kill(pid, 'SIGKILL');
    });
    h = await autopilotHarness([...turn([write('PLAN.md', plan({ next: 'Make the tests pass', testCmd: 'true' }))], 'Planned.'), { fault: { kind: 'status', status: 400, message: 'scripted stop' }, blocks: [] }], { repo: repo.path });
    const paused = await h.run({ goal: 'Make the tests pass', testCmd: 'true' });
    expect([paused.status, paused.state.phase]).toEqual(['paused', 'S3_EXECUTE_STEP']);
    const sid = paused.sessionId!;
    await h.app.containers.setPlacement(sid, { image, limits: { memoryBytes: 256 * 1024 * 1024, cpus: 1, pids: 256 } });
    await h.app.containers.ensure(sid);
    // What a process killed during this run's acceptance command leaves in a container that stays: the command, recorded as it records itself.
    const stop = new AbortController();
    const left = h.app.containers.exec(sid, { cmd: ['bash', '-c', `${recordSelfScript(`/tmp/.flightdeck-acceptance-${paused.id}`)}; exec ${sleep}`], timeoutMs: 600_000, signal: stop.signal });
    cleanups.push(() => stop.abort());
    const [old] = await waitFor(() => (pidsWith(sleep).length === 1 ? pidsWith(sleep) : null), 'the left-over acceptance command running in the container', 60_000);
    h.server.setScript(turn([], 'Nothing to change.'));
    h.app.autopilot.resume(paused.id);
    const run = await h.app.autopilot.wait(paused.id);
    expect([run.status, run.state.exitReason, run.message]).toEqual(['stopped', 'done', null]);
    expect(logLines(run).find((l) => l.type === 'verification')?.where).toBe('container');
    expect(isAlive(old!)).toBe(false);
    // Killed from outside (SIGKILL), not by its own stop.
    expect((await left).exitCode).toBe(137);
  }, 180_000);
});
