import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Script } from '../../../fixtures/model-server/index';
import { readState } from '../../../../src-main/features/state';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { cli } from '../../../support/cli';
import { makeRepo, tempDir } from '../../../support/temp';
import { configYaml, makeRunRepo, planFeature, runHarness, SUM_JS, type RunHarness, type RunRepo } from './support';

let repo: RunRepo | null = null;
let h: RunHarness | null = null;
afterEach(async () => {
  await h?.cleanup();
  repo?.cleanup();
  h = null;
  repo = null;
});

// 1,000 input and 100 output tokens at the test profile's $3 / $15 per million: $0.0045 a call.
const USAGE = { input_tokens: 1000, output_tokens: 100 };
const CALL_USD = 0.0045;
const costly = (blocks: Script[number]['blocks']): Script[number] => ({ blocks, usage: USAGE });

describe('feature run limits', () => {
  it('stops before the model call that would exceed agent.max_budget_usd, naming the spend', async () => {
    repo = makeRunRepo({ remote: 'none', config: configYaml().replace('max_budget_usd: 20', 'max_budget_usd: 0.008') });
    await planFeature(repo.repo, 'pricey', ['library']);
    h = await runHarness([costly([{ type: 'tool_use', name: 'write', input: { path: 'sum.mjs', content: SUM_JS } }]), costly([{ type: 'text', text: 'Done.' }])]);
    const r = await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'pricey' })).done;
    expect(r.outcome).toBe('failed');
    expect(r.message).toContain("The run's budget of $0.0080 (agent.max_budget_usd) would be exceeded: $0.0045 spent so far");
    // Exactly one call was made: the second was refused before it reached the model.
    expect(h.server.mainRequests()).toHaveLength(1);
    const s = await readState(activeStatePath(repo.repo, 'pricey'));
    expect(s.status).toBe('failed');
    expect(s.phases[0]).toMatchObject({ status: 'failed', turns: 1 });
    expect(s.phases[0]!.cost_usd).toBeCloseTo(CALL_USD, 6);
    expect(s.phases[0]!.details.reason).toBe(r.message);
    await h.app.events.whenFlushed();
    expect(h.events.map((e) => e.data)).toContainEqual({ type: 'BudgetNotice', level: 'exceeded', message: r.message });

    // Raised, the same feature resumes the failed phase (with what it did so far) and completes.
    const cfg = `${repo.repo}/.flightdeck/config.yml`;
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('max_budget_usd: 0.008', 'max_budget_usd: 5').replace('enabled: true', 'enabled: false').replace('checks: ["node --test"]', 'checks: []'));
    h.server.setScript([
      { blocks: [{ type: 'text', text: 'Finished.' }] },
      { blocks: [{ type: 'text', text: '```yaml\nresult: pass\nitems: []\n```' }] },
    ]);
    const again = await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'pricey' })).done;
    expect(again.message).toBeNull();
    expect(again.outcome).toBe('completed');
    const resumed = h.server.mainRequests().at(-2)!.userText ?? '';
    expect(resumed).toContain('was started before and interrupted (it failed: The run');
  }, 120_000);

  it('stops a phase at agent.max_turns', async () => {
    repo = makeRunRepo({ remote: 'none', config: configYaml().replace('max_turns: 50', 'max_turns: 1') });
    await planFeature(repo.repo, 'chatty', ['library']);
    h = await runHarness([costly([{ type: 'tool_use', name: 'write', input: { path: 'sum.mjs', content: SUM_JS } }]), costly([{ type: 'text', text: 'Done.' }])]);
    const r = await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'chatty' })).done;
    expect(r.outcome).toBe('failed');
    expect(r.message).toBe('The phase "library" reached its limit of 1 turns (agent.max_turns in .flightdeck/config.yml); raise it and run the feature again to continue.');
    expect(h.server.mainRequests()).toHaveLength(1);
    expect((await readState(activeStatePath(repo.repo, 'chatty'))).phases[0]).toMatchObject({ status: 'failed', turns: 1 });
  }, 120_000);

  it('daily budgets warn once, then refuse new model calls of interactive sessions until the maximum is raised', async () => {
    const plain = makeRepo('fd-budget-');
    try {
      h = await runHarness([costly([{ type: 'text', text: 'one' }]), costly([{ type: 'text', text: 'two' }]), costly([{ type: 'text', text: 'three' }])]);
      const notices: Array<{ level: string; title: string; message?: string }> = [];
      h.app.hub.subscribe((e) => {
        if (e.topic === 'app.notice') notices.push(e.payload as (typeof notices)[number]);
      });
      const project = await h.app.projects.add(plain.path);
      h.app.budgets.update({ globalDaily: { warnUsd: 0.004, maxUsd: 0.1 }, projectOverrides: { [project.id]: { warnUsd: null, maxUsd: 0.008 } } });
      const sid = h.app.agents.createSession({ projectId: project.id }).id;
      expect((await h.app.agents.run(sid, 'first')).outcome).toBe('completed');
      expect((await h.app.agents.run(sid, 'second')).outcome).toBe('completed');
      // The warning level was passed by the first call: told once, before the second.
      expect(notices.filter((n) => n.title === 'Budget warning')).toHaveLength(1);
      const third = await h.app.agents.run(sid, 'third');
      expect(third.outcome).toBe('failed');
      expect(third.message).toBe(`Model call refused: $0.0090 spent, today's budget of the project ${project.name} is $0.0080. Raise the maximum (flightdeck budget set, or the budgets settings) or wait until tomorrow to go on.`);
      expect(h.server.mainRequests()).toHaveLength(2);
      expect(h.app.budgets.status()).toContainEqual(expect.objectContaining({ scope: 'project', projectId: project.id, state: 'exceeded' }));
      // Raised: the next call goes ahead.
      h.app.budgets.update({ projectOverrides: { [project.id]: { warnUsd: null, maxUsd: 1 } } });
      expect((await h.app.agents.run(sid, 'third again')).outcome).toBe('completed');
      expect(h.server.mainRequests()).toHaveLength(3);
    } finally {
      plain.cleanup();
    }
  }, 120_000);
});

describe('flightdeck budget', () => {
  it('sets the daily budgets and shows the spend against them', async () => {
    const data = tempDir('fd-budget-cli-');
    const plain = makeRepo('fd-budget-cli-repo-');
    try {
      expect((await cli('budget', '--data-dir', data.path)).out).toContain('No daily budget is set');
      expect((await cli('budget', 'set', '--global-max', 'lots', '--data-dir', data.path)).code).toBe(2);
      const set = await cli('budget', 'set', '--global-warn', '5', '--global-max', '20', '--data-dir', data.path);
      expect(set.code).toBe(0);
      expect(set.out).toMatch(/all spend today\s+\$0\.0000\s+warn \$5\.00, max \$20\.00\s+\[ok\]/);
      const project = await cli('budget', 'set', '--project-max', '2', '--repo', plain.path, '--data-dir', data.path, '--json');
      const parsed = JSON.parse(project.out) as { settings: { globalDaily: unknown; projectOverrides: Record<string, unknown> } };
      expect(parsed.settings.globalDaily).toEqual({ warnUsd: 5, maxUsd: 20 });
      expect(Object.values(parsed.settings.projectOverrides)).toEqual([{ warnUsd: null, maxUsd: 2 }]);
      const cleared = await cli('budget', 'set', '--global-max', 'none', '--global-warn', 'none', '--data-dir', data.path, '--json');
      expect((JSON.parse(cleared.out) as { settings: { globalDaily: unknown } }).settings.globalDaily).toEqual({ warnUsd: null, maxUsd: null });
    } finally {
      plain.cleanup();
      data.cleanup();
    }
  }, 60_000);
});
