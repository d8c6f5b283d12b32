import { test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startModelServer, type ModelServer, type Script } from '../fixtures/model-server/index';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { TrustPage } from './poms/trust';
import { FeaturesPage } from './poms/features';
import { CandidatesPage } from './poms/candidates';
import { makeRepo } from '../support/temp';
import { commitProjectConfig, git, planFeature } from './support/planned-feature';

/**
 * Best-of-N from a person's side: a planned feature started as three candidates from its Start
 * dialog (the budget split shown before starting, one candidate on another model), one card on
 * the board following them, the comparison on the feature page (one failed its check), two
 * diffs side by side, a judge's ranking, and the pick: the winner is delivered, the others
 * archived with their worktrees gone, and the pull request opened (a scripted gh).
 */

const SLUG = 'sum-lib';
const SUM_JS = 'export function sum(a, b) {\n  return a + b;\n}\n';
const SUM_TEST = "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { sum } from './sum.mjs';\ntest('sum', () => assert.strictEqual(sum(2, 3), 5));\n";
const text = (t: string): Script[number] => ({ blocks: [{ type: 'text', text: t }] });
const write = (path: string, content: string): Script[number] => ({ blocks: [{ type: 'tool_use', name: 'write', input: { path, content } }] });
const CLEAN = text('Reviewed.\n\n```yaml\nissues: []\n```');
const PASS = text('Walked the plan.\n\n```yaml\nresult: pass\nitems:\n  - item: sum(2, 3) is 5\n    result: pass\n```');
// The limit is one run at a time (set in Settings below), so the candidates take these in order.
const SCRIPT: Script = [
  write('sum.mjs', SUM_JS),
  write('sum.test.mjs', SUM_TEST),
  text('c1 done.'),
  CLEAN,
  PASS,
  write('sum.mjs', SUM_JS.replace('a + b', 'a - b')),
  write('sum.test.mjs', SUM_TEST),
  text('c2 done.'),
  CLEAN,
  PASS,
  text('I could not find the problem.'),
  PASS,
  write('sum.mjs', `/** Adds two numbers. */\n${SUM_JS}`),
  write('sum.test.mjs', SUM_TEST),
  text('c3 done.'),
  text('One nit.\n\n```yaml\nissues:\n  - severity: minor\n    file: sum.mjs\n    description: the test could cover negatives\n```'),
  PASS,
  text('```yaml\nranking:\n  - candidate: c3\n    reason: passes node --test and documents sum\n  - candidate: c1\n    reason: passes node --test\n  - candidate: c2\n    reason: sum subtracts, node --test fails\nsummary: c3 is the most complete.\n```'),
  // The picked candidate delivered by a run of the feature: the pull request.
  text('Opened the pull request: https://github.com/acme/widgets/pull/7'),
];

let host: RunningHost;
let model: ModelServer;
let repo: { path: string; cleanup(): void };
let ghDir: string;
let origin: string;


function plannedFeature(root: string): void {
  commitProjectConfig(root);
  // A GitHub-looking remote whose pushes land in a local bare repository.
  origin = join(ghDir, 'origin.git');
  git(ghDir, 'init', '-q', '--bare', origin);
  git(root, 'remote', 'add', 'origin', 'https://github.com/acme/widgets.git');
  git(root, 'remote', 'set-url', '--push', 'origin', origin);
  git(root, 'push', '-q', origin, 'main:main');
  planFeature(root, SLUG);
}

test.beforeAll(async () => {
  model = await startModelServer({ script: SCRIPT });
  // The scripted gh first on the host's PATH: logged in, and opening the PR when asked.
  ghDir = mkdtempSync(join(tmpdir(), 'fd-e2e-cand-gh-'));
  writeFileSync(join(ghDir, 'scenario.json'), JSON.stringify({ prs: [], createUrl: 'https://github.com/acme/widgets/pull/7' }));
  const fakeGh = fileURLToPath(new URL('../fixtures/gh', import.meta.url));
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5', PATH: `${fakeGh}${delimiter}${process.env.PATH ?? ''}`, GH_CONFIG_DIR: ghDir } });
  repo = makeRepo('fd-e2e-cand-');
  plannedFeature(repo.path);
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
  if (ghDir) rmSync(ghDir, { recursive: true, force: true });
});

test('three candidates of one plan: started from the dialog, followed on one card, compared, judged, one picked and its pull request opened', async ({ page }) => {
  test.setTimeout(300_000);
  const board = new BoardPage(page);
  const features = new FeaturesPage(page);
  const cands = new CandidatesPage(page);
  await board.open(host.url);
  const name = await board.addProject(repo.path);
  const trust = new TrustPage(page);
  await trust.review(board.card(name));
  await trust.trust();

  // One feature run at a time: the candidates queue behind each other under the limit.
  await page.getByTestId('nav-settings').click();
  await page.getByTestId('max-parallel').fill('1');
  await page.getByTestId('budgets-save').click();
  await expect(page.getByText('Budgets saved')).toBeVisible();
  await page.goBack();

  await features.card(SLUG).click();
  await expect(page.getByTestId('feature-status')).toHaveText('planned');
  await page.getByTestId('feature-run').click();
  const preview = await cands.choose(3, [null, 'claude-haiku-4-5']);
  // The budget per candidate is shown before anything starts.
  await expect(preview).toContainText('Each candidate may spend $6.66, $20.00 in all');
  await expect(preview).toContainText('feature/sum-lib--c3');
  await page.screenshot({ path: 'test-results/candidates-dialog.png' });
  await cands.start(3);

  // One card on the board, with a chip per candidate, until all three ended: then it asks for a pick.
  await page.goBack();
  const card = features.card(SLUG);
  await expect(card.getByTestId('feature-candidates').locator('li')).toHaveCount(3);
  await expect(features.cards.filter({ hasText: SLUG })).toHaveCount(1);
  await expect(features.column('needs_input').locator(`[data-slug="${SLUG}"]`)).toBeVisible({ timeout: 180_000 });
  await expect(card.getByTestId('feature-reason')).toHaveText('Candidates finished: compare them and pick one.');
  await page.screenshot({ path: 'test-results/candidates-board.png' });

  // The comparison on the feature page.
  await card.click();
  await expect(cands.panel).toBeVisible();
  await expect(cands.row(1)).toHaveAttribute('data-status', 'finished');
  await expect(cands.row(2)).toHaveAttribute('data-status', 'failed');
  await expect(cands.row(3)).toHaveAttribute('data-status', 'finished');
  await expect(cands.row(1).locator('[data-verdict]')).toHaveAttribute('data-verdict', 'passed');
  await expect(cands.row(2).locator('[data-verdict]')).toHaveAttribute('data-verdict', 'failed');
  await expect(cands.row(2)).toContainText('claude-haiku-4-5');
  await expect(cands.row(3)).toContainText('1 minor');
  await expect(cands.row(2).getByTestId('candidate-pick-c2')).toBeDisabled();
  // The feature goes on by a pick: no plain run (nor Discard) is offered while its candidates are open.
  await expect(page.getByTestId('feature-run')).toHaveCount(0);
  await expect(page.getByTestId('feature-discard')).toHaveCount(0);
  await page.screenshot({ path: 'test-results/candidates-compare.png', fullPage: true });

  // Two candidates' changes side by side.
  const pair = await cands.sideBySide(1, 2);
  await expect(pair.getByTestId('candidate-diff-c1')).toContainText('+  return a + b;');
  await expect(pair.getByTestId('candidate-diff-c2')).toContainText('+  return a - b;');
  await page.screenshot({ path: 'test-results/candidates-side-by-side.png' });
  await page.keyboard.press('Escape');
  await expect(pair).toBeHidden();

  // The judge ranks them with reasons, its cost shown.
  await cands.panel.getByTestId('candidates-judge').click();
  const ranking = cands.panel.getByTestId('candidates-judge-ranking');
  await expect(ranking).toContainText('c3 is the most complete.');
  await expect(ranking.locator('li')).toHaveText([/^c3: passes node --test and documents sum/, /^c1/, /^c2: sum subtracts/]);
  await expect(ranking).toContainText('$');

  // Pick the judge's first: it becomes the feature's branch and is delivered as a pull request.
  await cands.pick(3);
  await expect(page.getByTestId('feature-delivery')).toContainText('Pull request', { timeout: 120_000 });
  await expect(page.getByTestId('feature-delivery').getByRole('link')).toHaveAttribute('href', 'https://github.com/acme/widgets/pull/7');
  await expect(page.getByTestId('feature-status')).toHaveText('completed');
  await expect(cands.panel).toContainText('c3 picked');
  await expect(cands.row(3)).toHaveClass(/candidate-winner/);
  await page.screenshot({ path: 'test-results/candidates-picked.png', fullPage: true });

  // On disk: the winner is the feature's branch; every candidate kept under its archive ref, its worktree gone.
  const wt = join(repo.path, '.trees', SLUG);
  expect(execFileSync('cat', [join(wt, 'sum.mjs')], { encoding: 'utf8' })).toContain('Adds two numbers');
  const archived = git(repo.path, 'for-each-ref', '--format=%(refname)', `refs/flightdeck/archive/${SLUG}/`).split('\n');
  expect(archived.map((r) => r.split('/').pop())).toEqual(['c1', 'c2', 'c3']);
  for (const n of [1, 2, 3]) expect(existsSync(join(repo.path, '.trees', `${SLUG}--c${n}`))).toBe(false);
  // Only the feature's branch was pushed, at the winner's work; no candidate branch left the machine.
  expect(git(origin, 'show', `feature/${SLUG}:sum.mjs`)).toContain('Adds two numbers');
  expect(git(origin, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/')).toBe(['feature/sum-lib', 'main'].join('\n'));
});
