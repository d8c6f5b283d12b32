import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Script } from '../../../fixtures/model-server/index';
import type { RunResult } from '../../../../src-main/features/run/feature-runner';
import { readState } from '../../../../src-main/features/state';
import { formatIssueRecord } from '../../../../src-main/features/issue-input';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { gitIn } from '../../../support/temp';
import { bash, configYaml, makeRunRepo, planFeature, runHarness, SUM_JS, text, VERIFY_PASS, withFakeGh, write, type RunHarness, type RunRepo } from './support';

let repo: RunRepo | null = null;
let h: RunHarness | null = null;
let gh: ReturnType<typeof withFakeGh> | null = null;
const savedEnv = { PATH: process.env.PATH, GH_CONFIG_DIR: process.env.GH_CONFIG_DIR };
beforeEach(() => {
  // A short feature: one dev phase, no review, no checks; the PR step is what is tested.
  repo = makeRunRepo({ remote: 'github', config: configYaml({ checks: [] }).replace('enabled: true', 'enabled: false') });
});
afterEach(async () => {
  process.env.PATH = savedEnv.PATH;
  if (savedEnv.GH_CONFIG_DIR === undefined) delete process.env.GH_CONFIG_DIR;
  else process.env.GH_CONFIG_DIR = savedEnv.GH_CONFIG_DIR;
  await h?.cleanup();
  repo?.cleanup();
  gh?.cleanup();
  h = null;
  repo = null;
  gh = null;
});

/** The scripted gh on PATH of the app and of the agent's commands (the app reads process.env). */
function useGh(scenario: unknown): void {
  gh = withFakeGh(scenario);
  process.env.PATH = gh.env.PATH;
  process.env.GH_CONFIG_DIR = gh.env.GH_CONFIG_DIR;
}

function ghCalls(): string[][] {
  return readFileSync(join(gh!.dir, 'calls.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { argv: string[] }).argv);
}

async function runWith(prStep: Script): Promise<RunResult> {
  await planFeature(repo!.repo, 'widget', ['library']);
  h = await runHarness([write('sum.mjs', SUM_JS), text('Done.'), VERIFY_PASS, ...prStep]);
  return (await h.app.featureRuns.enqueue({ projectPath: repo!.repo, slug: 'widget' })).done;
}

describe('feature run: the pull request with gh', () => {
  it('takes the PR URL from the agent text and stores number, URL and title', async () => {
    useGh({ prs: [], createUrl: 'https://github.com/acme/widgets/pull/99' });
    const r = await runWith([text('Opened the pull request: https://github.com/acme/widgets/pull/7')]);
    expect(r.message).toBeNull();
    expect(r.delivery).toEqual({ kind: 'pr', url: 'https://github.com/acme/widgets/pull/7', number: 7, title: 'widget (#7)' });
    const s = await readState(activeStatePath(repo!.repo, 'widget'));
    expect(s.status).toBe('completed');
    expect(s.pr).toEqual({ url: 'https://github.com/acme/widgets/pull/7', number: 7, title: 'widget (#7)' });
    // Flightdeck asked gh whether it is logged in, then left the PR to the agent.
    expect(ghCalls()).toEqual([['auth', 'status']]);
    // The branch (with the record of the PR) is on the origin.
    expect(gitIn(repo!.origin!, 'show', 'feature/widget:.flightdeck/widget/state.yml')).toContain('number: 7');
    const asked = h!.server.mainRequests().at(-1)!.userText ?? '';
    expect(asked).toContain('gh pr create --base main --head feature/widget');
  }, 120_000);

  it("takes it from the output of the agent's gh command when the text has none", async () => {
    useGh({ prs: [], createUrl: 'https://github.com/acme/widgets/pull/12' });
    const r = await runWith([bash('gh pr create --base main --head feature/widget --title "Add sum" --body "A sum function."'), text('Done, the PR is open.')]);
    expect(r.message).toBeNull();
    expect(r.delivery).toEqual({ kind: 'pr', url: 'https://github.com/acme/widgets/pull/12', number: 12, title: 'Add sum' });
    expect((await readState(activeStatePath(repo!.repo, 'widget'))).pr).toEqual({ url: 'https://github.com/acme/widgets/pull/12', number: 12, title: 'Add sum' });
  }, 120_000);

  it('falls back to gh pr list --head <branch>', async () => {
    useGh({ prs: [{ number: 31, state: 'OPEN', url: 'https://github.com/acme/widgets/pull/31', title: 'Sum feature', headRefName: 'feature/widget' }] });
    const r = await runWith([text('I opened it.')]);
    expect(r.delivery).toEqual({ kind: 'pr', url: 'https://github.com/acme/widgets/pull/31', number: 31, title: 'Sum feature' });
    expect(ghCalls()).toContainEqual(['pr', 'list', '--head', 'feature/widget', '--state', 'all', '--json', 'state,url,title,number,isCrossRepository']);
  }, 120_000);

  it('closes the issue the feature was planned from: the agent is asked to, and the PR Flightdeck opens itself says so', async () => {
    useGh({ prs: [], createUrl: 'https://github.com/acme/widgets/pull/40' });
    const tree = await planFeature(repo!.repo, 'widget', ['library']);
    writeFileSync(join(tree, '.flightdeck', 'widget', 'issue.yml'), formatIssueRecord({ number: 12, url: 'https://github.com/acme/widgets/issues/12', title: 'Add a sum' }));
    gitIn(tree, 'add', '.');
    gitIn(tree, 'commit', '-q', '-m', 'record the issue');
    h = await runHarness([write('sum.mjs', SUM_JS), text('Done.'), VERIFY_PASS, text('I could not open it.')]);
    const r = await (await h.app.featureRuns.enqueue({ projectPath: repo!.repo, slug: 'widget' })).done;
    expect(r.delivery).toEqual({ kind: 'pr', url: 'https://github.com/acme/widgets/pull/40', number: 40, title: 'feat: widget' });
    const asked = h.server.mainRequests().at(-1)!.userText ?? '';
    expect(asked).toContain('planned from issue #12 (Add a sum): end the body with the line "Closes #12"');
    const create = ghCalls().find((a) => a[0] === 'pr' && a[1] === 'create')!;
    expect(create[create.indexOf('--body') + 1]).toBe('Feature widget, implemented and verified by Flightdeck.\n\nCloses #12');
  }, 120_000);

  it('pushes and shows the compare URL when gh is installed but not logged in', async () => {
    useGh({ prs: [], authenticated: false });
    const r = await runWith([]);
    expect(r.delivery).toEqual({ kind: 'compare', remote: 'origin', url: 'https://github.com/acme/widgets/compare/main...feature/widget?expand=1' });
    expect(ghCalls()).toEqual([['auth', 'status']]);
    expect(gitIn(repo!.origin!, 'branch', '--list', 'feature/widget').trim()).toBe('feature/widget');
  }, 120_000);
});
