/**
 * Best-of-N from the CLI: `feature run --candidates 2` with a different agent for one candidate,
 * `feature compare` (table, --json, --diff), `feature pick` delivering the winner; and the
 * usage errors a person meets.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CandidateDiff, CandidateGroupInfo } from '../../../../src-preload/contract';
import { readState } from '../../../../src-main/features/state';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { cli } from '../../../support/cli';
import { waitFor } from '../../../support/processes';
import { gitIn } from '../../../support/temp';
import { makeRunRepo, NO_PIPELINE_CONFIG, planFeature, runHarness, SUM_JS, text, twoCandidateHarness, write, type RunHarness, type RunRepo } from './support';

let repo: RunRepo | null = null;
let h: RunHarness | null = null;
afterEach(async () => {
  await h?.cleanup();
  repo?.cleanup();
  h = null;
  repo = null;
});

describe('flightdeck feature run --candidates | compare | pick (CLI)', () => {
  it('runs two candidates, prints their budgets and the comparison, shows a diff between them, and picks one that is then delivered', async () => {
    repo = makeRunRepo({ remote: 'none', config: NO_PIPELINE_CONFIG() });
    const started = await twoCandidateHarness(repo.repo, 'pair', `// two\n${SUM_JS}`);
    const featureTree = started.featureTree;
    h = started.h;
    const dataDir = h.dataDir;
    h.app.dispose();
    const args = ['--repo', repo.repo, '--data-dir', dataDir];

    const bad = await cli('feature', 'run', 'pair', '--candidates', '7', ...args);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--candidates takes 2 to 5');
    const badAgent = await cli('feature', 'run', 'pair', '--candidates', '2', '--candidate-agent', 'executor=gpt', ...args);
    expect(badAgent.code).toBe(2);
    expect(badAgent.err).toContain('executor takes builtin|claude-code');

    const r = await cli('feature', 'run', 'pair', '--candidates', '2', '--candidate-agent', 'executor=builtin', '--candidate-agent', 'executor=builtin,model=scripted-model', '--budget-each', '3', '--approve', 'allow', ...args);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('2 candidates of pair, $3.00 each, $6.00 in all');
    expect(r.out).toContain('c2  feature/pair--c2');
    expect(r.out).toMatch(/\[c1\] finished/);
    expect(r.out).toMatch(/\[c2\] finished/);
    expect(r.out).toContain('Pick one with: feature pick pair N');

    const cmp = await cli('feature', 'compare', 'pair', '--json', ...args);
    expect(cmp.code).toBe(0);
    const group = CandidateGroupInfo.parse(JSON.parse(cmp.out));
    expect(group.candidates.map((c) => [c.index, c.status, c.model, c.budgetUsd, c.filesChanged])).toEqual([
      [1, 'finished', null, 3, 1],
      [2, 'finished', 'scripted-model', 3, 1],
    ]);
    const table = await cli('feature', 'compare', 'pair', ...args);
    expect(table.out).toContain('c2  finished');
    expect(table.out).toContain('diff: feature compare pair --diff 2');

    const diff = await cli('feature', 'compare', 'pair', '--diff', 'c2', '--against', '1', '--json', ...args);
    const d = CandidateDiff.parse(JSON.parse(diff.out));
    expect(d.text).toContain('+// two');
    expect(await cli('feature', 'compare', 'pair', '--diff', '9', ...args)).toMatchObject({ code: 2 });

    const picked = await cli('feature', 'pick', 'pair', 'c2', ...args);
    expect(picked.err).toBe('');
    expect(picked.code).toBe(0);
    expect(picked.out).toContain('Candidate c2 is now feature/pair');
    expect(picked.out).toContain('Completed locally');
    expect((await readState(activeStatePath(repo.repo, 'pair'))).status).toBe('completed');
    expect(readFileSync(join(featureTree, 'sum.mjs'), 'utf8')).toContain('// two');
    expect(existsSync(join(repo.repo, '.trees/pair--c1'))).toBe(false);

    const again = await cli('feature', 'pick', 'pair', '1', ...args);
    expect(again.code).toBe(1);
    expect(again.err).toContain('has no open candidates');
  }, 240_000);

  it('when every candidate failed: pick is refused, pick none archives them all, and the feature runs plainly again', async () => {
    repo = makeRunRepo({ remote: 'none', config: NO_PIPELINE_CONFIG() });
    await planFeature(repo.repo, 'both-fail', ['work']);
    const FAIL = text('```yaml\nresult: fail\nitems:\n  - item: it works\n    result: fail\n```');
    const oneFailing = [write('sum.mjs', SUM_JS), text('Done.'), FAIL, text('Cannot fix it.'), FAIL];
    h = await runHarness([...oneFailing, ...oneFailing]);
    h.app.featureRuns.setMaxParallel(1);
    const dataDir = h.dataDir;
    h.app.dispose();
    const args = ['--repo', repo.repo, '--data-dir', dataDir];
    const r = await cli('feature', 'run', 'both-fail', '--candidates', '2', '--approve', 'allow', ...args);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/\[c1\] failed: Verification failed after 2 attempts/);
    const pick = await cli('feature', 'pick', 'both-fail', '1', ...args);
    expect(pick.code).toBe(1);
    expect(pick.err).toContain('Candidate c1 did not finish (failed');
    const plain = await cli('feature', 'run', 'both-fail', ...args);
    expect(plain.code).toBe(1);
    expect(plain.err).toContain('has 2 candidates open');

    const none = await cli('feature', 'pick', 'both-fail', 'none', ...args);
    expect(none.err).toBe('');
    expect(none.code).toBe(0);
    expect(none.out).toContain('No candidate picked: 2 kept under refs/flightdeck/archive/both-fail/');
    expect(existsSync(join(repo.repo, '.trees/both-fail--c1'))).toBe(false);
    expect(gitIn(repo.repo, 'for-each-ref', '--format=%(refname:lstrip=-1)', 'refs/flightdeck/archive/both-fail/').trim().split('\n')).toEqual(['c1', 'c2']);
    const cmp = CandidateGroupInfo.parse(JSON.parse((await cli('feature', 'compare', 'both-fail', '--json', ...args)).out));
    expect(cmp.status).toBe('discarded');
    expect(cmp.candidates.map((c) => c.status)).toEqual(['failed', 'failed']);
    // The feature is planned as before: a plain run is no longer refused for candidates (the script is used up, so it fails at its first call).
    const again = await cli('feature', 'run', 'both-fail', ...args);
    expect(again.err).not.toContain('candidates open');
  }, 240_000);

  it('feature cancel SLUG stops every candidate the app runs, not only the first', async () => {
    repo = makeRunRepo({ remote: 'none' });
    await planFeature(repo.repo, 'stuck', ['work']);
    const stall = { fault: { kind: 'stall' as const, ms: 60_000 }, blocks: [{ type: 'text' as const, text: 'never seen' }] };
    h = await runHarness([stall, stall]);
    h.app.featureRuns.setMaxParallel(2);
    await h.app.featureCandidates.start({ projectPath: repo.repo, slug: 'stuck', candidates: [{}, {}], budget: { mode: 'split' }, confirm: true });
    await waitFor(() => h!.server.mainRequests().length >= 2, 'both stalled calls', 60_000);
    const c = await cli('feature', 'cancel', 'stuck', '--repo', repo.repo, '--data-dir', h.dataDir);
    expect(c.code).toBe(0);
    await waitFor(() => h!.app.featureRuns.history(repo!.repo, 'stuck').every((r) => r.status === 'cancelled'), 'both candidates cancelled', 30_000, 50);
    const group = (await h.app.featureCandidates.compare(repo.repo, 'stuck'))!;
    expect(group.candidates.map((x) => x.status)).toEqual(['stopped', 'stopped']);
  }, 120_000);
});
