import { test, expect, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startModelServer, type ModelServer } from '../fixtures/model-server/index';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage } from './poms/session';
import { FeaturesPage } from './poms/features';
import { makeRepo } from '../support/temp';

/**
 * Features from a person's side: set a project up, plan a feature in a chat with the Planner,
 * have the plan written, comment on a passage and on the whole plan, get a revision that shows
 * what changed and must be approved again, reorder the phases, approve, and find the feature on
 * the board — with the files, branch and commit checked on disk.
 */

const SLUG = 'health-endpoint';

const DESIGN_1 = `# ${SLUG}: a health endpoint

## Overview
Expose GET /health so the load balancer can tell a live instance.

## Design
Add a handler in server.js that answers 200 with {"status":"ok"} and uses the sqlite ping.

## Development Phases

### Phase 1: route
Add the GET /health route that answers 200.

### Phase 2: checks
Report the database ping in the body.

## Risks and Open Questions
None known.
`;

const DESIGN_2 = DESIGN_1.replace('uses the sqlite ping', 'uses a timed database ping (500 ms)').replace(
  '## Risks and Open Questions',
  '### Phase 3: docs\nDocument the endpoint in the README.\n\n## Risks and Open Questions',
);

const VERIFICATION_1 = `# Verification plan for ${SLUG}

- \`node --test\` passes.
- GET /health answers 200 with {"status":"ok"}.
`;
const VERIFICATION_2 = `${VERIFICATION_1}- The README documents /health.\n`;

/** Passage the user comments on, as the preview shows it (the source has the same words). */
const QUOTE = 'uses the sqlite ping';

let host: RunningHost;
let model: ModelServer;
let repo: { path: string; cleanup(): void };

test.beforeAll(async () => {
  model = await startModelServer({
    script: [
      // init: the Planner's analysis, then the Coder's proposed setup (config and overview blocks).
      { match: { userPattern: 'Step 1 of 2' }, blocks: [{ type: 'text', text: '**Purpose**: a tiny Node server.\n\n**Build, lint and test**: `node --test`.' }] },
      {
        match: { userPattern: 'Step 2 of 2' },
        blocks: [{ type: 'text', text: '<config_yml>\nchecks:\n  - node --test\n</config_yml>\n\n<overview_md>\n# sample\n\nA tiny Node server; tests run with node --test.\n</overview_md>' }],
      },
      // The planning chat.
      // Slow enough to type while it answers.
      { match: { userPattern: 'I want a /health endpoint' }, delayMs: 1_500, blocks: [{ type: 'text', text: 'Should it check the database too, or only that the process is up?' }] },
      { match: { userPattern: 'Check the database as well' }, blocks: [{ type: 'text', text: 'Agreed: a route first, then the database check. Type /approve when ready.' }] },
      // /approve: the design spec, then the verification plan.
      { match: { userPattern: 'Write the design spec' }, blocks: [{ type: 'text', text: DESIGN_1 }] },
      { match: { userPattern: 'Now write the verification plan' }, blocks: [{ type: 'text', text: VERIFICATION_1 }] },
      // Request changes: the revised spec, then its verification plan.
      { match: { userPattern: 'Address every comment below' }, blocks: [{ type: 'text', text: DESIGN_2 }] },
      { match: { userPattern: 'Now write the verification plan' }, blocks: [{ type: 'text', text: VERIFICATION_2 }] },
    ],
  });
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' } });
  repo = makeRepo('fd-e2e-features-');
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
});

const git = (...args: string[]) => execFileSync('git', args, { cwd: repo.path, encoding: 'utf8' }).trim();

/**
 * The whole of the main pane in one picture: the view scrolls inside `.main`, so the window is
 * made as tall as the content for the shot (toasts dismissed first so they hide nothing).
 */
async function screenshotView(page: Page, path: string): Promise<void> {
  // Toasts close on their own too: click whichever is first until none is left (bounded), never a stale one.
  const dismiss = page.locator('.toasts').getByRole('button', { name: 'Dismiss' });
  for (let i = 0; i < 10 && (await dismiss.count()) > 0; i++) await dismiss.first().click({ timeout: 2_000 }).catch(() => undefined);
  const size = page.viewportSize()!;
  const height = await page.locator('.main').evaluate((el) => el.scrollHeight);
  await page.setViewportSize({ width: size.width, height: Math.min(4000, height + 80) });
  await page.locator('.main').evaluate((el) => el.scrollTo(0, 0));
  await page.screenshot({ path });
  await page.setViewportSize(size);
}

/** What in the main pane is wider than its box ("label: scrollWidth > clientWidth"). */
async function overflowing(page: Page, boxes: Array<[string, string]>): Promise<string[]> {
  const out: string[] = [];
  for (const [label, selector] of boxes) {
    const [scroll, client] = await page.locator(selector).first().evaluate((el) => [el.scrollWidth, el.clientWidth]);
    if (scroll! > client!) out.push(`${label}: ${scroll} > ${client}`);
  }
  return out;
}

test('init, plan in the chat, request changes once, approve the revision, and find the feature on the board', async ({ page }) => {
  test.setTimeout(180_000);
  const board = new BoardPage(page);
  const features = new FeaturesPage(page);
  const session = new SessionPage(page);
  await board.open(host.url);
  const name = await board.addProject(repo.path);
  // The board is home: its kanban is there, empty, before any feature exists.
  await expect(features.board).toBeVisible();
  await expect(page.getByTestId('board-features-empty')).toBeVisible();

  // Set up features: config and overview are written and valid.
  await features.openProject(name);
  await features.init();
  expect(readFileSync(join(repo.path, '.flightdeck', 'config.yml'), 'utf8')).toContain('node --test');
  // The checks it found, one per line.
  await expect(page.getByTestId('feature-init-checks').locator('li').first()).toHaveText('node --test');
  expect(existsSync(join(repo.path, '.flightdeck', 'overview.md'))).toBe(true);

  // A slug that breaks the rule is refused with the rule's words; a good one opens the chat.
  const help = await features.startPlan('Health_Endpoint');
  await expect(help).toContainText(/lowercase letters/);
  await expect(page.getByTestId('plan-slug-input')).toHaveAttribute('aria-invalid', 'true');
  await features.startPlan(SLUG);
  await expect(features.chat).toBeVisible();
  await expect(page.getByTestId('plan-status')).toHaveText('Discussing');

  // The chat is an ordinary session: streamed answers in the transcript.
  await session.send('I want a /health endpoint for the load balancer');
  // The plan takes one message at a time: one typed while the Planner answers is not taken, and
  // stays in the box (no queue is promised), said so; it is still there once the answer is in.
  await expect(page.getByTestId('stop')).toBeVisible();
  await expect(session.input).toHaveAttribute('placeholder', /send it once the answer is done/);
  await session.input.fill('and what about metrics?');
  await session.input.press('Enter');
  await expect(page.locator('.toasts')).toContainText('The Planner is still answering');
  await expect(page.getByTestId('queue')).toHaveCount(0);
  await expect(session.transcript).toContainText('Should it check the database too');
  await session.waitIdle();
  await expect(session.input).toHaveValue('and what about metrics?');
  expect(model.mainRequests().filter((r) => r.userText?.includes('what about metrics'))).toHaveLength(0);
  await session.send('Check the database as well, please');
  await expect(session.transcript).toContainText('Type /approve when ready');
  await session.waitIdle();
  await page.screenshot({ path: 'test-results/plan-chat.png' });
  // The Planner's brief is in the system prompt of every chat turn; the transcript shows only what the user typed.
  const chatTurns = model.mainRequests().filter((r) => r.userText?.includes('/health endpoint') || r.userText?.includes('Check the database'));
  expect(chatTurns).toHaveLength(2);
  for (const r of chatTurns) {
    const body = r.body as { system?: unknown; messages?: unknown };
    expect(JSON.stringify(body.system)).toContain('You are the Planner of Flightdeck');
    expect(JSON.stringify(body.messages)).not.toContain('You are the Planner of Flightdeck');
  }
  await expect(session.transcript).not.toContainText('You are the Planner of Flightdeck');

  // The Planner's session in the sidebar is the plan's chat, not a bare session.
  await page.getByTestId('sidebar').getByRole('button', { name: 'Board' }).click();
  // Sessions the app made (this Planner's too) are folded under "Made by Flightdeck", apart from the user's own.
  await page.getByTestId('sidebar-made-toggle').click();
  await page.getByTestId('sidebar-sessions').getByRole('button', { name: `Plan: ${SLUG}` }).click();
  await expect(features.chat).toBeVisible();
  await expect(session.transcript).toContainText('Type /approve when ready');

  // /approve typed in the composer writes the plan and opens the approval screen.
  await session.input.fill('/approve');
  await session.input.press('Enter');
  await expect(features.review).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('plan-revision')).toHaveText('revision 1');
  await expect(page.getByTestId('preview-design')).toContainText('Expose GET /health');
  await expect(page.getByTestId('preview-verification')).toContainText('node --test');
  expect(await features.phaseNames()).toEqual(['route', 'checks']);
  // The first revision has nothing to compare with.
  await expect(page.getByTestId('revision-changes')).toHaveCount(0);
  // Nothing is written to the repository before approval.
  expect(existsSync(join(repo.path, '.trees', SLUG))).toBe(false);

  // A comment anchored to a passage selected in the preview, and one on the whole plan.
  await features.selectInPreview('design', QUOTE);
  await page.getByTestId('comment-selection-design').click();
  await expect(features.comments).toHaveCount(1);
  await expect(features.comments.first().getByTestId('comment-quote')).toHaveText(QUOTE);
  await expect(features.comments.first().getByTestId('comment-text')).toBeFocused();
  await page.keyboard.type('Time the ping out after 500 ms.');
  await page.getByTestId('comment-whole-plan').click();
  await expect(features.comments).toHaveCount(2);
  await features.comments.nth(1).getByTestId('comment-text').fill('Add a phase that documents the endpoint.');
  // The comment box grows with a long comment instead of scrolling inside two lines.
  const box = features.comments.first().getByTestId('comment-text');
  const short = (await box.boundingBox())!.height;
  await box.press('End');
  await page.keyboard.type(' And a second sentence.\nA third line.\nA fourth line.\nA fifth line.');
  const tall = (await box.boundingBox())!.height;
  expect(tall).toBeGreaterThan(short * 1.8);
  expect(await box.evaluate((el) => el.scrollHeight <= el.clientHeight + 1)).toBe(true);
  // An edit of the user's own goes with the comments.
  await page.getByTestId('edit-design').click();
  await page.getByTestId('editor-design').press('Control+End');
  await page.keyboard.type('Owner: the platform team.\n');
  await expect(page.getByTestId('preview-design')).toContainText('Owner: the platform team.');
  await expect(page.getByTestId('doc-design-edited')).toBeVisible();
  await expect(page.getByTestId('request-changes')).toHaveText(/Request changes \(2\)/);
  await page.getByTestId('request-changes').click();

  // Revision 2: the diff against revision 1 (the one reviewed), the comments sent as asked.
  await expect(page.getByTestId('plan-revision')).toHaveText('revision 2', { timeout: 60_000 });
  const changes = page.getByTestId('revision-changes');
  // The diff is against what the user saw, their edit included (the Planner dropped that line).
  await expect(changes).toContainText('Changes since revision 1, the one you reviewed (with your edits)');
  await expect(page.getByTestId('revision-diff-design')).toContainText('-Owner: the platform team.');
  await expect(changes).toContainText('Time the ping out after 500 ms.');
  await expect(page.getByTestId('revision-diff-design')).toContainText('+### Phase 3: docs');
  await expect(page.getByTestId('revision-diff-design')).toContainText('-Add a handler in server.js that answers 200 with {"status":"ok"} and uses the sqlite ping.');
  await expect(page.getByTestId('revision-diff-verification')).toContainText('+- The README documents /health.');
  await expect(features.comments).toHaveCount(0);
  const revise = model.mainRequests().find((r) => JSON.stringify(r.body).includes('Address every comment below'));
  expect(JSON.stringify(revise?.body)).toContain(QUOTE);
  expect(JSON.stringify(revise?.body)).toContain('Add a phase that documents the endpoint.');
  expect(JSON.stringify(revise?.body)).toContain('Owner: the platform team.');
  expect(await features.phaseNames()).toEqual(['route', 'checks', 'docs']);

  // Without phases the screen says so (nothing guessed); the edits can be taken back.
  await expect(page.getByTestId('no-phases')).toHaveCount(0);
  for (let i = 0; i < 3; i++) await features.phases.first().getByTestId('phase-remove').click();
  await expect(page.getByTestId('no-phases')).toContainText('This design spec has no development phases');
  await expect(page.getByTestId('preview-design')).not.toContainText('Phase 1: route');
  await expect(page.getByTestId('approve-plan')).toBeDisabled();
  await page.getByTestId('doc-design').getByRole('button', { name: 'Undo my edits' }).click();
  expect(await features.phaseNames()).toEqual(['route', 'checks', 'docs']);
  await expect(page.getByTestId('no-phases')).toHaveCount(0);

  // Reorder with the keyboard (Alt+Down on the handle) and with the buttons: the spec follows.
  await features.phases.nth(0).locator('[data-phase-handle]').focus();
  await page.keyboard.press('Alt+ArrowDown');
  expect(await features.phaseNames()).toEqual(['checks', 'route', 'docs']);
  await features.phases.nth(2).getByTestId('phase-up').click();
  expect(await features.phaseNames()).toEqual(['checks', 'docs', 'route']);
  await expect(page.getByTestId('doc-design-edited')).toBeVisible();
  await page.getByTestId('edit-design').click();
  await expect(page.getByTestId('editor-design')).toHaveValue(/### Phase 1: checks\nReport the database ping in the body\.\n\n### Phase 2: docs\n/);

  // At 700 px the approval screen stacks its panels; nothing runs off sideways.
  await page.setViewportSize({ width: 700, height: 800 });
  await expect(page.getByTestId('approve-plan')).toBeVisible();
  expect(await overflowing(page, [['document', 'html'], ['main pane', '.main'], ['plan review', '[data-testid="plan-review"]'], ['phases', '[data-testid="phase-list"]']])).toEqual([]);
  await page.setViewportSize({ width: 1360, height: 860 });

  // How the run will go, then a screenshot of the approval screen.
  await page.getByTestId('executor-builtin').click();
  // Unattended by default, and the screen says what that means; a stricter mode says it will wait.
  await expect(page.getByTestId('approve-mode')).toHaveValue('yolo');
  await expect(page.getByTestId('approve-mode-note')).toContainText('The run works unattended');
  await page.getByTestId('approve-mode').selectOption('auto-edit');
  await expect(page.getByTestId('approve-mode-note')).toContainText('stops and waits for you');
  await expect(page.getByTestId('approve-plan')).toHaveText(/Approve revision 2/);
  await screenshotView(page, 'test-results/plan-approval.png');

  await page.getByTestId('approve-plan').click();
  // Back on the board: the feature is planned.
  const card = features.card(SLUG);
  await expect(card).toBeVisible({ timeout: 60_000 });
  await expect(features.column('planned')).toContainText(SLUG);
  await expect(card).toContainText(name);

  // On disk: worktree, branch, both documents as approved (phases reordered), state and one commit.
  const tree = join(repo.path, '.trees', SLUG);
  const dir = join(tree, '.flightdeck', SLUG);
  const design = readFileSync(join(dir, 'specs', 'design.md'), 'utf8');
  expect(design.indexOf('### Phase 1: checks')).toBeGreaterThan(0);
  expect(design.indexOf('### Phase 2: docs')).toBeGreaterThan(design.indexOf('### Phase 1: checks'));
  expect(design).toContain('### Phase 3: route');
  expect(readFileSync(join(dir, 'specs', 'verification.md'), 'utf8')).toContain('The README documents /health.');
  const state = readFileSync(join(dir, 'state.yml'), 'utf8');
  expect(state).toMatch(/status: planned/);
  expect([...state.matchAll(/^\s+- name: (\S+)/gm)].map((m) => m[1])).toEqual(['checks', 'docs', 'route', 'review', 'verify']);
  expect(git('-C', tree, 'log', '-1', '--format=%s')).toBe(`feat(${SLUG}): initialize planning artifacts`);
  expect(git('branch', '--list', `*/${SLUG}`)).toContain(SLUG);

  await screenshotView(page, 'test-results/feature-board.png');

  // Keyboard: the filter finds it, Tab reaches the card, Enter opens it.
  await page.getByTestId('board-filter').fill('nothing-like-this');
  await expect(page.getByTestId('board-count')).toHaveText('0 of 1');
  await page.getByTestId('board-filter').fill('health');
  await expect(page.getByTestId('board-count')).toHaveText('1 feature');
  // Filter, project, sort, then the cards.
  await page.getByTestId('board-filter').press('Tab');
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('board-sort')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(card).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('feature-view')).toHaveAttribute('data-slug', SLUG);
  await expect(page.getByTestId('feature-status')).toHaveText('planned');
  // The approved plan is no longer listed as in progress on the project.
  await features.openProject(name);
  await expect(features.panel.getByTestId('plan-row')).toHaveCount(0);

  // At 700 px nothing in the main pane runs off sideways: the board scrolls its columns itself.
  await page.setViewportSize({ width: 700, height: 800 });
  await page.getByTestId('sidebar').getByRole('button', { name: 'Board' }).click();
  await expect(card).toBeVisible();
  expect(await overflowing(page, [['document', 'html'], ['main pane', '.main'], ['board view', '[data-testid="feature-board"]']])).toEqual([]);
});
