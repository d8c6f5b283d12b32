import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSteps, validatePlan } from '../../../src-main/autopilot/plan';
import { cli } from '../../support/cli';
import { gitIn } from '../../support/temp';
import { autopilotHarness, logLines, plan, SUM_JS, SUM_TEST, turn, write, type AutopilotHarness } from './support';

let h: AutopilotHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const ONE_STEP = plan({ next: 'Add sum.js with its test' });
const BROKEN_SUM = 'module.exports = (a, b) => a - b;\n';

/** `autopilot run` in this process against the harness's data folder; the JSON lines parsed. */
async function runCli(args: string[]) {
  const r = await cli('autopilot', ...args, '--json', '--data-dir', h!.dataDir);
  const lines = r.lines.map((l) => JSON.parse(l) as { runId: string; phase: string; status: string; iteration: number; exitReason: string | null; exitDetail?: string });
  return { ...r, states: lines };
}

describe('autopilot stop conditions', () => {
  it('marks a step that keeps failing Blocked with the reason in Notes (exit 3), and an answer resumes it to done', async () => {
    h = await autopilotHarness([
      // iteration 1: plan, a wrong implementation, the fix prompt cannot fix it
      ...turn([write('PLAN.md', ONE_STEP)], 'Planned.'),
      ...turn([write('sum.js', BROKEN_SUM), write('sum.test.js', SUM_TEST)], 'Added.'),
      ...turn([], 'I do not know the right formula.'),
      // iteration 2: no change, fails again → blocked (max 1 fix attempt)
      ...turn([], 'Plan is fine.'),
      ...turn([], 'Nothing more I can do.'),
      // after the human's answer: iteration 3
      ...turn([], 'Plan is fine; the answer says a + b.'),
      ...turn([write('sum.js', SUM_JS)], 'Fixed with a + b.'),
    ]);
    const r = await runCli(['run', '--repo', h.repo, '--goal', 'Add sum', '--test-cmd', 'node --test', '--max-fix-attempts', '1']);
    expect(r.code).toBe(3);
    const last = r.states.at(-1)!;
    expect(last).toMatchObject({ status: 'stopped', phase: 'STOPPED', exitReason: 'blocked', iteration: 2 });
    expect(last.exitDetail).toMatch(/verification failed 2 time\(s\) \(limit 1 fix attempts\); last exit code 1/);
    // one JSON line per state change, in order
    expect(r.states.map((s) => s.phase)).toEqual(['S0_BOOTSTRAP', 'S1_SNAPSHOT', 'S2_PLAN_UPDATE', 'S3_EXECUTE_STEP', 'S4_VERIFY', 'S5_DECIDE', 'S1_SNAPSHOT', 'S2_PLAN_UPDATE', 'S3_EXECUTE_STEP', 'S4_VERIFY', 'S5_DECIDE', 'STOPPED']);
    const run = (await h.app.autopilot.list())[0]!;
    const text = readFileSync(join(run.worktree, 'PLAN.md'), 'utf8');
    expect(validatePlan(text)).toEqual([]);
    const steps = readSteps(text);
    expect(steps.next).toBeUndefined();
    expect(steps.blocked.map((s) => s.id)).toEqual(['001']);
    expect(text).toMatch(/- BLOCKED \(STEP_ID=001\): verification failed 2 time\(s\).* — a human must decide: whether the step should be changed or split.*`node --test`.*\(last failure: .+\)/);
    // The failing output reached the fix-or-replan prompt.
    const fix = h.server.mainRequests().map((q) => JSON.stringify(q.body)).find((b) => b.includes('AUTOPILOT FIX OR REPLAN'));
    expect(fix).toContain('AssertionError');

    const answered = await cli('autopilot', 'answer', run.id, '001', 'The sum is a + b.', '--json', '--data-dir', h.dataDir);
    expect(answered.code).toBe(0);
    const after = await h.app.autopilot.get(run.id);
    expect(after.run.state).toMatchObject({ exitReason: 'done', iteration: 3 });
    const finalPlan = readFileSync(join(run.worktree, 'PLAN.md'), 'utf8');
    expect(readSteps(finalPlan).done.map((s) => s.id)).toEqual(['001']);
    expect(finalPlan).toContain('- ANSWER (STEP_ID=001): The sum is a + b.');
    expect(after.iterations.map((i) => i.verification?.passed)).toEqual([false, false, true]);
  }, 90_000);

  it('stops at max_iters (exit 2) without running another prompt', async () => {
    h = await autopilotHarness([...turn([write('PLAN.md', ONE_STEP)], 'Planned.'), ...turn([write('sum.js', BROKEN_SUM), write('sum.test.js', SUM_TEST)], 'Added.')]);
    const r = await runCli(['run', '--repo', h.repo, '--goal', 'Add sum', '--test-cmd', 'node --test', '--max-iters', '1']);
    expect(r.code).toBe(2);
    expect(r.states.at(-1)).toMatchObject({ exitReason: 'max_iters', iteration: 1 });
    expect(h.server.mainRequests()).toHaveLength(5);
    expect(h.server.pendingTurns()).toBe(0);
  }, 90_000);
});

describe('autopilot guards', () => {
  it('reverts files other than PLAN.md changed by a plan update and asks for the update again', async () => {
    h = await autopilotHarness([
      ...turn([write('PLAN.md', ONE_STEP), write('README.md', 'overwritten by the planner\n'), write('stray.txt', 'x')], 'Planned (and more).'),
      ...turn([], 'Only the plan this time.'),
      ...turn([write('sum.js', SUM_JS), write('sum.test.js', SUM_TEST)], 'Added.'),
    ]);
    const run = await h.run({ goal: 'Add sum', testCmd: 'node --test' });
    expect(run.state.exitReason).toBe('done');
    expect(readFileSync(join(run.worktree, 'README.md'), 'utf8')).toBe('# sample\n');
    expect(existsSync(join(run.worktree, 'stray.txt'))).toBe(false);
    // The plan update's PLAN.md was kept; the retry was told what was reverted.
    const retry = h.server.mainRequests().map((q) => JSON.stringify(q.body)).filter((b) => b.includes('AUTOPILOT PLAN UPDATE · iteration 1'));
    expect(retry.at(-1)).toContain('those changes were reverted: README.md, stray.txt');
    const got = await h.app.autopilot.get(run.id);
    expect(got.iterations[0]!.notes.join('\n')).toContain('plan update changed other files; reverted: README.md, stray.txt');
    expect(logLines(run).some((l) => l.type === 'reverted' && JSON.stringify(l.files) === '["README.md","stray.txt"]')).toBe(true);
  }, 90_000);

  it('an execute that edits PLAN.md gets the edit reverted and the run re-plans', async () => {
    h = await autopilotHarness([
      ...turn([write('PLAN.md', ONE_STEP)], 'Planned.'),
      ...turn([write('sum.js', SUM_JS), write('PLAN.md', '# PLAN\n\nmine now\n')], 'Added sum and rewrote the plan.'),
      ...turn([], 'The plan stays.'),
      ...turn([write('sum.test.js', SUM_TEST)], 'Test added.'),
    ]);
    const run = await h.run({ goal: 'Add sum', testCmd: 'node --test' });
    expect(run.state.exitReason).toBe('done');
    const text = readFileSync(join(run.worktree, 'PLAN.md'), 'utf8');
    expect(text).not.toContain('mine now');
    expect(readSteps(text).done.map((s) => s.id)).toEqual(['001']);
    // sum.js (the step's own work) stayed; the re-plan prompt said why it was asked.
    expect(readFileSync(join(run.worktree, 'sum.js'), 'utf8')).toBe(SUM_JS);
    const replan = h.server.mainRequests().map((q) => JSON.stringify(q.body)).filter((b) => b.includes('AUTOPILOT PLAN UPDATE · iteration 1'));
    expect(replan.at(-1)).toContain('changed PLAN.md; that change was reverted');
    const states = logLines(run).filter((l) => l.type === 'state').map((l) => l.phase);
    expect(states.slice(0, 6)).toEqual(['S1_SNAPSHOT', 'S2_PLAN_UPDATE', 'S3_EXECUTE_STEP', 'S2_PLAN_UPDATE', 'S3_EXECUTE_STEP', 'S4_VERIFY']);
  }, 90_000);

  it('reports a malformed PLAN.md with its lines and has the plan-update prompt repair it (never overwritten)', async () => {
    h = await autopilotHarness([...turn([write('PLAN.md', ONE_STEP)], 'Repaired.'), ...turn([write('sum.js', SUM_JS), write('sum.test.js', SUM_TEST)], 'Added.')]);
    const malformed = plan({ next: 'Add sum.js with its test' }).replace('## Next (exactly ONE item)\n', '## Next (exactly ONE item)\n- [ ] (STEP_ID=009) A second next step\n');
    writeFileSync(join(h.repo, 'PLAN.md'), malformed);
    gitIn(h.repo, 'add', '.');
    gitIn(h.repo, 'commit', '-q', '-m', 'a plan with two Next steps');
    const run = await h.run({ goal: 'Add sum', testCmd: 'node --test' });
    expect(run.state.exitReason).toBe('done');
    const first = JSON.stringify(h.server.mainRequests()[0]!.body);
    expect(first).toContain('PLAN.md does not validate');
    expect(first).toMatch(/line 11: Next holds more than one step/);
    // The prompt carried the plan exactly as the user wrote it (bootstrap never replaced it).
    expect(first).toContain('A second next step');
    const got = await h.app.autopilot.get(run.id);
    expect(got.iterations[0]!.notes[0]).toMatch(/^PLAN.md does not validate: line 11: /);
  }, 90_000);

  it('compacts the key state into Notes and restarts the agent session every N iterations', async () => {
    h = await autopilotHarness([
      ...turn([write('PLAN.md', plan({ next: 'Add sum.js with its test', backlog: ['Add mul.js'] }))], 'Planned.'),
      ...turn([write('sum.js', SUM_JS), write('sum.test.js', SUM_TEST)], 'Added.'),
      ...turn([], 'Plan is fine.'),
      ...turn([write('mul.js', 'module.exports = (a, b) => a * b;\n')], 'Added mul.'),
    ]);
    const run = await h.run({ goal: 'Add sum and mul', testCmd: 'node --test', compactEvery: 1 });
    expect(run.state.exitReason).toBe('done');
    const text = readFileSync(join(run.worktree, 'PLAN.md'), 'utf8');
    expect(text).toMatch(/- SUMMARY before iteration 2: done 001; next 002; backlog 0; failed verifications none; last verification passed\. The agent session was restarted/);
    const sessions = new Set(logLines(run).filter((l) => l.type === 'prompt').map((l) => l.sessionId));
    expect(sessions.size).toBe(2);
    // The new session's first request starts from the plan, not the old conversation.
    const third = h.server.mainRequests()[5]!.body as { messages: unknown[] };
    expect(third.messages).toHaveLength(1);
    expect(JSON.stringify(third)).toContain('SUMMARY before iteration 2');
  }, 90_000);
});
