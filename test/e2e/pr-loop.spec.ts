import { test, expect } from '@playwright/test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { configYaml, makeRunRepo, planFeature, runHarness, SUM_JS, text, VERIFY_PASS, withFakeGh, write, type RunRepo } from '../integration/features/run/support';
import { tempDir } from '../support/temp';

/**
 * The pull request loop on the feature page: a feature delivered as PR #7 whose failing check
 * became one fix round (run with the stand-in model and a scripted gh before the app starts),
 * then green and approved. The page shows the PR's checks, the round with what it cost, Ready to
 * merge, the PR's events on the timeline; Merge (squash) merges it with gh and the feature moves
 * to Merged.
 */

const PR_URL = 'https://github.com/acme/widgets/pull/7';
const FIXED = '/** Adds two numbers. */\nexport function sum(a, b) {\n  return a + b;\n}\n';
const check = (name: string, bucket: string, run: number) => ({ name, bucket, workflow: 'CI', link: `https://github.com/acme/widgets/actions/runs/${run}/job/${run + 1}` });

let host: RunningHost;
let repo: RunRepo;
let gh: ReturnType<typeof withFakeGh>;
let data: { path: string; cleanup(): void };
const saved = { PATH: process.env.PATH, GH_CONFIG_DIR: process.env.GH_CONFIG_DIR };

test.beforeAll(async () => {
  test.setTimeout(240_000);
  repo = makeRunRepo({ remote: 'github', config: configYaml({ checks: [] }).replace('enabled: true', 'enabled: false') });
  gh = withFakeGh({
    prs: [],
    pull: {
      number: 7,
      url: PR_URL,
      origin: repo.origin,
      branch: 'feature/widget',
      stages: [
        { checks: [check('build', 'pass', 100), check('test', 'fail', 200)], logs: { '200': 'AssertionError: sum is undocumented\n' } },
        { checks: [check('build', 'pass', 300), check('test', 'pass', 400)], reviewDecision: 'APPROVED', reviews: [{ id: 'PRR_1', author: { login: 'alice' }, state: 'APPROVED', body: 'Ship it.' }] },
      ],
    },
  });
  process.env.PATH = gh.env.PATH;
  process.env.GH_CONFIG_DIR = gh.env.GH_CONFIG_DIR;
  await planFeature(repo.repo, 'widget', ['library']);
  data = tempDir('fd-e2e-pr-data-');
  const h = await runHarness([write('sum.mjs', SUM_JS), text('Done.'), VERIFY_PASS, text(`Opened the pull request: ${PR_URL}`), write('sum.mjs', FIXED), text('Documented sum.'), VERIFY_PASS], { dataDir: data.path });
  try {
    await h.app.projects.add(repo.repo);
    await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'widget' })).done;
    h.app.prFollow.timing = { pollMinMs: 30, pollMaxMs: 200, tickMs: 20 };
    h.app.prFollow.start();
    const deadline = Date.now() + 180_000;
    while (h.app.prFollow.repo.get(repo.repo, 'widget')?.status !== 'ready') {
      if (Date.now() > deadline) throw new Error(`the PR loop did not reach ready: ${JSON.stringify(h.app.prFollow.repo.get(repo.repo, 'widget'))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    h.app.dispose();
    await h.server.close();
  }
  host = await startHost({ dataDir: data.path, env: { PATH: gh.env.PATH, GH_CONFIG_DIR: gh.env.GH_CONFIG_DIR } });
});

test.afterAll(async () => {
  process.env.PATH = saved.PATH;
  if (saved.GH_CONFIG_DIR === undefined) delete process.env.GH_CONFIG_DIR;
  else process.env.GH_CONFIG_DIR = saved.GH_CONFIG_DIR;
  await host?.stop();
  repo?.cleanup();
  gh?.cleanup();
  data?.cleanup();
});

test('the PR panel shows the fix round and Ready to merge; Merge merges it with gh and the feature moves to Merged', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  const board = new BoardPage(page);
  await board.open(host.url);
  const card = page.locator('[data-testid="feature-card"][data-slug="widget"]');
  await expect(card).toContainText('Ready to merge (PR #7)');
  await card.click();
  await expect(page.getByTestId('feature-view')).toHaveAttribute('data-slug', 'widget');

  const panel = page.getByTestId('pr-panel');
  await expect(panel).toHaveAttribute('data-status', 'ready');
  await expect(panel.getByTestId('pr-status')).toHaveText('Ready to merge');
  await expect(panel.getByTestId('pr-link')).toHaveAttribute('href', PR_URL);
  await expect(panel.locator('[data-bucket="pass"]')).toHaveCount(2);
  await expect(panel.getByTestId('pr-rounds-count')).toContainText('Fix rounds: 1 of at most 3');
  const round = panel.getByTestId('pr-round');
  await expect(round).toHaveCount(1);
  await expect(round).toHaveAttribute('data-status', 'fixed');
  await expect(round).toContainText('1 failed check (test)');
  await expect(round.locator('td.num')).toHaveText(/^\$\d/);
  await page.screenshot({ path: testInfo.outputPath('pr-panel.png') });

  // The timeline lists the PR's events, the fix round with its cost.
  await page.getByTestId('feature-tab-timeline').click();
  const events = page.getByTestId('pr-events');
  await expect(events.locator('li[data-kind="fix_round"]')).toContainText('Fix round 1: 1 failed check (test)');
  await expect(events.locator('li[data-kind="round_done"]')).toContainText('$');
  await expect(events.locator('li[data-kind="review"]')).toContainText('alice approved: Ship it.');
  await expect(events.locator('li[data-kind="ready"]')).toHaveCount(1);

  // Merge, squashed, from the panel (the local merge is not offered beside a followed PR).
  await expect(page.getByTestId('feature-merge')).toHaveCount(0);
  await panel.getByTestId('pr-merge-method').selectOption('squash');
  await panel.getByTestId('pr-merge').click();
  await expect(panel).toHaveAttribute('data-status', 'merged');
  await expect(page.getByTestId('feature-status')).toHaveText('merged', { timeout: 20_000 });
  const calls = readFileSync(join(gh.dir, 'calls.jsonl'), 'utf8');
  expect(calls).toContain('"argv":["pr","merge","7","--squash"]');
  expect(existsSync(join(gh.dir, 'merged.json'))).toBe(true);
});
