import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSteps } from '../../../src-main/autopilot/plan';
import { startModelServer, type ModelServer } from '../../fixtures/model-server/index.js';
import { cli } from '../../support/cli';
import { startTestApp } from '../../support/app';
import { killGroup, waitFor } from '../../support/processes';
import { makeRepo, tempDir } from '../../support/temp';
import { saveTestProfile } from '../agents/harness';
import { autopilotHarness, logLines, plan, SUM_JS, SUM_TEST, turn, write, type AutopilotHarness } from './support';

const ROOT = resolve(__dirname, '../../..');
const TSX = resolve(ROOT, 'node_modules/.bin/tsx');
const ONE_STEP = plan({ next: 'Add sum.js with its test' });

const cleanups: Array<() => unknown> = [];
let h: AutopilotHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('autopilot resume after the process is killed', () => {
  it('a run whose CLI process got SIGKILL in the middle of a prompt resumes from its state to done', async () => {
    const server: ModelServer = await startModelServer({
      script: [
        ...turn([write('PLAN.md', ONE_STEP)], 'Planned.'),
        // The execute prompt hangs: the process is killed while it waits.
        { fault: { kind: 'stall', ms: 60_000 }, blocks: [{ type: 'text', text: 'never seen' }] },
        ...turn([write('sum.js', SUM_JS), write('sum.test.js', SUM_TEST)], 'Added after the restart.'),
      ],
    });
    const data = tempDir('fd-autopilot-kill-');
    const repo = makeRepo('fd-autopilot-kill-repo-');
    cleanups.push(() => server.close(), data.cleanup, repo.cleanup);
    const setup = await startTestApp(data.path);
    saveTestProfile(setup.app, server.url);
    setup.app.dispose();

    const child = spawn(TSX, ['src-main/cli/main.ts', 'autopilot', 'run', '--repo', repo.path, '--goal', 'Add sum', '--test-cmd', 'node --test', '--json', '--data-dir', data.path], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    cleanups.push(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone (the test killed it).
      }
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    const lines = () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { runId: string; phase: string });
    // In S3 with the execute request held by the server: the moment to pull the plug.
    await waitFor(() => lines().some((l) => l.phase === 'S3_EXECUTE_STEP') && server.mainRequests().length === 3, 'the execute prompt in flight', 60_000);
    const runId = lines()[0]!.runId;
    // The whole process group: tsx runs the CLI in a node process of its own, the run's owner.
    await killGroup(child.pid!);

    const listed = await cli('autopilot', 'list', '--json', '--data-dir', data.path);
    const before = (JSON.parse(listed.out) as Array<{ id: string; status: string; message: string; state: { phase: string } }>).find((r) => r.id === runId)!;
    // The new process saw the owner gone: the run is paused where it was, not lost or restarted.
    expect(before.status).toBe('paused');
    expect(before.state.phase).toBe('S3_EXECUTE_STEP');
    expect(before.message).toMatch(/^Interrupted in S3_EXECUTE_STEP/);

    const resumed = await cli('autopilot', 'resume', runId, '--json', '--data-dir', data.path);
    expect(resumed.err).toBe('');
    expect(resumed.code).toBe(0);
    const phases = resumed.lines.map((l) => (JSON.parse(l) as { phase: string }).phase);
    expect(phases[0]).toBe('S3_EXECUTE_STEP');
    expect(phases.at(-1)).toBe('STOPPED');
    const final = JSON.parse((await cli('autopilot', 'list', '--json', '--data-dir', data.path)).out) as Array<{ id: string; worktree: string; state: { exitReason: string; iteration: number } }>;
    const run = final.find((r) => r.id === runId)!;
    expect(run.state).toMatchObject({ exitReason: 'done', iteration: 1 });
    expect(readSteps(readFileSync(join(run.worktree, 'PLAN.md'), 'utf8')).done.map((s) => s.id)).toEqual(['001']);
    expect(readFileSync(join(run.worktree, 'sum.js'), 'utf8')).toBe(SUM_JS);
  }, 150_000);
});

describe('autopilot cancel from another process', () => {
  it('autopilot cancel RUN_ID stops the run a CLI process is driving; that process exits 1', async () => {
    const server: ModelServer = await startModelServer({ script: [{ fault: { kind: 'stall', ms: 60_000 }, blocks: [{ type: 'text', text: 'never' }] }] });
    const data = tempDir('fd-autopilot-cancel-');
    const repo = makeRepo('fd-autopilot-cancel-repo-');
    cleanups.push(() => server.close(), data.cleanup, repo.cleanup);
    const setup = await startTestApp(data.path);
    saveTestProfile(setup.app, server.url);
    setup.app.dispose();
    const child = spawn(TSX, ['src-main/cli/main.ts', 'autopilot', 'run', '--repo', repo.path, '--goal', 'Hang', '--test-cmd', 'node --test', '--json', '--data-dir', data.path], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    cleanups.push(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone (it exited after the cancel).
      }
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    await waitFor(() => server.mainRequests().length === 1, 'the plan update in flight', 60_000);
    const runId = (JSON.parse(out.split('\n')[0]!) as { runId: string }).runId;
    const r = await cli('autopilot', 'cancel', runId, '--data-dir', data.path);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Cancel requested: the process driving ${runId} stops it at once.`);
    expect(await exit).toBe(1);
    const last = JSON.parse(out.trim().split('\n').at(-1)!) as { phase: string; exitReason: string };
    expect(last).toMatchObject({ phase: 'STOPPED', exitReason: 'cancelled' });
  }, 150_000);
});

describe('autopilot executors', () => {
  it('runs with the Claude Code executor (the real claude CLI) to done', async () => {
    h = await autopilotHarness([], { claude: true });
    const run = await h.app.autopilot.startRun({ repo: h.repo, goal: 'Add sum', testCmd: 'node --test', executor: 'claude-code' });
    // Claude Code's Write takes absolute paths: the script is set once the worktree exists
    // (long before the CLI, which takes a second to start, sends its first request).
    const at = (f: string) => join(run.worktree, f);
    h.server.setScript([
      // Claude Code refuses to overwrite a file it has not read in the session.
      { blocks: [{ type: 'tool_use', name: 'Read', input: { file_path: at('PLAN.md') } }] },
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: at('PLAN.md'), content: ONE_STEP } }] },
      { blocks: [{ type: 'text', text: 'Planned.' }] },
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: at('sum.js'), content: SUM_JS } }] },
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: at('sum.test.js'), content: SUM_TEST } }] },
      { blocks: [{ type: 'text', text: 'Added.' }] },
    ]);
    const end = await h.app.autopilot.wait(run.id);
    expect([end.status, end.message, end.state.exitDetail, JSON.stringify(logLines(end).filter((l) => l.type === 'prompt').map((l) => l.reply))]).toEqual(['stopped', null, null, expect.any(String)]);
    expect(end.state.exitReason).toBe('done');
    expect(readFileSync(at('sum.js'), 'utf8')).toBe(SUM_JS);
    const prompts = logLines(end).filter((l) => l.type === 'prompt');
    expect(prompts.map((p) => [p.phase, p.outcome])).toEqual([
      ['S2_PLAN_UPDATE', 'completed'],
      ['S3_EXECUTE_STEP', 'completed'],
    ]);
    // The turns really went through Claude Code: its requests carry its own tool set.
    const tools = (h.server.mainRequests()[0]!.body as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(tools).toContain('Write');
    expect(h.app.coder.sessionConfig(end.sessionId!).executor).toBe('claude-code');
  }, 150_000);
});
