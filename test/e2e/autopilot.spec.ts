import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startModelServer, type ModelServer, type Script } from '../fixtures/model-server/index';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { AutopilotPage } from './poms/autopilot';
import { makeRepo } from '../support/temp';

const planWith = (step: string) =>
  ['# PLAN', '', '## Goal', '- g', '', '## Acceptance', '- [ ] TEST_CMD passes: `node --test`', '', '## Next (exactly ONE item)', `- [ ] (STEP_ID=001) ${step}`, '', '## Backlog', '', '## Done', '', '## Notes', ''].join('\n');
const test3 = (name: string, expr: string) => `const test = require('node:test');\nconst assert = require('node:assert');\nconst f = require('./${name}.js');\ntest('${name}', () => assert.strictEqual(${expr}, 6));\n`;
const write = (path: string, content: string) => ({ blocks: [{ type: 'tool_use' as const, name: 'write', input: { path, content } }] });
const say = (text: string) => ({ blocks: [{ type: 'text' as const, text }] });

let host: RunningHost;
let model: ModelServer;
let repo: { path: string; cleanup(): void };

test.beforeAll(async () => {
  // Each answer is matched on what the runner sent (the prompt, or the result of the tool just
  // called), so nothing else the app may ask the model can take a scripted turn.
  const planUpdate = (iteration: number, goal: string) => new RegExp(`PLAN UPDATE · iteration ${iteration}\\]\\nYou are the planner of an autopilot run\\. Goal: ${goal}`);
  const execute = (iteration: number, step: string) => new RegExp(`EXECUTE · iteration ${iteration} · STEP_ID=001\\][\\s\\S]*\\(STEP_ID=001\\) ${step}`);
  const script: Script = [
    // Run 1: plan, one step, done.
    { match: { userPattern: planUpdate(1, 'Add a sum module') }, ...write('PLAN.md', planWith('Add sum.js with its test')) },
    { match: { userPattern: 'Overwrote PLAN.md' }, times: 2, ...say('Planned one step.') },
    { match: { userPattern: execute(1, 'Add sum.js') }, ...write('sum.js', 'module.exports = (a, b) => a + b;\n') },
    { match: { userPattern: 'Created sum.js' }, ...write('sum.test.js', test3('sum', 'f(4, 2)')) },
    { match: { userPattern: 'Created sum.test.js' }, ...say('Added sum.') },
    // Run 2: a wrong implementation blocks at once (no fix attempts allowed) …
    { match: { userPattern: planUpdate(1, 'Add a mul module') }, ...write('PLAN.md', planWith('Add mul.js with its test')) },
    { match: { userPattern: execute(1, 'Add mul.js') }, ...write('mul.js', 'module.exports = (a, b) => a + b;\n') },
    { match: { userPattern: 'Created mul.js' }, ...write('mul.test.js', test3('mul', 'f(2, 3)')) },
    { match: { userPattern: 'Created mul.test.js' }, ...say('Added mul.') },
    // … and the human's answer gets it done.
    { match: { userPattern: planUpdate(2, 'Add a mul module') }, ...say('The plan stands; the answer says multiply.') },
    { match: { userPattern: execute(2, 'Add mul.js') }, ...write('mul.js', 'module.exports = (a, b) => a * b;\n') },
    { match: { userPattern: 'Overwrote mul.js' }, ...say('Fixed: a * b.') },
  ];
  model = await startModelServer({ script });
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' } });
  repo = makeRepo('fd-e2e-autopilot-');
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
});

test('start a run and watch it reach done, read its timeline, then answer a blocked step and see it finish', async ({ page }) => {
  test.setTimeout(180_000);
  const board = new BoardPage(page);
  await board.open(host.url);
  const project = await board.addProject(repo.path);
  const ap = new AutopilotPage(page);
  await ap.open();

  // A run that reaches done.
  await ap.start({ project: `${project} — ${repo.path}`, goal: 'Add a sum module', testCmd: 'node --test', timeoutMin: 7 });
  await expect(ap.status).toHaveText('Done', { timeout: 60_000 });
  await expect(ap.phase()).toHaveAttribute('data-phase', 'STOPPED');
  await expect(ap.detail.getByTestId('ap-acceptance')).toHaveText('node --test');
  // Its timeout, as chosen in the form, next to the command.
  await expect(ap.detail.getByTestId('ap-acceptance-timeout')).toHaveText('(timeout 7 min)');
  await expect(ap.detail.getByTestId('ap-plan-done')).toContainText('Add sum.js with its test');
  await expect(ap.detail.getByTestId('ap-plan-next')).toContainText('—');
  await page.screenshot({ path: 'test-results/autopilot-done.png', fullPage: true });

  // Its iteration timeline: the step, the files it changed, the verification, cost and duration.
  await ap.showTimeline();
  const row = ap.detail.getByTestId('ap-iteration').first();
  await expect(row).toContainText('001');
  await expect(row).toContainText('sum.js, sum.test.js');
  await expect(row.getByTestId('ap-verification')).toHaveText('passed');
  await expect(row).toContainText('$');
  await row.getByRole('button', { name: 'Iteration 1 details' }).click();
  await expect(ap.detail.getByTestId('ap-iteration-detail')).toContainText('# pass 1');
  await expect(ap.detail.getByTestId('ap-timeline-chart')).toBeVisible();
  await page.screenshot({ path: 'test-results/autopilot-timeline.png', fullPage: true });

  // A second run whose step fails with no fix attempts allowed: Blocked, with the reason.
  await ap.start({ project: `${project} — ${repo.path}`, goal: 'Add a mul module', testCmd: 'node --test', maxFix: 0 });
  await expect(ap.status).toHaveText('Blocked', { timeout: 60_000 });
  const blocked = ap.detail.getByTestId('ap-blocked');
  await expect(blocked).toContainText('Add mul.js with its test');
  await expect(blocked.getByTestId('ap-blocked-reason')).toContainText('verification failed 1 time(s)');
  await expect(blocked).toContainText('a human must decide');
  await expect(ap.detail.getByTestId('ap-plan-blocked')).toContainText('001');
  await expect(ap.runs).toHaveCount(2);
  await page.screenshot({ path: 'test-results/autopilot-blocked.png', fullPage: true });

  // The board lists the blocked run beside the features (the finished one is not there); it opens the run.
  await page.getByRole('button', { name: 'Board', exact: true }).click();
  const onBoard = page.getByTestId('board-autopilot-run');
  await expect(onBoard).toHaveCount(1);
  await expect(onBoard).toContainText('Add a mul module');
  await expect(onBoard).toContainText('Blocked');
  await onBoard.click();
  await expect(ap.detail.getByTestId('ap-goal-title')).toHaveText('Add a mul module');

  // The answer goes into Notes and the run resumes to done; a reload shows the same state.
  await blocked.getByTestId('ap-answer').fill('mul multiplies: return a * b.');
  await blocked.getByTestId('ap-answer-submit').click();
  await expect(ap.status).toHaveText('Done', { timeout: 60_000 });
  await expect(ap.detail.getByTestId('ap-blocked')).toHaveCount(0);
  await page.reload();
  await expect(ap.status).toHaveText('Done');
  await ap.showTimeline();
  await expect(ap.detail.getByTestId('ap-verification')).toHaveText(['failed (exit 1)', 'passed']);
  await ap.showPlan();
  await ap.detail.getByRole('button', { name: 'Show PLAN.md' }).click();
  await expect(ap.detail.getByTestId('ap-plan-raw')).toContainText('- ANSWER (STEP_ID=001): mul multiplies: return a * b.');
  await page.screenshot({ path: 'test-results/autopilot-answered.png', fullPage: true });

  // The files are real, in the run's worktree (.trees/autopilot-<id> of the project).
  const runId = new URL(page.url()).hash.split('/').pop()!;
  const worktree = join(repo.path, '.trees', runId.replace(/^ap-/, 'autopilot-'));
  expect(readFileSync(join(worktree, 'mul.js'), 'utf8')).toBe('module.exports = (a, b) => a * b;\n');
});

test('the acceptance command runs sandboxed unless the run is started unsandboxed, which the form and the run show in red', async ({ page }) => {
  test.setTimeout(120_000);
  const other = makeRepo('fd-e2e-autopilot-unsandboxed-');
  try {
    const board = new BoardPage(page);
    await board.open(host.url);
    const name = await board.addProject(other.path);
    const ap = new AutopilotPage(page);
    await ap.open();
    await page.getByTestId('ap-new').click();
    const form = page.getByTestId('ap-new-run');
    // Off by default; ticking it shows what it means, in the same red as Full access.
    await expect(form.getByTestId('ap-unsandboxed')).not.toBeChecked();
    await expect(form.getByTestId('ap-unsandboxed-warning')).toHaveCount(0);
    await form.getByTestId('ap-unsandboxed').check();
    const warning = form.getByTestId('ap-unsandboxed-warning');
    await expect(warning).toContainText('FULL ACCESS');
    const red = String(await page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--bad').trim()"));
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(red.slice(i, i + 2), 16));
    await expect(warning).toHaveCSS('color', `rgb(${r}, ${g}, ${b})`);
    await form.getByRole('button', { name: 'Cancel' }).click();

    // A run started with it says so on its page, in red.
    await ap.start({ project: `${name} — ${other.path}`, goal: 'Check the acceptance badge', testCmd: 'true', unsandboxed: true });
    const badge = ap.detail.getByTestId('ap-acceptance-unsandboxed');
    await expect(badge).toHaveText('ACCEPTANCE UNSANDBOXED');
    await expect(badge).toHaveCSS('color', `rgb(${r}, ${g}, ${b})`);
    // Stopped before its repository goes (it may have finished already: `true` passes). The run
    // can also finish between the look and the click: a click without a timeout would then wait
    // for a button that never comes back, to the end of the test (CI run 51).
    const cancel = ap.detail.getByTestId('ap-cancel');
    if (await cancel.isVisible()) await cancel.click({ timeout: 2_000 }).catch(() => undefined);
    await expect(cancel).toBeHidden({ timeout: 30_000 });
  } finally {
    other.cleanup();
  }
});
