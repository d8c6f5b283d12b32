import { test, expect, type Page } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startModelServer, type ModelServer, type Script } from '../fixtures/model-server/index';
import { startHost, type RunningHost } from './support/host';
import { ensureTestImage } from '../support/container-image';
import { hostname } from 'node:os';
import { readFileSync } from 'node:fs';
import { BoardPage } from './poms/board';
import { TrustPage } from './poms/trust';
import { FeaturesPage } from './poms/features';
import { makeRepo } from '../support/temp';
import { commitProjectConfig, git, planFeature } from './support/planned-feature';

/**
 * A feature run from a person's side: a planned feature on the board, started from its view,
 * watched until it completes (no remote: completed locally), then its branch diff, its phase
 * and cost timeline, and the notification and inbox entry that say it finished.
 */

const SLUG = 'sum-lib';
const OTHER = 'docs-pass';
const SUM_JS = 'export function sum(a, b) {\n  return a + b;\n}\n';
const SUM_TEST = "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { sum } from './sum.mjs';\ntest('sum', () => assert.strictEqual(sum(2, 3), 5));\n";
const text = (t: string): Script[number] => ({ blocks: [{ type: 'text', text: t }] });
const SCRIPT: Script = [
  // The dev phase: two files in one step, then the summary.
  {
    blocks: [
      { type: 'tool_use', name: 'write', input: { path: 'sum.mjs', content: SUM_JS } },
      { type: 'tool_use', name: 'write', input: { path: 'sum.test.mjs', content: SUM_TEST } },
    ],
  },
  text('Phase done: sum.mjs and its test.'),
  text('Reviewed the diff.\n\n```yaml\nissues: []\n```'),
  text('Walked the plan.\n\n```yaml\nresult: pass\nitems:\n  - item: sum(2, 3) is 5\n    result: pass\n```'),
  // The second feature, run in a container: the command records where it ran.
  { blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'hostname > where.txt' } }] },
  text('Recorded the host name.'),
  text('Nothing to fix.\n\n```yaml\nissues: []\n```'),
  text('Checked.\n\n```yaml\nresult: pass\nitems: []\n```'),
];

// The second test goes on in the project the first one added, with the model's next replies:
// one story in two steps, run in order in one worker (a failure of the first skips the second).
test.describe.configure({ mode: 'serial' });

let host: RunningHost;
let model: ModelServer;
let repo: { path: string; cleanup(): void };


/** A project with config.yml on main and one planned feature, as finalize leaves it. */
function plannedFeature(root: string): void {
  commitProjectConfig(root);
  planFeature(root, SLUG);
  // A second feature, planned and never started: the board shows two columns in use.
  planFeature(root, OTHER, {
    design: '# Design\n\nRecord where the agent runs.\n\n## Development Phases\n\n### Phase 1: docs\n\nwhere.txt.\n',
    verification: '# Verification\n\n- where.txt exists\n',
    phases: ['docs'],
  });
}

test.beforeAll(async () => {
  model = await startModelServer({ script: SCRIPT });
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' } });
  repo = makeRepo('fd-e2e-run-');
  plannedFeature(repo.path);
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
});

async function shot(page: Page, path: string): Promise<void> {
  // Toasts close on their own too: click whichever is first until none is left (bounded), never a stale one.
  const dismiss = page.locator('.toasts').getByRole('button', { name: 'Dismiss' });
  for (let i = 0; i < 10 && (await dismiss.count()) > 0; i++) await dismiss.first().click({ timeout: 2_000 }).catch(() => undefined);
  const size = page.viewportSize()!;
  const height = await page.locator('.main').evaluate((el) => el.scrollHeight);
  await page.setViewportSize({ width: size.width, height: Math.min(3000, height + 80) });
  await page.locator('.main').evaluate((el) => el.scrollTo(0, 0));
  await page.screenshot({ path });
  await page.setViewportSize(size);
}

test('start a planned feature, watch it complete, read its diff and timeline, and get told it finished', async ({ page, context }) => {
  test.setTimeout(240_000);
  // The browser's notifications, recorded (the page cannot show real ones headless).
  await context.grantPermissions(['notifications']);
  await page.addInitScript(() => {
    const shown: string[] = [];
    (globalThis as unknown as { __shown: string[] }).__shown = shown;
    class Recorded {
      static permission = 'granted';
      static requestPermission = async () => 'granted';
      onclick: (() => void) | null = null;
      constructor(title: string) {
        shown.push(title);
      }
      close() {}
    }
    (globalThis as unknown as { Notification: unknown }).Notification = Recorded;
  });
  const board = new BoardPage(page);
  const features = new FeaturesPage(page);
  await board.open(host.url);
  const name = await board.addProject(repo.path);
  // The user reviews and trusts their repository: its configured checks are used.
  const trust = new TrustPage(page);
  await trust.review(board.card(name));
  await trust.trust();
  await page.getByTestId('notify-toggle').click();
  await expect(page.getByTestId('notify-toggle')).toHaveText('Notifications on');

  // The planned feature is on the board; it opens its view.
  await expect(features.column('planned').locator(`[data-slug="${SLUG}"]`)).toBeVisible();
  await features.card(SLUG).click();
  const view = page.getByTestId('feature-view');
  await expect(view).toBeVisible();
  await expect(page.getByTestId('feature-status')).toHaveText('planned');
  await expect(page.getByTestId('pipeline').locator('li')).toHaveText([/library/, /review/, /verify/, /PR/]);

  // Start it, then go back to the board: the finish arrives while something else is in front.
  await page.getByTestId('feature-run').click();
  // Where the agent works: this machine is the default when neither the feature nor the project says otherwise.
  await expect(page.getByTestId('run-dialog')).toBeVisible();
  await expect(page.getByTestId('run-dialog-default')).toContainText("Neither the feature nor this project's config sets a placement");
  await expect(page.getByTestId('run-on-host').locator('input')).toBeChecked();
  await page.getByTestId('run-dialog-start').click();
  await page.goBack();
  await expect(features.board).toBeVisible();
  await expect(features.column('completed').locator(`[data-slug="${SLUG}"]`)).toBeVisible({ timeout: 120_000 });
  await expect(features.column('planned').locator(`[data-slug="${OTHER}"]`)).toBeVisible();
  await expect(page.getByTestId('inbox-count')).toHaveText('1');
  await expect.poll(() => page.evaluate(() => (globalThis as unknown as { __shown: string[] }).__shown)).toContain(`Feature finished: ${SLUG}`);
  await shot(page, 'test-results/feature-run-board.png');

  // The inbox entry opens the feature.
  await page.getByTestId('inbox-button').click();
  await expect(page.getByTestId('inbox-entry').first()).toContainText(`Feature finished: ${SLUG}`);
  await page.getByTestId('inbox-entry').first().click();
  await expect(view).toBeVisible();
  await expect(page.getByTestId('feature-status')).toHaveText('completed');
  await expect(page.getByTestId('pipeline').locator('li[data-state="done"]')).toHaveCount(4);
  await expect(page.getByTestId('phases-table').locator('tbody tr')).toHaveCount(3);
  await expect(page.getByTestId('review-rounds')).toContainText('clean');
  await expect(page.getByTestId('verify-attempts')).toContainText('node --test');
  await expect(page.getByTestId('feature-delivery')).toContainText('Completed locally');
  await shot(page, 'test-results/feature-view.png');

  // The branch's diff against main: the files the agent wrote, highlighted, side by side too.
  await page.getByTestId('feature-tab-changes').click();
  const changes = page.getByTestId('feature-changes');
  await expect(changes.locator('[data-testid="changes-file"][data-path="sum.mjs"]')).toBeVisible();
  await expect(changes.locator('[data-testid="changes-file"][data-path="sum.test.mjs"]')).toBeVisible();
  await expect(changes).toContainText('return a + b;');
  await shot(page, 'test-results/feature-diff.png');

  // Keyboard: arrows move between the tabs.
  await page.getByTestId('feature-tab-changes').focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('feature-tab-timeline')).toHaveAttribute('aria-selected', 'true');
  const timeline = page.getByTestId('feature-timeline');
  await expect(timeline.getByTestId('phase-chart').locator('.recharts-bar-rectangle').first()).toBeVisible();
  await expect(timeline.getByTestId('timeline-marks')).toContainText('Review round 1');
  await expect(timeline.getByTestId('timeline-marks')).toContainText('Verify attempt 1: pass');
  await expect(timeline.getByTestId('cost-chart')).toBeVisible();
  await expect(timeline.getByTestId('spend-chart')).toContainText('Spend per day');
  await shot(page, 'test-results/feature-timeline.png');

  // The project's timeline across features: the run feature has a bar, the unstarted one none.
  await page.getByRole('button', { name: repo.path.split('/').pop()!, exact: true }).first().click();
  const projectTimeline = page.getByTestId('project-timeline-chart');
  await expect(projectTimeline.locator('.recharts-bar-rectangle').first()).toBeVisible();
  await expect(projectTimeline).toContainText(SLUG);
  await expect(projectTimeline).not.toContainText(OTHER);
  await shot(page, 'test-results/project-timeline.png');

  // A narrow window: the feature view and its tabs fit, nothing wider than the pane.
  await page.getByTestId('inbox-button').click();
  await page.getByTestId('inbox-entry').first().click();
  await page.setViewportSize({ width: 700, height: 800 });
  for (const tab of ['overview', 'changes', 'timeline'] as const) {
    await page.getByTestId(`feature-tab-${tab}`).click();
    await expect(page.getByTestId(`feature-tab-${tab}`)).toHaveAttribute('aria-selected', 'true');
    const [scroll, client] = await page.locator('.main').evaluate((el) => [el.scrollWidth, el.clientWidth]);
    expect(scroll, `feature view (${tab}) wider than its pane at 700 px`).toBeLessThanOrEqual(client!);
  }
  await page.screenshot({ path: 'test-results/feature-view-narrow.png' });

  // "open terminal" beside a verify check opens the terminal the check ran in, with its output.
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.getByTestId('feature-tab-overview').click();
  const attempts = page.getByTestId('verify-attempts');
  await attempts.locator('summary').first().click();
  await attempts.getByTestId('check-terminal').first().click();
  const checkPane = page.getByTestId('terminal-pane').filter({ hasText: 'check: node --test' }).first();
  await expect(checkPane).toBeVisible();
  // Its header names the check and how it ended (the screen itself is drawn by xterm; the screenshot shows the test output).
  await expect(checkPane).toContainText('Exited with code 0');
  await expect(checkPane).toHaveAttribute('data-status', 'exited');
  await page.screenshot({ path: 'test-results/feature-check-terminal.png' });

  // On disk: the phase's commit is on the branch, the main checkout untouched.
  const wt = join(repo.path, '.trees', SLUG);
  expect(git(wt, 'log', '--format=%s', 'main..HEAD')).toContain(`feat(${SLUG}): library`);
  expect(git(repo.path, 'status', '--porcelain')).toBe('');
});

test("the project's config places runs in a container: the dialog starts from it, the command runs there, its file lands in the worktree", async ({ page }) => {
  test.setTimeout(240_000);
  const image = ensureTestImage();
  // The project's default placement for its feature runs, committed on main like any config change.
  const config = join(repo.path, '.flightdeck', 'config.yml');
  writeFileSync(config, `${readFileSync(config, 'utf8').replace('  max_turns: 50\n', `  max_turns: 50\n  placement: { kind: container, image: "${image}", limits: { memoryBytes: 268435456 } }\n`)}`);
  git(repo.path, 'commit', '-qam', 'run features in a container');
  const features = new FeaturesPage(page);
  const board = new BoardPage(page);
  await board.open(host.url);
  // The placement is new in the config: asked again, then trusted.
  const trust = new TrustPage(page);
  const card = board.card(repo.path.split('/').pop()!);
  await expect(trust.line(card)).toHaveAttribute('data-state', 'changed');
  await expect(await trust.review(card)).toContainText(image);
  await trust.trust();
  await features.card(OTHER).click();
  await page.getByTestId('feature-run').click();
  const dialog = page.getByTestId('run-dialog');
  // Prefilled from the project's config, and saying so; nothing to choose.
  await expect(dialog.getByTestId('run-dialog-default')).toHaveText("Prefilled from this project's config (agent.placement in .flightdeck/config.yml).");
  await expect(dialog.getByTestId('run-on-container').locator('input')).toBeChecked();
  await expect(dialog.getByTestId('ctr-engine')).not.toHaveValue('');
  await expect(dialog.getByTestId('ctr-image')).toHaveValue(image);
  await expect(dialog.getByTestId('ctr-memory')).toHaveValue('256m');
  await dialog.screenshot({ path: 'test-results/feature-run-dialog-container.png' });
  await dialog.getByTestId('run-dialog-start').click();
  await expect(page.getByTestId('feature-status')).toHaveText('completed', { timeout: 180_000 });
  const where = readFileSync(join(repo.path, '.trees', OTHER, 'where.txt'), 'utf8').trim();
  // The container's host name (its short id), not this machine's.
  expect(where).toMatch(/^[0-9a-f]{12}$/);
  expect(where).not.toBe(hostname());
});
