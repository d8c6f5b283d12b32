/**
 * Issue 20 §1/§2.3: autopilot reads a trusted repository's prompt templates from its main checkout
 * only, never from the run's worktree, which the run's agent writes. On the real services, real
 * git and the scripted model: the agent plants a template in its worktree during a step; the next
 * prompt is still rendered from the main checkout's trusted template, and the planted text never
 * reaches the model.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitIn } from '../../support/temp';
import { autopilotHarness, logLines, MUL_JS, MUL_TEST, plan, SUM_JS, SUM_TEST, turn, write, type AutopilotHarness } from '../autopilot/support';

let h: AutopilotHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const TEMPLATE = '.flightdeck/prompts/autopilot/plan_update.j2';

describe('autopilot prompt templates under workspace trust', () => {
  it("an agent's template edit in the run's worktree is not used; the trusted main checkout's is", async () => {
    h = await autopilotHarness([
      ...turn([write('PLAN.md', plan({ next: 'Add sum.js with its test', backlog: ['Add mul.js with its test'] }))], 'Planned two steps.'),
      // The agent of step 1 also rewrites the plan-update template in its worktree.
      ...turn([write('sum.js', SUM_JS), write('sum.test.js', SUM_TEST), write(TEMPLATE, 'PLANTED-BY-AGENT iteration {{ iteration }}')], 'sum added.'),
      ...turn([], 'The plan is right.'),
      ...turn([write('mul.js', MUL_JS), write('mul.test.js', MUL_TEST)], 'mul added.'),
    ]);
    // The user's repository has its own plan-update template, reviewed and trusted.
    mkdirSync(join(h.repo, '.flightdeck/prompts/autopilot'), { recursive: true });
    writeFileSync(join(h.repo, TEMPLATE), 'MAIN-CHECKOUT-TEMPLATE iteration {{ iteration }}: {{ goal }}\n');
    gitIn(h.repo, 'add', '.');
    gitIn(h.repo, 'commit', '-q', '-m', 'our plan-update prompt');
    expect((await h.app.trust.trust(h.repo)).state).toBe('trusted');

    const run = await h.run({ goal: 'Add sum and mul modules', testCmd: 'node --test' });
    expect(run.state.exitDetail).toBe(null);
    expect(run.state.exitReason).toBe('done');
    const bodies = h.server.mainRequests().map((r) => JSON.stringify(r.body));
    // Both plan updates came from the main checkout's template…
    expect(bodies.some((b) => b.includes('MAIN-CHECKOUT-TEMPLATE iteration 1: Add sum and mul modules'))).toBe(true);
    expect(bodies.some((b) => b.includes('MAIN-CHECKOUT-TEMPLATE iteration 2: Add sum and mul modules'))).toBe(true);
    // …and the planted one (still in the worktree) was never rendered: its text reaches the model
    // only as the agent's own write call (with its `{{ iteration }}` unrendered).
    expect(readFileSync(join(run.worktree, TEMPLATE), 'utf8')).toContain('PLANTED-BY-AGENT');
    expect(bodies.some((b) => b.includes('PLANTED-BY-AGENT iteration {{ iteration }}'))).toBe(true);
    expect(bodies.some((b) => b.includes('PLANTED-BY-AGENT iteration 2'))).toBe(false);
    const prompts = logLines(run).filter((l) => l.type === 'prompt' && l.phase === 'S2_PLAN_UPDATE');
    expect(prompts.map((p) => String(p.prompt).split('\n')[0])).toEqual(['MAIN-CHECKOUT-TEMPLATE iteration 1: Add sum and mul modules', 'MAIN-CHECKOUT-TEMPLATE iteration 2: Add sum and mul modules']);
  }, 300_000);
});
