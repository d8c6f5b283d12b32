import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { blockDecision, planFacts, snapshotText } from '../../../src-main/autopilot/runner';
import { AutopilotPrompts } from '../../../src-main/autopilot/prompts';
import { initialState } from '../../../src-main/autopilot/state';
import { AppError } from '../../../src-preload/contract';
import { tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

const PLAN = '# PLAN\n\n## Goal\n- g\n\n## Acceptance\n- [ ] TEST_CMD passes: `npm test`\n\n## Next\n- [ ] (STEP_ID=001) a\n\n## Backlog\n- [ ] (STEP_ID=002) b\n\n## Done\n\n## Notes\n';

describe('autopilot runner text', () => {
  it('the snapshot names every fact of step A', () => {
    const s = { ...initialState({ maxIters: 5, maxFixAttemptsPerStep: 2 }), iteration: 2, failures: { '001': 1 } };
    const t = snapshotText({ status: ' M a.js', diffStat: ' a.js | 1 +', testSetup: ['package.json (scripts.test: "jest")'] }, PLAN, s);
    expect(t).toContain('git status --porcelain:\n M a.js');
    expect(t).toContain('git diff --stat:\n a.js | 1 +');
    expect(t).toContain('test setup: package.json (scripts.test: "jest")');
    expect(t).toContain('iteration 2 of at most 5; failed verifications: STEP_ID=001: 1; last verification: none yet');
    expect(t).toContain('PLAN.md:\n# PLAN');
    expect(snapshotText({ status: '', diffStat: '', testSetup: [] }, null, s)).toContain('(clean)');
  });

  it('plan facts: valid, next, counts; problems as "line N: …"', () => {
    expect(planFacts(PLAN)).toEqual({ valid: true, nextStepId: '001', backlogCount: 1, blockedCount: 0, problems: [] });
    const two = PLAN.replace('- [ ] (STEP_ID=001) a\n', '- [ ] (STEP_ID=001) a\n- [ ] (STEP_ID=003) c\n');
    expect(planFacts(two).valid).toBe(false);
    expect(planFacts(two).problems[0]).toMatch(/^line \d+: Next holds more than one step/);
    expect(planFacts(null)).toMatchObject({ valid: false, problems: ['line 1: PLAN.md does not exist'] });
  });

  it('the blocked decision quotes the first failing line', () => {
    expect(blockDecision('ok 1\nnot ok 2 - sum\n  AssertionError: 1 !== 2', 'node --test')).toBe(
      'whether the step should be changed or split, what information it is missing, or whether `node --test` is the right acceptance command (last failure: not ok 2 - sum)',
    );
  });

  it("renders the three built-in prompts; a trusted repository's override wins; a broken template is a clear error", () => {
    const wt = tempDir('fd-autopilot-prompts-');
    cleanups.push(wt.cleanup);
    const p = new AutopilotPrompts({ repository: wt.path, useRepositoryTemplates: true });
    const plan = p.render('plan_update', { iteration: 1, goal: 'G', testCmd: 'npm test', snapshot: '[SNAPSHOT]', problems: ['line 3: bad'], reverted: ['x.js'], replanReason: '' });
    expect(plan).toContain('Change ONLY the file PLAN.md');
    expect(plan).toContain('- line 3: bad');
    expect(plan).toContain('reverted: x.js');
    const ex = p.render('execute', { iteration: 1, goal: 'G', testCmd: 'npm test', snapshot: 'S', step: { id: '001', text: 'do it' }, seedFiles: ['src/a.ts'] });
    expect(ex).toContain('(STEP_ID=001) do it');
    expect(ex).toContain('Do NOT edit PLAN.md');
    const fix = p.render('fix_or_replan', { iteration: 2, testCmd: 'npm test', step: null, exitCode: 1, output: 'boom', attempt: 1, maxAttempts: 3 });
    expect(fix).toContain('exit code 1');
    expect(fix).toContain('boom');
    mkdirSync(join(wt.path, '.flightdeck', 'prompts', 'autopilot'), { recursive: true });
    writeFileSync(join(wt.path, '.flightdeck', 'prompts', 'autopilot', 'execute.j2'), 'MY EXECUTE {{ step.id }}');
    expect(p.render('execute', { iteration: 1, goal: 'G', testCmd: 't', snapshot: 'S', step: { id: '007', text: 'x' }, seedFiles: [] })).toBe('MY EXECUTE 007\n');
    writeFileSync(join(wt.path, '.flightdeck', 'prompts', 'autopilot', 'execute.j2'), 'MY {{ nope.id }}');
    expect(() => p.render('execute', { iteration: 1, goal: 'G', testCmd: 't', snapshot: 'S', step: { id: '007', text: 'x' }, seedFiles: [] })).toThrow(AppError);
    // An untrusted repository (the default) gets the built-in prompt, whatever its folder holds.
    const untrusted = new AutopilotPrompts({ repository: wt.path });
    expect(untrusted.render('execute', { iteration: 1, goal: 'G', testCmd: 't', snapshot: 'S', step: { id: '007', text: 'x' }, seedFiles: [] })).toContain('(STEP_ID=007) x');
  });

  it("a symlink in a trusted repository's prompt folder is refused, never read", () => {
    const wt = tempDir('fd-autopilot-prompts-');
    const secret = tempDir('fd-autopilot-secret-');
    cleanups.push(wt.cleanup, secret.cleanup);
    writeFileSync(join(secret.path, 'id_rsa'), 'SECRET-KEY-MATERIAL');
    mkdirSync(join(wt.path, '.flightdeck', 'prompts', 'autopilot'), { recursive: true });
    symlinkSync(join(secret.path, 'id_rsa'), join(wt.path, '.flightdeck', 'prompts', 'autopilot', 'execute.j2'));
    const p = new AutopilotPrompts({ repository: wt.path, useRepositoryTemplates: true });
    const vars = { iteration: 1, goal: 'G', testCmd: 't', snapshot: 'S', step: { id: '007', text: 'x' }, seedFiles: [] };
    expect(() => p.render('execute', vars)).toThrow(/execute\.j2 is a symbolic link/);
  });
});
