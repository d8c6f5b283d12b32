import { test, expect, type Locator, type Page } from '@playwright/test';
import { startModelServer, type ModelServer, type Script } from '../fixtures/model-server/index';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { makeRepo } from '../support/temp';
import { plannedProject } from './support/planned-feature';

/**
 * Keyboard first: every flow here is driven by keys only — the palette, Ctrl+N, Shift+Tab,
 * Ctrl+Shift+G, `?`, Tab and Enter — from starting a session to answering a blocked autopilot
 * step. The mouse is never used once the page is open.
 */

test.describe.configure({ mode: 'serial' });

const SLUG = 'sum-lib';
const text = (t: string): Script[number] => ({ blocks: [{ type: 'text', text: t }] });

let host: RunningHost;
let model: ModelServer;
let repo: { path: string; cleanup(): void };
let project: string;

test.beforeAll(async () => {
  model = await startModelServer({ script: [] });
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' } });
  repo = makeRepo('fd-e2e-keys-');
  plannedProject(repo.path, SLUG);
  project = repo.path.split('/').pop()!;
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
});

/** Tab (forward) until the element has focus, as a keyboard user does; fails after `max` presses. */
async function tabTo(page: Page, target: Locator, max = 80): Promise<void> {
  await expect(target).toBeVisible();
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === el.ownerDocument.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${target.toString()}`);
}

/** Ctrl+K, the query, Enter on the first match (which must be `entry`). */
async function palette(page: Page, query: string, entry: string | RegExp): Promise<void> {
  await page.keyboard.press('Control+k');
  const p = page.getByTestId('command-palette');
  await expect(p).toBeVisible();
  await expect(p.getByTestId('palette-input')).toBeFocused();
  await page.keyboard.type(query);
  await expect(p.getByTestId('palette-option').first()).toHaveAttribute('data-entry', entry);
  await page.keyboard.press('Enter');
  await expect(p).toBeHidden();
}

test('keyboard only: add a project, start a session, approve, open Changes, cycle modes, go anywhere with the palette', async ({ page }) => {
  test.setTimeout(150_000);
  model.setScript([
    { match: { userPattern: 'create hello.txt' }, blocks: [{ type: 'text', text: 'I will create the file.' }, { type: 'tool_use', name: 'write', input: { path: 'hello.txt', content: 'Hello from the agent\n' } }] },
    { match: { userPattern: 'Created hello.txt' }, ...text('Created **hello.txt** for you.') },
    { match: { userPattern: 'write hello.txt again' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'hello.txt', content: 'Hello from the agent\n' } }] },
    { match: { userPattern: 'Overwrote hello.txt' }, ...text('Wrote it again, unchanged.') },
  ]);
  await page.setViewportSize({ width: 1440, height: 900 });
  const board = new BoardPage(page);
  await board.open(host.url);

  // The first Tab offers the skip link; it moves focus to the main content, past the sidebar.
  await page.keyboard.press('Tab');
  const skip = page.getByTestId('skip-link');
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.screenshot({ path: 'test-results/keyboard-skip-link.png' });
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('main')).toBeFocused();

  // `?` lists the shortcuts; Escape closes the list.
  await page.keyboard.press('?');
  const list = page.getByTestId('shortcuts-dialog');
  await expect(list).toBeVisible();
  for (const keys of ['Ctrl+K', 'Ctrl+N', 'Ctrl+Shift+G', 'Shift+Tab']) await expect(list).toContainText(keys);
  await page.screenshot({ path: 'test-results/keyboard-shortcuts.png' });
  await page.keyboard.press('Escape');
  await expect(list).toBeHidden();

  // No project yet: Ctrl+N says so and opens "Add project"; the palette's "Add project" does too.
  await page.keyboard.press('Control+n');
  await expect(board.dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(board.dialog).toBeHidden();
  await palette(page, 'add proj', 'action:add-project');
  await expect(board.dialog).toBeVisible();
  await expect(board.pathInput).toBeFocused();
  await page.keyboard.type(repo.path);
  await expect(board.pathHelp).toContainText('Looks good');
  await page.keyboard.press('Enter');
  await expect(board.card(project)).toBeVisible();
  // Each project card has its own "New session".
  await expect(board.card(project).getByTestId('card-new-session')).toBeVisible();
  await page.screenshot({ path: 'test-results/keyboard-project-card.png' });

  // Ctrl+N from the board: the only project's "New session" dialog; Ctrl+Enter starts it.
  await page.keyboard.press('Control+n');
  const dialog = page.getByTestId('new-session-dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('heading')).toHaveText(`New session in ${project}`);
  await expect(dialog.getByTestId('placement-worktree')).toBeVisible();
  // Focus is in the dialog (on Start once it can start), so Ctrl+Enter reaches it.
  await expect(dialog.getByTestId('new-session-start')).toBeFocused();
  await page.keyboard.press('Control+Enter');
  const input = page.getByTestId('composer-input');
  await expect(page.getByTestId('session-view')).toBeVisible();
  await expect(input).toBeFocused();

  // `?` typed in the composer is text, not the shortcut list.
  await page.keyboard.type('?');
  await expect(input).toHaveValue('?');
  await expect(list).toBeHidden();
  await page.keyboard.press('Backspace');

  // Send, then approve from the keyboard (focus is in the approval dialog; Ctrl+Enter approves once).
  await page.keyboard.type('Please create hello.txt with a greeting');
  await page.keyboard.press('Enter');
  const approval = page.getByTestId('approval-dialog');
  await expect(approval).toBeVisible();
  await expect(approval.getByTestId('approval-summary')).toContainText('hello.txt');
  await page.keyboard.press('Control+Enter');
  await expect(approval).toBeHidden();
  await expect(page.getByTestId('transcript')).toContainText('Created hello.txt for you.');
  await expect(page.getByTestId('session-status')).toHaveText('Idle', { timeout: 30_000 });

  // Ctrl+Shift+G: this session's Changes; Escape back to the composer.
  await input.focus();
  await page.keyboard.press('Control+Shift+G');
  const changes = page.getByTestId('changes-dialog');
  await expect(changes).toBeVisible();
  await expect(changes).toContainText('hello.txt');
  await page.keyboard.press('Escape');
  await expect(changes).toBeHidden();
  await expect(input).toBeFocused();

  // A write of the content already there: the approval says "no change" instead of an empty diff.
  await page.keyboard.type('Please write hello.txt again');
  await page.keyboard.press('Enter');
  await expect(approval).toBeVisible();
  await expect(approval.getByTestId('approval-no-change')).toHaveText('No change: hello.txt would stay exactly as it is.');
  await expect(approval.getByTestId('approval-diff')).toHaveCount(0);
  await approval.screenshot({ path: 'test-results/keyboard-approval-no-change.png' });
  await page.keyboard.press('Control+Enter');
  await expect(page.getByTestId('transcript')).toContainText('Wrote it again, unchanged.');
  // Its card in the transcript says the same instead of an empty diff.
  await expect(page.getByTestId('transcript').getByTestId('tool-no-change')).toHaveText('No change: the file already held this content.');
  await expect(page.getByTestId('session-status')).toHaveText('Idle', { timeout: 30_000 });
  await input.focus();

  // Shift+Tab in the composer cycles Default → Auto-edit → Plan → Default; the header agrees.
  const chip = page.getByTestId('composer-mode');
  const switcher = page.getByTestId('mode-switcher');
  await expect(chip).toContainText('Default');
  await page.keyboard.press('Shift+Tab');
  await expect(chip).toContainText('Auto-edit');
  await expect(switcher.getByRole('radio', { name: 'Auto-edit' })).toHaveAttribute('aria-checked', 'true');
  await expect(input).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(chip).toContainText('Plan');
  await page.screenshot({ path: 'test-results/keyboard-composer-mode.png' });
  await page.keyboard.press('Shift+Tab');
  await expect(chip).toContainText('Default');
  await expect(switcher.getByRole('radio', { name: 'Default' })).toHaveAttribute('aria-checked', 'true');

  // The palette: the open session's actions first, then anything by name.
  const title = (await page.getByTestId('session-rename').textContent())!.trim();
  await page.keyboard.press('Control+k');
  const p = page.getByTestId('command-palette');
  await expect(p.getByTestId('palette-option').first()).toHaveAttribute('data-entry', 'action:changes');
  await expect(p).toContainText(`New session in ${project}`);
  await page.screenshot({ path: 'test-results/keyboard-palette.png' });
  // Ctrl+K again closes it.
  await page.keyboard.press('Control+k');
  await expect(p).toBeHidden();
  await palette(page, 'plan mode', 'action:mode:plan');
  await expect(chip).toContainText('Plan');
  await palette(page, 'settings', 'view:settings');
  await expect(page.getByTestId('settings-view')).toBeVisible();
  await palette(page, 'containers', 'view:containers');
  await expect(page).toHaveURL(/#\/containers$/);
  await palette(page, project, /^project:/);
  await expect(page.getByTestId('project-view')).toBeVisible();
  await palette(page, title, /^session:/);
  await expect(page.getByTestId('session-rename')).toHaveText(title);
  await palette(page, SLUG, /^feature:/);
  await expect(page.getByTestId('feature-view')).toBeVisible();
});

test('keyboard only at 700 px: find a feature with the palette, run it, watch it complete', async ({ page }) => {
  test.setTimeout(240_000);
  const SUM_JS = 'export function sum(a, b) {\n  return a + b;\n}\n';
  const SUM_TEST = "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { sum } from './sum.mjs';\ntest('sum', () => assert.strictEqual(sum(2, 3), 5));\n";
  model.setScript([
    {
      blocks: [
        { type: 'tool_use', name: 'write', input: { path: 'sum.mjs', content: SUM_JS } },
        { type: 'tool_use', name: 'write', input: { path: 'sum.test.mjs', content: SUM_TEST } },
      ],
    },
    text('Phase done: sum.mjs and its test.'),
    text('Reviewed the diff.\n\n```yaml\nissues: []\n```'),
    text('Walked the plan.\n\n```yaml\nresult: pass\nitems:\n  - item: sum(2, 3) is 5\n    result: pass\n```'),
  ]);
  await page.setViewportSize({ width: 700, height: 900 });
  await new BoardPage(page).open(host.url);
  // The board's filter says what it is, whole, at 700 px (its placeholder was cut to "…branch, p").
  const filter = page.getByTestId('board-filter');
  await expect(filter).toHaveAttribute('placeholder', 'Filter features');
  // The placeholder's text width, measured in the input's own font, against the room inside the input.
  const fits = await page.evaluate<boolean>(`(() => {
    const el = document.querySelector('[data-testid="board-filter"]');
    const cs = getComputedStyle(el);
    const probe = document.createElement('span');
    probe.textContent = el.placeholder;
    probe.style.font = cs.font;
    probe.style.position = 'absolute';
    probe.style.whiteSpace = 'pre';
    document.body.append(probe);
    const w = probe.offsetWidth;
    probe.remove();
    return w <= el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  })()`);
  expect(fits).toBe(true);

  await page.keyboard.press('Control+k');
  const p = page.getByTestId('command-palette');
  await expect(p).toBeVisible();
  await page.keyboard.type('sum');
  await expect(p.getByTestId('palette-option').first()).toHaveAttribute('data-entry', new RegExp(`^feature:.*/${SLUG}$`));
  await expect(p.getByTestId('palette-option').first()).toContainText('planned');
  // The palette fits the narrow window.
  const box = (await p.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(700);
  await page.screenshot({ path: 'test-results/keyboard-palette-700.png' });
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('feature-view')).toBeVisible();
  await expect(page.getByTestId('feature-status')).toHaveText('planned');

  // Tab to Run, Enter; the run dialog starts on Ctrl+Enter.
  await tabTo(page, page.getByTestId('feature-run'));
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('run-dialog')).toBeVisible();
  await expect(page.getByTestId('run-on-host').locator('input')).toBeChecked();
  await page.keyboard.press('Control+Enter');
  await expect(page.getByTestId('run-dialog')).toBeHidden();
  await expect(page.getByTestId('feature-status')).toHaveText('completed', { timeout: 150_000 });
  expect(model.pendingTurns()).toBe(0);

  // The inbox says so; its popover is the theme's panel and fits the 700 px window whole.
  await expect(page.getByTestId('inbox-count')).toHaveText('1');
  await tabTo(page, page.getByTestId('inbox-button'));
  await page.keyboard.press('Enter');
  const panel = page.getByTestId('inbox-panel');
  await expect(panel.getByTestId('inbox-entry').first()).toContainText(`Feature finished: ${SLUG}`);
  const [bg, themed] = await panel.evaluate((el) => { const view = el.ownerDocument.defaultView!; return [view.getComputedStyle(el).backgroundColor, view.getComputedStyle(el.ownerDocument.body).getPropertyValue('--bg-elev').trim()]; });
  expect(themed).toBe('#ffffff');
  expect(bg).toBe('rgb(255, 255, 255)');
  const pb = (await panel.boundingBox())!;
  expect(pb.x).toBeGreaterThanOrEqual(0);
  expect(pb.y).toBeGreaterThanOrEqual(0);
  expect(pb.x + pb.width).toBeLessThanOrEqual(700);
  expect(pb.y + pb.height).toBeLessThanOrEqual(900);
  await page.screenshot({ path: 'test-results/keyboard-inbox-700.png' });
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
});

test('keyboard only: start an autopilot run, answer its blocked step, see it finish', async ({ page }) => {
  test.setTimeout(200_000);
  const planWith = (step: string) =>
    ['# PLAN', '', '## Goal', '- g', '', '## Acceptance', '- [ ] TEST_CMD passes: `node --test`', '', '## Next (exactly ONE item)', `- [ ] (STEP_ID=001) ${step}`, '', '## Backlog', '', '## Done', '', '## Notes', ''].join('\n');
  const test3 = (name: string, expr: string) => `const test = require('node:test');\nconst assert = require('node:assert');\nconst f = require('./${name}.js');\ntest('${name}', () => assert.strictEqual(${expr}, 6));\n`;
  const write = (path: string, content: string): Script[number] => ({ blocks: [{ type: 'tool_use', name: 'write', input: { path, content } }] });
  const planUpdate = (iteration: number) => new RegExp(`PLAN UPDATE · iteration ${iteration}\\]\\nYou are the planner of an autopilot run\\. Goal: Add a mul module`);
  const execute = (iteration: number) => new RegExp(`EXECUTE · iteration ${iteration} · STEP_ID=001\\][\\s\\S]*\\(STEP_ID=001\\) Add mul.js`);
  model.setScript([
    { match: { userPattern: planUpdate(1) }, ...write('PLAN.md', planWith('Add mul.js with its test')) },
    { match: { userPattern: 'Overwrote PLAN.md' }, times: 2, ...text('Planned one step.') },
    { match: { userPattern: execute(1) }, ...write('mul.js', 'module.exports = (a, b) => a + b;\n') },
    { match: { userPattern: 'Created mul.js' }, ...write('mul.test.js', test3('mul', 'f(2, 3)')) },
    { match: { userPattern: 'Created mul.test.js' }, ...text('Added mul.') },
    { match: { userPattern: planUpdate(2) }, ...text('The plan stands; the answer says multiply.') },
    { match: { userPattern: execute(2) }, ...write('mul.js', 'module.exports = (a, b) => a * b;\n') },
    { match: { userPattern: 'Overwrote mul.js' }, ...text('Fixed: a * b.') },
  ]);
  await page.setViewportSize({ width: 1440, height: 900 });
  await new BoardPage(page).open(host.url);
  await palette(page, 'autopilot', 'view:autopilot');
  await expect(page.getByTestId('autopilot-view')).toBeVisible();

  await tabTo(page, page.getByTestId('ap-new'));
  await page.keyboard.press('Enter');
  const form = page.getByTestId('ap-new-run');
  await expect(form).toBeVisible();
  await expect(form.getByTestId('ap-project')).toHaveValue(/.+/);
  await tabTo(page, form.getByTestId('ap-goal'));
  await page.keyboard.type('Add a mul module');
  await tabTo(page, form.getByTestId('ap-test-cmd'));
  await page.keyboard.type('node --test');
  await tabTo(page, form.getByTestId('ap-max-fix'));
  await page.keyboard.press('Control+a');
  await page.keyboard.type('0');
  await tabTo(page, form.getByTestId('ap-start'));
  await page.keyboard.press('Enter');
  const detail = page.getByTestId('ap-detail');
  await expect(detail.getByTestId('ap-goal-title')).toHaveText('Add a mul module');
  await expect(detail.getByTestId('ap-status')).toHaveText('Blocked', { timeout: 90_000 });

  const blocked = detail.getByTestId('ap-blocked');
  await tabTo(page, blocked.getByTestId('ap-answer'));
  await page.keyboard.type('mul multiplies: return a * b.');
  await tabTo(page, blocked.getByTestId('ap-answer-submit'));
  await page.keyboard.press('Enter');
  await expect(detail.getByTestId('ap-status')).toHaveText('Done', { timeout: 90_000 });
  await expect(detail.getByTestId('ap-blocked')).toHaveCount(0);
});
