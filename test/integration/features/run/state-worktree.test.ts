/**
 * A feature's state.yml lives in the worktree its agent writes (a candidate's too): a
 * git.worktree_path rewritten to name another worktree (a sibling candidate's, which holds the
 * same feature's specs) must not make the next run work, and let its agent write, there.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readState, writeState } from '../../../../src-main/features/state';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { gitIn } from '../../../support/temp';
import { CLEAN_REVIEW, makeRunRepo, planFeature, runHarness, SUM_JS, text, VERIFY_PASS, write, type RunHarness, type RunRepo } from './support';

let repo: RunRepo | null = null;
let h: RunHarness | null = null;
afterEach(async () => {
  await h?.cleanup();
  repo?.cleanup();
  h = null;
  repo = null;
});

describe('feature run: the worktree state.yml names', () => {
  it('a state.yml naming another worktree is refused before any agent works there', async () => {
    repo = makeRunRepo({ remote: 'none' });
    await planFeature(repo.repo, 'demo', ['library']);
    // A candidate's worktree beside the feature's, as best-of-N makes them (same specs, own branch).
    gitIn(repo.repo, 'worktree', 'add', '-q', '-b', 'feature/demo--c2', '.trees/demo--c2', 'feature/demo');
    const other = join(repo.repo, '.trees', 'demo--c2');
    const path = activeStatePath(repo.repo, 'demo');
    const s = await readState(path);
    writeState(path, { ...s, git: { ...s.git, worktree_path: '.trees/demo--c2' } });
    h = await runHarness([write('sum.mjs', SUM_JS), text('Done.'), CLEAN_REVIEW, VERIFY_PASS]);
    const r = await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'demo' }).then((x) => x.done, (e: unknown) => ({ outcome: 'refused', message: String(e) }));
    expect(r.outcome).not.toBe('completed');
    expect(r.message).toMatch(/git\.worktree_path names \.trees\/demo--c2, not the worktree this state\.yml is in \(\.trees\/demo\)/);
    expect(existsSync(join(other, 'sum.mjs'))).toBe(false);
  }, 120_000);
});
