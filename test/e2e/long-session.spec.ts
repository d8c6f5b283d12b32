import { test, expect, type Page } from '@playwright/test';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startModelServer, type ModelServer } from '../fixtures/model-server/index';
import type { ScriptTurn } from '../fixtures/model-server/script';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage, type BlockSize } from './poms/session';
import { makeRepo } from '../support/temp';

/**
 * A session used the way people use it for an afternoon: 40 inputs with every kind of tool
 * card (read, write, patch, bash, grep, glob, todo, denied, refused, pending approval, `!`
 * commands, slash outputs), approvals answered with the keyboard only, then the same
 * transcript at 1440, 1024 and 700 px. Every block must keep its content height: the bug
 * this guards against squeezed cards to thin lines once the transcript outgrew the window.
 */

let host: RunningHost;
let model: ModelServer;
let repo: { path: string; cleanup(): void };
const OUTSIDE = '/tmp/flightdeck-e2e-outside-root.txt';

/** A chat input and what the scripted model does with it: call one tool (then say done) or just answer. */
interface Step {
  input: string;
  tool?: { name: string; input: Record<string, unknown> };
  reply?: string;
}

const md = (n: number) =>
  `Turn ${n} notes:\n\n- the **README** is short\n- tests live under \`test/\`\n\n\`\`\`ts\nexport const answer${n} = ${n};\n\`\`\`\n\n| file | lines |\n|---|---|\n| README.md | 1 |`;

/** The chat turns, by number; `!` and `/` inputs are interleaved by the test itself. */
function chatSteps(): Step[] {
  const steps: Step[] = [
    { input: 't01 hello, what is here?', reply: md(1) },
    { input: 't02 read the readme', tool: { name: 'read', input: { path: 'README.md' } } },
    { input: 't03 create notes/a.txt', tool: { name: 'write', input: { path: 'notes/a.txt', content: 'first line\nsecond line\n' } } },
    { input: 't04 patch the readme', tool: { name: 'patch', input: { path: 'README.md', edits: [{ search: '# sample', replace: '# sample project\n\nA demo.' }] } } },
    { input: 't05 count to eighty', tool: { name: 'bash', input: { command: 'seq 1 80' } } },
    { input: 't06 grep for sample', tool: { name: 'grep', input: { pattern: 'sample' } } },
    { input: 't07 list markdown files', tool: { name: 'glob', input: { pattern: '**/*.md' } } },
    { input: 't08 plan the work', tool: { name: 'todo', input: { todos: [{ text: 'Read the code', status: 'done' }, { text: 'Write the notes', status: 'in_progress' }, { text: 'Review', status: 'pending' }] } } },
    { input: 't09 create deny.txt', tool: { name: 'write', input: { path: 'deny.txt', content: 'never\n' } } },
    { input: 't10 write outside the project', tool: { name: 'write', input: { path: OUTSIDE, content: 'escape\n' } } },
  ];
  // Run after the slash commands, in auto-edit mode.
  steps.push({ input: 't34 patch notes in auto-edit', tool: { name: 'patch', input: { path: 'notes/a.txt', edits: [{ search: 'second line', replace: 'second line\nthird line' }] } } });
  // Filler turns of the same kinds, so the transcript is many windows tall.
  for (let n = 11; n <= 33; n++) {
    const kind = n % 4;
    if (kind === 0) steps.push({ input: `t${n} list the files`, tool: { name: 'bash', input: { command: `seq 1 ${10 + n}` } } });
    else if (kind === 1) steps.push({ input: `t${n} read notes`, tool: { name: 'read', input: { path: 'notes/a.txt' } } });
    else if (kind === 2) steps.push({ input: `t${n} search again`, tool: { name: 'grep', input: { pattern: 'line' } } });
    else steps.push({ input: `t${n} summarize`, reply: md(n) });
  }
  return steps;
}

/** In the order the test sends them: an unmatched follow-up answers whatever request comes next. */
function script(steps: Step[]): ScriptTurn[] {
  const turns: ScriptTurn[] = [];
  for (const s of steps) {
    const tag = s.input.split(' ')[0]!;
    if (s.tool) {
      turns.push({ match: { userPattern: `${tag} ` }, blocks: [{ type: 'text', text: `Working on ${tag}.` }, { type: 'tool_use', name: s.tool.name, input: s.tool.input }] });
      // The follow-up request carries the tool result; unmatched, it is the next one asked.
      turns.push({ blocks: [{ type: 'text', text: `Done with ${tag}.` }] });
    } else turns.push({ match: { userPattern: `${tag} ` }, blocks: [{ type: 'text', text: s.reply ?? 'OK' }] });
  }
  // The last input leaves an approval pending (the card keeps its Approve button).
  turns.push({ match: { userPattern: 't40 ' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'pending.txt', content: 'waiting\n' } }] });
  return turns;
}

test.beforeAll(async () => {
  model = await startModelServer({ script: script(chatSteps()) });
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' } });
  repo = makeRepo('fd-e2e-long-');
  mkdirSync('test-results', { recursive: true });
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
});

/** No block is squeezed: each is as tall as its content, and tool cards are more than a header line. */
function expectFullHeights(blocks: BlockSize[], where: string): void {
  expect(blocks.length, where).toBeGreaterThan(40);
  for (const b of blocks) {
    const label = `${where}: ${b.testId ?? 'block'} ${b.tool ?? ''} "${b.text}"`;
    expect(b.height, label).toBeGreaterThanOrEqual(b.scrollHeight - 1);
    // A collapsed card is still its whole header line.
    if (b.testId === 'tool-card' || b.testId === 'command-result') expect(b.height, label).toBeGreaterThan(26);
  }
}

async function tabUntil(page: Page, session: SessionPage, testId: string): Promise<void> {
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press('Tab');
    expect(await session.focusInDialog(), 'Tab keeps focus inside the approval dialog').toBe(true);
    if ((await session.focusedTestId()) === testId) return;
  }
  throw new Error(`Tab never reached ${testId}`);
}

test('a 40-input session with every kind of card keeps every card readable, at 1440, 1024 and 700 px, approvals by keyboard', async ({ page }) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const board = new BoardPage(page);
  await board.open(host.url);
  const name = await board.addProject(repo.path);
  const session = new SessionPage(page);
  await session.startFromProject(name);
  // A new session is for typing: the composer has focus, and the empty state names the session's mode.
  await expect(session.input).toBeFocused();
  await expect(page.getByTestId('empty-mode')).toContainText('Default');

  const steps = chatSteps();
  let inputs = 0;
  const run = async (text: string) => {
    await session.send(text);
    inputs++;
  };
  const byTag = (tag: string) => steps.find((s) => s.input.startsWith(`${tag} `))!.input;

  // t01–t02: an answer in Markdown, a read.
  await run(byTag('t01'));
  await session.waitIdle();
  await run(byTag('t02'));
  await expect(session.transcript).toContainText('Done with t02.');
  await session.waitIdle();

  // t03: write asks; the dialog takes focus from the composer, Tab stays inside, Ctrl+Enter approves once.
  await run(byTag('t03'));
  await expect(session.approval).toBeVisible();
  await expect(session.approval.getByTestId('approval-subject')).toHaveText('The agent asks to write a file');
  await expect(session.approval.getByTestId('approval-subject')).not.toContainText('t03');
  expect(await session.focusInDialog()).toBe(true);
  await tabUntil(page, session, 'approve-once');
  // The buttons sit on one row.
  const rows = await session.approval.locator('.approval-actions .button').evaluateAll((els) => new Set(els.map((e) => Math.round(e.getBoundingClientRect().top))).size);
  expect(rows).toBe(1);
  await page.screenshot({ path: 'test-results/long-approval-dialog.png' });
  await page.keyboard.press('Control+Enter');
  await expect(session.approval).toBeHidden();
  await expect(session.transcript).toContainText('Done with t03.');
  await session.waitIdle();
  expect(readFileSync(join(repo.path, 'notes/a.txt'), 'utf8')).toBe('first line\nsecond line\n');

  // t04: Escape is "Later"; the header badge brings it back; Later again; the card's own button approves.
  await run(byTag('t04'));
  await expect(session.approval).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(session.approval).toBeHidden();
  await expect(session.approveBadge).toHaveText('1 to approve');
  await session.approveBadge.click();
  await expect(session.approval).toBeVisible();
  await expect(session.approval.getByTestId('approval-diff')).toContainText('+# sample project');
  await session.approval.getByTestId('later').click();
  await expect(session.approval).toBeHidden();
  await expect(page.getByTestId('sidebar-sessions').locator('.nav-badge')).toHaveText('1');
  const patchCard = session.lastCard('patch');
  await expect(patchCard.getByTestId('tool-pending')).toBeVisible();
  await patchCard.getByTestId('card-approve').click();
  await expect(session.transcript).toContainText('Done with t04.');
  await session.waitIdle();
  expect(readFileSync(join(repo.path, 'README.md'), 'utf8')).toContain('# sample project');
  // No invented user message when the turn continues after the answer.
  await expect(session.transcript).not.toContainText('(continuing after the approval was answered)');

  for (const tag of ['t05', 't06', 't07', 't08']) {
    await run(byTag(tag));
    await expect(session.transcript).toContainText(`Done with ${tag}.`);
    await session.waitIdle();
  }
  const seqCard = session.transcript.locator('[data-testid="tool-card"][data-tool="bash"]').filter({ hasText: 'seq 1 80' });
  await expect(seqCard.getByTestId('tool-output')).toContainText('80');
  await expect(page.getByTestId('todo-panel')).toContainText('Write the notes');

  // t09: denied with the keyboard only: Tab to "Deny…", Enter, type the reason, Enter sends it (no newline).
  await run(byTag('t09'));
  await expect(session.approval).toBeVisible();
  await tabUntil(page, session, 'deny');
  await page.keyboard.press('Enter');
  await expect(session.approval.getByTestId('deny-reason')).toBeFocused();
  await page.keyboard.type('Keep the root clean');
  await page.keyboard.press('Enter');
  await expect(session.approval).toBeHidden();
  await expect(session.transcript).toContainText('Done with t09.');
  await session.waitIdle();
  expect(existsSync(join(repo.path, 'deny.txt'))).toBe(false);
  const denial = model.mainRequests().map((r) => JSON.stringify(r.body)).find((b) => b.includes('Keep the root clean'))!;
  expect(denial).toContain('Keep the root clean');
  expect(denial).not.toContain('Keep the root clean\\n');
  await session.lastCard('write').screenshot({ path: 'test-results/long-card-denied.png' });

  // t10: a write outside the project is refused before anyone is asked, with the reason on its card.
  await run(byTag('t10'));
  await expect(session.transcript).toContainText('Done with t10.');
  await session.waitIdle();
  await expect(session.approval).toBeHidden();
  await expect(session.lastCard('write')).toContainText('outside the session root');
  await session.lastCard('write').screenshot({ path: 'test-results/long-card-refused.png' });
  expect(existsSync(OUTSIDE)).toBe(false);

  // `!ls` is one card (the bash card), not a card and a "! !" block.
  const before = await session.transcript.getByTestId('command-result').count();
  await run('!ls');
  await session.waitIdle();
  await expect(session.lastCard('bash').getByTestId('tool-output')).toContainText('README.md');
  expect(await session.transcript.getByTestId('command-result').count()).toBe(before);
  await expect(session.transcript).not.toContainText('! !');

  // /diff is a real diff: the changed files and their hunks, coloured.
  await run('/diff');
  await session.waitIdle();
  const changes = session.transcript.getByTestId('changes-view').last();
  await expect(changes.getByTestId('changes-files')).toContainText('README.md');
  await expect(changes.getByTestId('changes-files')).toContainText('notes/a.txt');
  await expect(changes.getByTestId('diff-hunk').first()).toBeVisible();
  await expect(changes.locator('tr.diff-add').first()).toBeVisible();
  await changes.scrollIntoViewIfNeeded();
  await changes.screenshot({ path: 'test-results/long-slash-diff.png' });

  // /help and /permissions are tables.
  await run('/help');
  await session.waitIdle();
  await expect(session.transcript.getByTestId('command-table').last()).toContainText('/permissions [preset]');
  await run('/permissions');
  await session.waitIdle();
  const perms = session.transcript.getByTestId('command-table').last();
  await expect(perms.locator('tr.current')).toContainText('balanced');
  await perms.scrollIntoViewIfNeeded();
  await session.transcript.getByTestId('command-result').last().screenshot({ path: 'test-results/long-slash-permissions.png' });

  // Auto-edit: a patch runs unasked and its card shows the diff, not the JSON of its input.
  await session.header.getByRole('radio', { name: 'Auto-edit' }).click();
  await run(byTag('t34'));
  await expect(session.transcript).toContainText('Done with t34.');
  await session.waitIdle();
  const autoPatch = session.lastCard('patch');
  await expect(autoPatch.locator('.diff')).toContainText('+third line');
  await expect(autoPatch).not.toContainText('"search"');
  await autoPatch.screenshot({ path: 'test-results/long-card-auto-edit-patch.png' });
  await session.header.getByRole('radio', { name: 'Default' }).click();

  // The rest: filler turns of the kinds above, and more `!` commands.
  for (const s of steps.slice(11)) {
    await run(s.input);
    await expect(session.transcript).toContainText(s.reply ? `Turn ${s.input.slice(1, 3)} notes` : `Done with ${s.input.split(' ')[0]}.`);
    await session.waitIdle();
  }
  await run('!git status --short');
  await session.waitIdle();
  // The last input leaves an approval pending.
  await run('t40 write pending');
  await expect(session.approval).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(session.approval).toBeHidden();
  expect(inputs).toBe(40);
  const pendingCard = session.lastCard('write');
  await expect(pendingCard.getByTestId('card-approve')).toBeVisible();

  // Counted turns are conversations with the agent: `!` and `/` inputs are not turns.
  await expect(page.getByTestId('turn-count')).toHaveText(/^3[0-9] turns$/);

  // Every block keeps its height, at each width; screenshots of each.
  for (const width of [1440, 1024, 700]) {
    await page.setViewportSize({ width, height: 900 });
    await session.transcript.evaluate((el) => el.scrollTo(0, el.scrollHeight / 3));
    expectFullHeights(await session.blockSizes(), `${width}px`);
    // The 80-line output is a real box of text, not a thin line.
    expect((await seqCard.boundingBox())!.height).toBeGreaterThan(200);
    await page.screenshot({ path: `test-results/long-session-${width}.png` });
    await session.transcript.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await page.screenshot({ path: `test-results/long-session-${width}-end.png` });
  }
  // At 700 px: the sidebar is icons, the header one row, its controls behind the overflow button.
  const sidebarWidth = await page.getByTestId('sidebar').evaluate((el) => el.getBoundingClientRect().width);
  expect(sidebarWidth).toBeLessThan(80);
  const titleRow = await session.header.evaluate((el) => el.getBoundingClientRect().height);
  expect(titleRow).toBeLessThan(64);
  await expect(page.getByTestId('session-controls')).toBeHidden();
  await page.getByTestId('header-overflow').click();
  await expect(page.getByTestId('session-controls')).toBeVisible();
  await expect(page.getByTestId('mode-switcher')).toBeVisible();
  await page.screenshot({ path: 'test-results/long-session-700-menu.png' });
  await page.keyboard.press('Escape');
  await page.getByTestId('sidebar-toggle').click();
  await expect(page.getByTestId('sidebar-sessions')).toBeVisible();
  await page.screenshot({ path: 'test-results/long-session-700-sidebar.png' });
  await page.getByTestId('sidebar-toggle').click();
  // The approval dialog at 700 px: still one row of buttons.
  await session.approveBadge.click();
  await expect(session.approval).toBeVisible();
  const narrowRows = await session.approval.locator('.approval-actions .button').evaluateAll((els) => new Set(els.map((e) => Math.round(e.getBoundingClientRect().top))).size);
  expect(narrowRows).toBe(1);
  await page.screenshot({ path: 'test-results/long-approval-dialog-700.png' });
  await page.keyboard.press('Escape');
  await expect(session.approval).toBeHidden();

  // After a reload the same transcript is rebuilt, pending approval and all.
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.reload();
  await expect(session.approval).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(session.transcript).toContainText('Done with t33.');
  expectFullHeights(await session.blockSizes(), 'after reload');

  // The project page lists the sessions with their pending approvals; deleting one asks first.
  await page.getByTestId('sidebar-projects').getByRole('button', { name }).click();
  await session.newSession();
  await expect(session.input).toBeFocused();
  await page.getByTestId('sidebar-projects').getByRole('button', { name }).click();
  const list = page.getByTestId('session-list');
  await expect(list.getByTestId('session-row')).toHaveCount(2);
  await expect(list.getByTestId('approve-badge')).toHaveText('1 to approve');
  const fresh = list.locator('.session-row', { hasText: 'New session' });
  await fresh.getByRole('button', { name: 'Delete New session' }).click();
  const confirm = page.getByTestId('confirm-dialog');
  await expect(confirm).toContainText('cannot be restored');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(list.getByTestId('session-row')).toHaveCount(2);
  await fresh.getByRole('button', { name: 'Delete New session' }).click();
  await confirm.getByTestId('confirm').click();
  await expect(list.getByTestId('session-row')).toHaveCount(1);
  // The session list's badge brings the waiting approval back.
  await list.getByTestId('approve-badge').click();
  await expect(session.approval).toBeVisible();
  await page.keyboard.press('Escape');

  // The board and the project page at 700 px.
  await page.setViewportSize({ width: 700, height: 900 });
  await page.screenshot({ path: 'test-results/long-project-700.png' });
  await page.getByRole('button', { name: 'Board' }).click();
  await expect(page.getByTestId('agent-cost')).toHaveText(/^\$\d/);
  await page.screenshot({ path: 'test-results/long-board-700.png' });
});
