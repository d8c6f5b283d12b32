/**
 * Shared by the pull request loop's bridge and CLI tests: what a test starts (repository, scripted
 * gh, harness), removed after each test with PATH and GH_CONFIG_DIR put back; and a feature
 * `widget` delivered with the stand-in model whose pull request the app then follows.
 */
import { afterEach } from 'vitest';
import { waitFor } from '../../../support/processes';
import { makeRunRepo, NO_PIPELINE_CONFIG, planFeature, runHarness, SUM_JS, text, VERIFY_PASS, withFakeGh, write, type RunHarness, type RunRepo } from '../run/support';

export const PR_URL = 'https://github.com/acme/widgets/pull/7';

export interface PrTest {
  repo: RunRepo | null;
  h: RunHarness | null;
  gh: ReturnType<typeof withFakeGh> | null;
}

/** What one test holds; call at the top of a test file (it registers the afterEach that cleans up). */
export function prTestState(): PrTest {
  const t: PrTest = { repo: null, h: null, gh: null };
  const savedEnv = { PATH: process.env.PATH, GH_CONFIG_DIR: process.env.GH_CONFIG_DIR };
  afterEach(async () => {
    process.env.PATH = savedEnv.PATH;
    if (savedEnv.GH_CONFIG_DIR === undefined) delete process.env.GH_CONFIG_DIR;
    else process.env.GH_CONFIG_DIR = savedEnv.GH_CONFIG_DIR;
    await t.h?.cleanup();
    t.repo?.cleanup();
    t.gh?.cleanup();
    t.h = t.repo = t.gh = null;
  });
  return t;
}

/**
 * A GitHub-remote repository with SLUGS planned (the first is `widget`, the one that gets a PR),
 * gh on PATH answering PR #7 for feature/widget with passing checks and REVIEW_DECISION, and a
 * harness scripted to deliver widget and open that PR. Each piece is kept in T as it is made.
 */
export async function prSetup(t: PrTest, reviewDecision: string, slugs: string[] = ['widget']): Promise<{ repo: RunRepo; h: RunHarness; gh: ReturnType<typeof withFakeGh> }> {
  const repo = (t.repo = makeRunRepo({ remote: 'github', config: NO_PIPELINE_CONFIG() }));
  const gh = (t.gh = withFakeGh({ prs: [], pull: { number: 7, url: PR_URL, origin: repo.origin, branch: 'feature/widget', stages: [{ checks: [{ name: 'test', bucket: 'pass', workflow: 'CI', link: '' }], reviewDecision }] } }));
  process.env.PATH = gh.env.PATH;
  process.env.GH_CONFIG_DIR = gh.env.GH_CONFIG_DIR;
  for (const slug of slugs) await planFeature(repo.repo, slug, ['library']);
  const h = (t.h = await runHarness([write('sum.mjs', SUM_JS), text('Done.'), VERIFY_PASS, text(`Opened the pull request: ${PR_URL}`)]));
  return { repo, h, gh };
}

/** Runs widget to delivery, waits until its PR is followed, and has the app look at it once. */
export async function deliverAndFollow(h: RunHarness, repo: RunRepo): Promise<void> {
  await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'widget' })).done;
  await waitFor(() => h.app.prFollow.repo.get(repo.repo, 'widget'), 'the PR followed');
  await h.app.prFollow.look(repo.repo, 'widget');
}
