/**
 * A candidate's worktree is prepared like the feature's own (the project's worktree.copy, ports
 * and setup): its ignored files copied, its setup run (the candidates' side by side) before its
 * agent starts; a setup that fails starts nothing and leaves nothing half-made behind.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitIn } from '../../../support/temp';
import { waitFor } from '../../../support/processes';
import { configYaml, makeRunRepo, planFeature, runHarness, SUM_JS, text, write, type RunHarness, type RunRepo } from './support';

let repo: RunRepo | null = null;
let h: RunHarness | null = null;
afterEach(async () => {
  await h?.cleanup();
  repo?.cleanup();
  h = null;
  repo = null;
});

const PASS = text('```yaml\nresult: pass\nitems: []\n```');
const base = () => configYaml({ checks: ['test -f setup-ran.txt'] }).replace('enabled: true', 'enabled: false');

describe('candidate worktrees are prepared as the feature worktree is', () => {
  it('copies the ignored files and runs the setup in each candidate before it starts; its check sees what setup made', async () => {
    repo = makeRunRepo({ remote: 'none', config: `${base()}\nworktree:\n  copy: [".envrc"]\n  setup:\n    - echo ran > setup-ran.txt\n` });
    writeFileSync(join(repo.repo, '.gitignore'), '.trees/\n.envrc\nsetup-ran.txt\n');
    gitIn(repo.repo, 'commit', '-qam', 'ignore');
    writeFileSync(join(repo.repo, '.envrc'), 'export SECRET_OF_THE_USER=1\n');
    await planFeature(repo.repo, 'prep', ['work']);
    h = await runHarness([write('sum.mjs', SUM_JS), text('Done.'), PASS, write('sum.mjs', SUM_JS), text('Done.'), PASS]);
    h.app.featureRuns.setMaxParallel(1);
    await h.app.featureCandidates.start({ projectPath: repo.repo, slug: 'prep', candidates: [{}, {}], budget: { mode: 'split' }, confirm: true });
    for (const n of [1, 2]) {
      expect(readFileSync(join(repo.repo, `.trees/prep--c${n}/.envrc`), 'utf8')).toContain('SECRET_OF_THE_USER');
      expect(readFileSync(join(repo.repo, `.trees/prep--c${n}/setup-ran.txt`), 'utf8').trim()).toBe('ran');
    }
    await waitFor(() => h!.app.featureRuns.history(repo!.repo, 'prep').filter((r) => r.status === 'completed').length === 2, 'both candidates', 120_000, 100);
    const group = (await h.app.featureCandidates.compare(repo.repo, 'prep'))!;
    expect(group.candidates.map((c) => c.checks)).toEqual([[{ command: 'test -f setup-ran.txt', verdict: 'passed' }], [{ command: 'test -f setup-ran.txt', verdict: 'passed' }]]);
  }, 180_000);

  it('a failing setup starts nothing: no group, no run, no candidate worktree or branch left', async () => {
    repo = makeRunRepo({ remote: 'none', config: `${base()}\nworktree:\n  setup:\n    - exit 7\n` });
    await planFeature(repo.repo, 'nope', ['work']);
    h = await runHarness([]);
    await expect(h.app.featureCandidates.start({ projectPath: repo.repo, slug: 'nope', candidates: [{}, {}], budget: { mode: 'split' }, confirm: true })).rejects.toThrow(/Candidate c1's worktree could not be prepared \(the worktree's setup failed at `exit 7`: exited with code 7\)/);
    expect(await h.app.featureCandidates.compare(repo.repo, 'nope')).toBeNull();
    expect(h.app.featureRuns.history(repo.repo, 'nope')).toEqual([]);
    expect(existsSync(join(repo.repo, '.trees/nope--c1'))).toBe(false);
    expect(gitIn(repo.repo, 'branch', '--list', 'feature/nope--*').trim()).toBe('');
    // Nothing stands in the way of starting again (or of a plain run).
    const run = await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'nope' });
    h.app.featureRuns.cancel(repo.repo, 'nope');
    await run.done;
  }, 120_000);
});
