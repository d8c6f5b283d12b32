import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Script } from '../../../fixtures/model-server/index';
import { CLAUDE_BIN } from '../../../fixtures/model-server/claude-cli';
import { readState, sumPhases } from '../../../../src-main/features/state';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { tempDir } from '../../../support/temp';
import { commitSubjects, configYaml, makeRunRepo, planFeature, runHarness, SUM_JS, SUM_TEST, type RunHarness, type RunRepo } from './support';

let repo: RunRepo | null = null;
let h: RunHarness | null = null;
let home: { path: string; cleanup(): void } | null = null;
afterEach(async () => {
  await h?.cleanup();
  repo?.cleanup();
  home?.cleanup();
  h = null;
  repo = null;
  home = null;
});

// Every call: 1,000 input and 100 output tokens at $3 / $15 per million = $0.0045.
const USAGE = { input_tokens: 1000, output_tokens: 100 };
const CALL_USD = 0.0045;

describe('feature run with the Claude Code executor', () => {
  it('runs the dev phases through the real claude CLI; per-phase figures are the deltas of the session cumulative cost, and the totals their sum', async () => {
    repo = makeRunRepo({ remote: 'none' });
    const wt = await planFeature(repo.repo, 'cc', ['library', 'tests'], { agent: { executor: 'claude-code' } });
    home = tempDir('fd-run-claude-home-');
    const script: Script = [
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: join(wt, 'sum.mjs'), content: SUM_JS } }], usage: USAGE },
      { match: { userPattern: 'File created successfully' }, blocks: [{ type: 'text', text: 'Library written.' }], usage: USAGE },
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: join(wt, 'sum.test.mjs'), content: SUM_TEST } }], usage: USAGE },
      { match: { userPattern: 'File created successfully' }, blocks: [{ type: 'text', text: 'Test written.' }], usage: USAGE },
      { blocks: [{ type: 'text', text: 'Fine.\n\n```yaml\nissues: []\n```' }], usage: USAGE },
      { blocks: [{ type: 'text', text: '```yaml\nresult: pass\nitems:\n  - item: sum(2, 3) is 5\n    result: pass\n```' }], usage: USAGE },
    ];
    h = await runHarness(script, { coderEnv: { HOME: home.path, CLAUDE_CODE_MAX_RETRIES: '0' } });
    h.app.coder.updateSettings({ claudePath: CLAUDE_BIN, idleTimeoutS: 60, maxDurationS: 180 });
    // The executor chosen when the plan was approved (state.yml `agent`) is used.
    const { done, ...info } = await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'cc' });
    expect(info.executor).toBe('claude-code');
    const r = await done;
    expect(r.message).toBeNull();
    expect(r.outcome).toBe('completed');
    expect(readFileSync(join(wt, 'sum.mjs'), 'utf8')).toBe(SUM_JS);
    expect(commitSubjects(wt, 'main..HEAD')).toEqual(expect.arrayContaining(['feat(cc): library', 'feat(cc): tests']));

    const s = await readState(activeStatePath(repo.repo, 'cc'));
    expect(s.phases.map((p) => [p.name, p.turns])).toEqual([
      ['library', 2],
      ['tests', 2],
      ['review', 1],
      ['verify', 1],
    ]);
    const costs = s.phases.map((p) => p.cost_usd);
    expect(costs[0]).toBeCloseTo(2 * CALL_USD, 6);
    expect(costs[1]).toBeCloseTo(2 * CALL_USD, 6);
    expect(costs[2]).toBeCloseTo(CALL_USD, 6);
    expect(costs[3]).toBeCloseTo(CALL_USD, 6);
    expect(s.phases.map((p) => p.cost.input_tokens)).toEqual([2000, 2000, 1000, 1000]);
    expect(s.total).toEqual(sumPhases(s.phases));
    // The session's cumulative figures end where the phases' deltas add up to.
    const session = h.app.agents.listSessions().find((x) => x.title === 'Feature cc')!;
    expect(session.executor).toBe('claude-code');
    expect(session.cost.usd).toBeCloseTo(s.total.cost_usd, 6);
    expect(session.cost.calls).toBe(s.total.turns);
  }, 240_000);

  it('ends the Claude Code run at agent.max_turns: after the call that reached it, before the next one', async () => {
    repo = makeRunRepo({ remote: 'none', config: configYaml().replace('max_turns: 50', 'max_turns: 1') });
    const wt = await planFeature(repo.repo, 'cc-limit', ['library'], { agent: { executor: 'claude-code' } });
    home = tempDir('fd-run-claude-home-');
    h = await runHarness(
      [
        { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: join(wt, 'sum.mjs'), content: SUM_JS } }], usage: USAGE },
        { match: { userPattern: 'File created successfully' }, blocks: [{ type: 'text', text: 'Library written.' }], usage: USAGE },
      ],
      { coderEnv: { HOME: home.path, CLAUDE_CODE_MAX_RETRIES: '0' } },
    );
    h.app.coder.updateSettings({ claudePath: CLAUDE_BIN, idleTimeoutS: 60, maxDurationS: 180 });
    const r = await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'cc-limit' })).done;
    expect(r.outcome).toBe('failed');
    expect(r.message).toContain('reached its limit of 1 turns');
    // The second call (after the Write) was never answered by the model server.
    expect(h.server.mainRequests()).toHaveLength(1);
    const s = await readState(activeStatePath(repo.repo, 'cc-limit'));
    expect(s.phases[0]).toMatchObject({ status: 'failed', turns: 1 });
  }, 240_000);
});
