/**
 * A pick stopped right after it moved the feature's branch to the winner (the app killed between
 * the fast-forward and the record put back): picking again finishes it, and the feature's record
 * names its own branch and worktree, not the winner's.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readState } from '../../../../src-main/features/state';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { gitIn } from '../../../support/temp';
import { waitFor } from '../../../support/processes';
import { makeRunRepo, NO_PIPELINE_CONFIG, SUM_JS, twoCandidateHarness, type RunHarness, type RunRepo } from './support';

let repo: RunRepo | null = null;
let h: RunHarness | null = null;
afterEach(async () => {
  await h?.cleanup();
  repo?.cleanup();
  h = null;
  repo = null;
});

describe('candidates: a pick cut off after the fast-forward', () => {
  it('picking again leaves the feature on its own branch and worktree, the candidates archived', async () => {
    repo = makeRunRepo({ remote: 'none', config: NO_PIPELINE_CONFIG() });
    const started = await twoCandidateHarness(repo.repo, 'calc', SUM_JS);
    const featureTree = started.featureTree;
    h = started.h;
    await h.app.featureCandidates.start({ projectPath: repo.repo, slug: 'calc', candidates: [{}, {}], budget: { mode: 'split' }, confirm: true });
    await waitFor(() => h!.app.featureRuns.history(repo!.repo, 'calc').filter((r) => r.status === 'completed').length === 2, 'both candidates', 120_000, 100);
    // What the first pick did before it was cut off: the feature's branch moved to c1's head.
    gitIn(featureTree, 'merge', '-q', '--ff-only', 'feature/calc--c1');
    expect((await readState(activeStatePath(repo.repo, 'calc'))).git.branch).toBe('feature/calc--c1');

    await h.app.featureCandidates.pick(repo.repo, 'calc', 1);
    expect((await readState(activeStatePath(repo.repo, 'calc'))).git).toEqual({ worktree_path: '.trees/calc', branch: 'feature/calc', base_branch: 'main' });
    expect(gitIn(featureTree, 'log', '--format=%s', 'feature/calc').split('\n')).toContain('chore(calc): candidate c1 picked');
    expect(existsSync(join(repo.repo, '.trees/calc--c1'))).toBe(false);
    expect(gitIn(repo.repo, 'branch', '--list', 'feature/calc--*').trim()).toBe('');
    // The picked feature is delivered by a run of its own, in its own worktree.
    await waitFor(() => h!.app.featureRuns.history(repo!.repo, 'calc').filter((r) => r.status === 'completed').length === 3, 'the delivering run', 60_000, 100);
    expect((await readState(activeStatePath(repo.repo, 'calc'))).status).toBe('completed');
  }, 180_000);
});
