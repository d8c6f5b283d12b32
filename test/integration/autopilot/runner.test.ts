import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRunState } from '../../../src-main/autopilot/state';
import { readSteps, validatePlan } from '../../../src-main/autopilot/plan';
import { gitIn } from '../../support/temp';
import { autopilotHarness, logFiles, logLines, MUL_JS, MUL_TEST, plan, SUM_JS, SUM_TEST, turn, write, type AutopilotHarness } from './support';

let h: AutopilotHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const TWO_STEPS = plan({ next: 'Add sum.js with its test', backlog: ['Add mul.js with its test'] });

describe('autopilot runner on a real repository', () => {
  it('reaches done on a two-step goal with node --test as the acceptance command', async () => {
    h = await autopilotHarness([
      ...turn([write('PLAN.md', TWO_STEPS)], 'Planned two steps.'),
      ...turn([write('sum.js', SUM_JS), write('sum.test.js', SUM_TEST)], 'sum added.'),
      ...turn([], 'The plan is right.'),
      ...turn([write('mul.js', MUL_JS), write('mul.test.js', MUL_TEST)], 'mul added.'),
    ]);
    const run = await h.run({ goal: 'Add sum and mul modules', testCmd: 'node --test', commit: true });
    expect(run.state.exitDetail).toBe(null);
    expect(run.status).toBe('stopped');
    expect(run.state.exitReason).toBe('done');
    expect(run.state.iteration).toBe(2);
    const wt = run.worktree;
    expect(wt).toContain(`${h.repo}/.trees/autopilot-`);
    expect(run.branch).toMatch(/^feature\/autopilot-[0-9a-f]+$/);
    // The plan: both steps done, Next and Backlog empty, still valid.
    const planText = readFileSync(join(wt, 'PLAN.md'), 'utf8');
    expect(validatePlan(planText)).toEqual([]);
    const steps = readSteps(planText);
    expect(steps.done.map((s) => s.id)).toEqual(['001', '002']);
    expect(steps.next).toBeUndefined();
    expect(steps.backlog).toEqual([]);
    // The acceptance command really passes in the worktree; the main checkout is untouched.
    execFileSync('node', ['--test'], { cwd: wt, stdio: 'ignore' });
    expect(existsSync(join(h.repo, 'sum.js'))).toBe(false);
    // One commit per completed step, on the run's branch.
    const log = gitIn(wt, 'log', '--format=%s', 'main..HEAD').trim().split('\n');
    expect(log).toEqual(['autopilot: (STEP_ID=002) Add mul.js with its test', 'autopilot: (STEP_ID=001) Add sum.js with its test']);
    expect(gitIn(wt, 'status', '--porcelain')).toBe('');
    // state.json in the worktree = the database's state.
    const file = parseRunState(readFileSync(join(wt, '.flightdeck/autopilot/state.json'), 'utf8'));
    expect(file).toEqual(run.state);
    // The iteration timeline.
    const got = await h.app.autopilot.get(run.id);
    expect(got.iterations.map((i) => [i.iteration, i.stepId, i.verification?.passed, i.filesChanged])).toEqual([
      [1, '001', true, ['PLAN.md', 'sum.js', 'sum.test.js']],
      [2, '002', true, ['mul.js', 'mul.test.js']],
    ]);
    expect(got.iterations.every((i) => i.endedAt !== null && i.costUsd > 0)).toBe(true);
    expect(run.costUsd).toBeGreaterThan(0);
    // The JSONL log: prompts with replies and files, verifications.
    expect(logFiles(wt)).toHaveLength(1);
    const lines = logLines(run);
    const prompts = lines.filter((l) => l.type === 'prompt');
    expect(prompts.map((p) => p.phase)).toEqual(['S2_PLAN_UPDATE', 'S3_EXECUTE_STEP', 'S2_PLAN_UPDATE', 'S3_EXECUTE_STEP']);
    expect(prompts[1]!.prompt).toContain('(STEP_ID=001) Add sum.js with its test');
    expect(prompts[1]!.reply).toBe('sum added.');
    expect(prompts[1]!.filesChanged).toEqual(['sum.js', 'sum.test.js']);
    expect(String(prompts[0]!.prompt)).toContain('[SNAPSHOT]');
    const verifications = lines.filter((l) => l.type === 'verification');
    expect(verifications.map((v) => [v.passed, v.exitCode])).toEqual([[true, 0], [true, 0]]);
    // The agent got the facts (git status shows the new files) in its second plan update.
    const secondPlan = h.server.mainRequests().map((r) => JSON.stringify(r.body)).find((b) => b.includes('AUTOPILOT PLAN UPDATE · iteration 2'));
    expect(secondPlan).toBeDefined();
  }, 90_000);

  it('stops done at once when the acceptance command already passes and nothing is planned', async () => {
    h = await autopilotHarness([...turn([], 'Nothing to plan: the goal is met.')]);
    writeFileSync(join(h.repo, 'ok.test.js'), "require('node:test')('ok', () => {});\n");
    gitIn(h.repo, 'add', '.');
    gitIn(h.repo, 'commit', '-q', '-m', 'a passing test');
    const run = await h.run({ goal: 'Keep the tests green', testCmd: 'node --test' });
    expect(run.state.exitReason).toBe('done');
    expect(run.state.iteration).toBe(1);
    expect(h.server.mainRequests()).toHaveLength(1);
  }, 90_000);

  it('in a registered project the agent works in the run\'s worktree, never in the checkout', async () => {
    h = await autopilotHarness([...turn([write('PLAN.md', plan({ next: 'Add sum.js with its test' }))], 'Planned.'), ...turn([write('sum.js', SUM_JS), write('sum.test.js', SUM_TEST)], 'Added.')]);
    const project = await h.app.projects.add(h.repo);
    const started = await h.app.autopilot.startRun({ projectId: project.id, goal: 'Add sum', testCmd: 'node --test' });
    expect(started.projectId).toBe(project.id);
    const run = await h.app.autopilot.wait(started.id);
    expect(run.state.exitReason).toBe('done');
    expect(existsSync(join(run.worktree, 'sum.js'))).toBe(true);
    expect(existsSync(join(h.repo, 'sum.js'))).toBe(false);
    expect(existsSync(join(h.repo, 'PLAN.md'))).toBe(false);
    expect(h.app.agents.getSession(run.sessionId!).root).toBe(run.worktree);
  }, 90_000);

  it('pauses after the state in progress, resumes to done; cancel stops a hung prompt at once', async () => {
    h = await autopilotHarness([
      { fault: { kind: 'stall', ms: 1_500 }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'PLAN.md', content: plan({ next: 'Add sum.js with its test' }) } }] },
      { blocks: [{ type: 'text', text: 'Planned.' }] },
      ...turn([write('sum.js', SUM_JS), write('sum.test.js', SUM_TEST)], 'Added.'),
      // the second run hangs in its first prompt
      { fault: { kind: 'stall', ms: 60_000 }, blocks: [{ type: 'text', text: 'never' }] },
    ]);
    const started = await h.app.autopilot.startRun({ repo: h.repo, goal: 'Add sum', testCmd: 'node --test' });
    // Paused while the plan update's model request is held: that prompt is not cut off.
    while (h.server.mainRequests().length < 1) await new Promise((r) => setTimeout(r, 20));
    h.app.autopilot.pause(started.id);
    const paused = await h.app.autopilot.wait(started.id);
    expect(paused.status).toBe('paused');
    // The plan update that was running finished; the run stopped before executing.
    expect(paused.state.phase).toBe('S3_EXECUTE_STEP');
    expect(h.server.mainRequests()).toHaveLength(2);
    h.app.autopilot.resume(started.id);
    const done = await h.app.autopilot.wait(started.id);
    expect(done.state.exitReason).toBe('done');

    const second = await h.app.autopilot.startRun({ repo: h.repo, goal: 'Hang', testCmd: 'node --test' });
    while (h.server.mainRequests().length < 6) await new Promise((r) => setTimeout(r, 20));
    const t0 = Date.now();
    h.app.autopilot.cancel(second.id);
    const cancelled = await h.app.autopilot.wait(second.id);
    expect(cancelled.state.exitReason).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(parseRunState(readFileSync(join(cancelled.worktree, '.flightdeck/autopilot/state.json'), 'utf8')).exitReason).toBe('cancelled');
    expect(() => h!.app.autopilot.resume(second.id)).toThrow(/has stopped \(cancelled\)/);
    // Cancelling a run that already ended says so instead of "Cancelled".
    expect(() => h!.app.autopilot.cancel(second.id)).toThrow(/Nothing to cancel: the run .* has already stopped \(cancelled\)/);
    expect(() => h!.app.autopilot.cancel(started.id)).toThrow(/has already stopped \(done\)/);
  }, 90_000);
});
