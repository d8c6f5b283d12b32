import { test, expect, type Page } from '@playwright/test';
import { startModelServer, type ModelServer } from '../fixtures/model-server/index';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage } from './poms/session';
import { makeRepo } from '../support/temp';

let host: RunningHost;
let model: ModelServer;
let repo: { path: string; cleanup(): void };

// A 1×1 red PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

type Body = { messages: Array<{ role: string; content: Array<{ type: string; text?: string; source?: { media_type: string; data: string } }> }> };

test.beforeAll(async () => {
  model = await startModelServer({
    script: [
      // Slow enough to queue a message while it streams.
      {
        match: { userPattern: 'take your time' },
        delayMs: 700,
        blocks: [{ type: 'text', text: 'Thinking slowly about a long answer, one piece at a time.' }],
      },
      { match: { userPattern: 'queued follow-up' }, blocks: [{ type: 'text', text: 'Answering the queued follow-up.' }], usage: { input_tokens: 165_000, output_tokens: 800 } },
      // A long answer makes the transcript scroll; a slow one streams while the user reads above.
      { match: { userPattern: 'tell me everything' }, blocks: [{ type: 'text', text: Array.from({ length: 120 }, (_, i) => `Line ${i + 1} of a long answer.`).join('\n\n') }] },
      { match: { userPattern: 'stream slowly' }, delayMs: 900, blocks: [{ type: 'text', text: Array.from({ length: 30 }, (_, i) => `Slow part ${i + 1}.`).join('\n\n') }] },
      // Slow enough to fill the queue behind it and then stop it.
      { match: { userPattern: 'hold the line' }, delayMs: 4_000, blocks: [{ type: 'text', text: 'Holding the line for quite a while, piece by piece, until stopped.' }] },
      { match: { userPattern: 'what is in this image' }, blocks: [{ type: 'text', text: 'A single red pixel.' }] },
      { match: { userPattern: 'held on its way' }, blocks: [{ type: 'text', text: 'The held one arrived.' }] },
      { match: { userPattern: 'draft then sent' }, blocks: [{ type: 'text', text: 'The draft was sent.' }] },
      { match: { userPattern: 'sent as I left' }, blocks: [{ type: 'text', text: 'Got it while you were away.' }] },
      { match: { userPattern: 'typed meanwhile' }, blocks: [{ type: 'text', text: 'The one typed meanwhile arrived.' }] },
      { match: { userPattern: 'wait a while' }, blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'sleep 20' } }] },
      // Slow, so the user can leave the session before its approval is asked.
      { match: { userPattern: 'create notify.txt' }, delayMs: 600, blocks: [{ type: 'text', text: 'Writing it.' }, { type: 'tool_use', name: 'write', input: { path: 'notify.txt', content: 'hi\n' } }] },
    ],
  });
  host = await startHost({ env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'e2e-test-key', ANTHROPIC_MODEL: 'claude-sonnet-5' } });
  repo = makeRepo('fd-e2e-composer-');
});

/** Pastes the PNG into the composer as a file named `name`. */
async function pasteImage(page: Page, name: string): Promise<void> {
  // A string, so the Node tsconfig needs no DOM types: a paste event carrying a PNG file, as a browser dispatches it.
  await page.evaluate(`(() => {
    const bytes = Uint8Array.from(atob(${JSON.stringify(PNG)}), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], ${JSON.stringify(name)}, { type: 'image/png' }));
    const ev = new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true });
    document.querySelector('[data-testid="composer-input"]').dispatchEvent(ev);
  })()`);
}

/** The board with the test repository added (by whichever test runs first). */
async function openBoard(page: Page): Promise<{ board: BoardPage; name: string }> {
  const name = repo.path.split('/').pop()!;
  const board = new BoardPage(page);
  await board.open(host.url);
  await expect(page.getByTestId('statusbar')).toContainText('Connected');
  if ((await board.card(name).count()) === 0) {
    await board.startAdding(repo.path);
    await board.submit();
  }
  await expect(board.card(name)).toBeVisible();
  return { board, name };
}

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
  repo?.cleanup();
});

test('a message typed while the agent works is queued, removable, and sent when the turn ends; Up recalls it; an image paste reaches the model', async ({ page }) => {
  const { name } = await openBoard(page);
  const session = new SessionPage(page);
  await session.startFromProject(name);

  // Requests of this test only (the server is shared by the file's tests).
  const start = model.mainRequests().length;
  const mine = () => model.mainRequests().slice(start);
  await session.send('Please take your time with this one');
  await expect(page.getByTestId('stop')).toBeVisible();
  // Enter while the turn runs queues; a second queued message is removed before it goes.
  await session.input.fill('not this one after all');
  await session.input.press('Enter');
  await session.input.fill('queued follow-up: and the tests?');
  await session.input.press('Enter');
  await expect(session.input).toHaveValue('');
  const queued = page.getByTestId('queued-input');
  await expect(queued).toHaveCount(2);
  await page.screenshot({ path: 'test-results/composer-queued.png' });
  await queued.filter({ hasText: 'not this one' }).getByTestId('queued-remove').click();
  await expect(queued).toHaveCount(1);
  // Nothing queued went to the model while the first turn ran.
  expect(mine()).toHaveLength(1);

  // The turn ends; the queued message goes on its own and gets its answer.
  await expect(session.transcript.getByTestId('msg-user').filter({ hasText: 'queued follow-up' })).toBeVisible({ timeout: 60_000 });
  await expect(session.transcript).toContainText('Answering the queued follow-up.', { timeout: 30_000 });
  await expect(queued).toHaveCount(0);
  await session.waitIdle();
  expect(mine().map((r) => r.userText)).toEqual([expect.stringContaining('take your time'), expect.stringContaining('queued follow-up')]);
  expect(mine().some((r) => JSON.stringify(r.body).includes('not this one'))).toBe(false);
  // The latest call's usage (~166k of Sonnet's 200k) fills the meter past the /compact hint.
  await expect(page.getByTestId('context-meter')).toContainText('/compact');

  // Up on an empty composer recalls the last input, Up again the one before, Down comes back.
  await session.input.focus();
  await session.input.press('ArrowUp');
  await expect(session.input).toHaveValue('queued follow-up: and the tests?');
  await session.input.press('ArrowUp');
  await expect(session.input).toHaveValue('Please take your time with this one');
  await session.input.press('ArrowDown');
  await session.input.press('ArrowDown');
  await expect(session.input).toHaveValue('');

  // @ opens fuzzy file completion in the session root; Tab inserts the relative path.
  await session.input.fill('explain @rdme');
  await expect(page.getByTestId('mention-menu')).toContainText('README.md');
  await page.screenshot({ path: 'test-results/composer-mention.png' });
  await session.input.press('Tab');
  await expect(session.input).toHaveValue('explain @README.md ');
  await expect(page.getByTestId('mention-menu')).toBeHidden();
  await session.input.fill('');

  // Pasting an image attaches it as a chip; it goes to the model as an image block.
  await session.input.focus();
  await pasteImage(page, 'pixel.png');
  await expect(page.getByTestId('image-chip')).toHaveCount(1);
  await expect(page.getByTestId('image-chip')).toContainText('pixel.png');
  await session.input.fill('what is in this image?');
  await page.screenshot({ path: 'test-results/composer-image-chip.png' });
  await session.input.press('Enter');
  await expect(session.transcript).toContainText('A single red pixel.', { timeout: 30_000 });
  await expect(page.getByTestId('image-chip')).toHaveCount(0);
  await expect(session.transcript.getByTestId('msg-images')).toContainText('1 image attached');
  // The transcript shows the pasted image itself, as a thumbnail served from the stored conversation.
  const thumb = session.transcript.getByTestId('msg-thumb');
  await expect(thumb).toHaveCount(1);
  await expect(thumb).toHaveAttribute('src', `data:image/png;base64,${PNG}`);
  await expect.poll(() => thumb.evaluate((el) => (el as unknown as { complete: boolean; naturalWidth: number }).naturalWidth)).toBe(1);
  await expect(thumb).toBeVisible();
  const body = mine()[2]!.body as Body;
  const last = body.messages[body.messages.length - 1]!;
  expect(last.content.map((b) => b.type)).toEqual(['image', 'text']);
  expect(last.content[0]!.source).toMatchObject({ media_type: 'image/png', data: PNG });
  await page.screenshot({ path: 'test-results/composer-image-sent.png' });
});

test('Enter while the last message is still on its way sends, once that is answered, only what was typed and attached since; Enter on the same text sends nothing twice', async ({ page }) => {
  // Between the page and the host: every agents.submit the page sends, and the host's answer to
  // the first held back until the test lets it through (a slow host, made deterministic).
  const inputs: string[] = [];
  const imageCounts: number[] = [];
  let heldId: number | null = null;
  let release: (() => void) | null = null;
  await page.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((m) => {
      if (typeof m === 'string') {
        const f = JSON.parse(m) as { type: string; id?: number; channel?: string; input?: { input?: string; images?: unknown[] } };
        if (f.type === 'invoke' && f.channel === 'agents.submit') {
          inputs.push(f.input?.input ?? '');
          imageCounts.push(f.input?.images?.length ?? 0);
          if (heldId === null) heldId = f.id!;
        }
      }
      server.send(m);
    });
    server.onMessage((m) => {
      if (typeof m === 'string' && heldId !== null && release === null) {
        const f = JSON.parse(m) as { type: string; id?: number };
        if (f.type === 'result' && f.id === heldId) {
          release = () => ws.send(m);
          return;
        }
      }
      ws.send(m);
    });
  });
  const { name } = await openBoard(page);
  const session = new SessionPage(page);
  await session.startFromProject(name);
  await expect(page.getByTestId('send')).toBeVisible();

  await session.input.fill('first, held on its way');
  await pasteImage(page, 'first.png');
  await expect(page.getByTestId('image-chip')).toHaveCount(1);
  await session.input.press('Enter');
  await expect.poll(() => release !== null).toBe(true);
  // Not answered yet: the text stays. Enter again on the same text is not a second message.
  await expect(session.input).toHaveValue('first, held on its way');
  await session.input.press('Enter');
  // Typed on after it, and Enter: this goes once the first is answered, without the first's text.
  await session.input.press('End');
  await session.input.pressSequentially(' and then typed meanwhile');
  await pasteImage(page, 'second.png');
  await expect(page.getByTestId('image-chip')).toHaveCount(2);
  await session.input.press('Enter');
  expect(inputs).toEqual(['first, held on its way']);

  release!();
  await expect.poll(() => inputs).toEqual(['first, held on its way', 'and then typed meanwhile']);
  await expect(session.input).toHaveValue('');
  await expect(page.getByTestId('image-chip')).toHaveCount(0);
  // Each image went once, with the message it was attached to.
  expect(imageCounts).toEqual([1, 1]);
  await expect(session.transcript).toContainText('The one typed meanwhile arrived.', { timeout: 30_000 });
  await session.waitIdle();
  expect(inputs).toHaveLength(2);
});

test('with notifications turned on, an approval waiting in a session that is not open shows a browser notification that opens it', async ({ page }) => {
  // The browser's Notification, recorded: permission is asked only on the click, never on load.
  await page.addInitScript(`(() => {
    window.__notes = [];
    window.__asked = 0;
    class FakeNotification {
      static permission = 'default';
      static async requestPermission() { window.__asked++; FakeNotification.permission = 'granted'; return 'granted'; }
      constructor(title, opts) { this.title = title; this.body = opts && opts.body; this.onclick = null; window.__notes.push(this); }
      close() { this.closed = true; }
    }
    window.Notification = FakeNotification;
  })()`);
  const { name } = await openBoard(page);
  expect(await page.evaluate<number>('window.__asked')).toBe(0);
  const toggle = page.getByTestId('notify-toggle');
  await expect(toggle).toHaveText('Turn on notifications');
  await toggle.click();
  await expect(toggle).toHaveText('Notifications on');
  expect(await page.evaluate<number>('window.__asked')).toBe(1);

  const session = new SessionPage(page);
  await session.startFromProject(name);
  await session.send('Please create notify.txt');
  // Leave for the board while the model is still answering.
  await page.getByRole('button', { name: 'Board' }).first().click();
  await expect.poll(() => page.evaluate<number>('window.__notes.length'), { timeout: 30_000 }).toBe(1);
  expect(await page.evaluate<string>('window.__notes[0].title + " | " + window.__notes[0].body')).toMatch(/^Approval waiting \| Please create notify\.txt: .*notify\.txt/);
  await page.evaluate('window.__notes[0].onclick()');
  await expect(session.view).toBeVisible();
  await expect(session.approval).toBeVisible();
  await page.screenshot({ path: 'test-results/composer-notification-opened.png' });
  await session.approveOnce();
  await session.waitIdle();
  // Answered in front of the user: no second notification.
  expect(await page.evaluate<number>('window.__notes.length')).toBe(1);
});

test('a running tool shows its elapsed time, and Escape in the composer interrupts the turn', async ({ page }) => {
  const { name } = await openBoard(page);
  const session = new SessionPage(page);
  await session.startFromProject(name);
  await session.send('Please wait a while');
  const card = session.lastCard('bash');
  const approve = card.getByTestId('card-approve');
  // Whether sleep asks depends on the policy preset; approve it if it does.
  await expect(card.getByTestId('tool-elapsed').or(approve)).toBeVisible({ timeout: 30_000 });
  if (await approve.isVisible()) await approve.click();
  const elapsed = card.getByTestId('tool-elapsed');
  await expect(elapsed).toHaveText(/^0:0[0-9]$/);
  await expect(elapsed).toHaveText(/^0:0[2-9]$/, { timeout: 15_000 });
  await page.screenshot({ path: 'test-results/composer-tool-elapsed.png' });
  // A hidden page (a background tab, a minimized window): the clock stops, and is right again once shown.
  const setHidden = (hidden: boolean) =>
    page.evaluate(`Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => '${hidden ? 'hidden' : 'visible'}' }); document.dispatchEvent(new Event('visibilitychange'))`);
  await setHidden(true);
  const frozen = await elapsed.textContent();
  await page.waitForTimeout(2_500);
  expect(await elapsed.textContent()).toBe(frozen);
  await setHidden(false);
  await expect(elapsed).not.toHaveText(frozen!);
  await session.input.focus();
  await session.input.press('Escape');
  await expect(page.getByTestId('send')).toBeVisible({ timeout: 15_000 });
  await expect(elapsed).toBeHidden();
});


test('a message the app cannot take stays in the composer; the error toast closes itself and never covers the buttons', async ({ page }) => {
  await page.setViewportSize({ width: 700, height: 800 });
  const { name } = await openBoard(page);
  const session = new SessionPage(page);
  await session.startFromProject(name);
  await session.send('Please hold the line');
  await expect(page.getByTestId('stop')).toBeVisible();
  // The queue takes 20 messages behind the running turn; each leaves the composer once it is queued.
  for (let k = 0; k < 20; k++) {
    await session.input.fill(`waiting message ${k}`);
    await session.input.press('Enter');
    await expect(session.input).toHaveValue('');
  }
  await expect(page.getByTestId('queued-input')).toHaveCount(20);
  // The 21st is refused by the main process: the text stays where it was typed.
  await session.input.fill('one message too many');
  await session.input.press('Enter');
  const toast = page.getByTestId('toast').filter({ hasText: 'Could not send' });
  await expect(toast).toBeVisible();
  await expect(toast).toContainText('20 messages already wait');
  await expect(session.input).toHaveValue('one message too many');
  await page.screenshot({ path: 'test-results/composer-refused-700.png' });
  const t = (await toast.boundingBox())!;
  for (const id of ['queue', 'stop']) {
    // A long queue scrolls in its own box: the composer's buttons stay on the screen.
    await expect(page.getByTestId(id)).toBeInViewport();
    const b = (await page.getByTestId(id).boundingBox())!;
    const overlaps = t.x < b.x + b.width && b.x < t.x + t.width && t.y < b.y + b.height && b.y < t.y + t.height;
    expect(overlaps, `the toast covers ${id}`).toBe(false);
  }
  // It closes itself.
  await expect(toast).toBeHidden({ timeout: 30_000 });
  await expect(session.input).toHaveValue('one message too many');

  // Stopping holds the queue (the user changed their mind); the kept text goes at once when sent.
  await page.getByTestId('stop').click();
  await expect(page.getByTestId('send')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('queue-held')).toContainText('You interrupted the turn');
  await expect(page.getByTestId('queue-held')).toBeInViewport();
  await expect(page.getByTestId('queued-input').first()).toContainText('held');
  await page.getByTestId('send').click();
  await expect(session.transcript.getByTestId('msg-user').filter({ hasText: 'one message too many' })).toBeVisible({ timeout: 30_000 });
  await expect(session.input).toHaveValue('');
  await session.waitIdle();
  // The held messages are still there, and Send now releases them one by one.
  await expect(page.getByTestId('queued-input')).toHaveCount(20);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: 'test-results/composer-held-1440.png' });
  await page.getByTestId('queued-send').click();
  await expect(session.transcript.getByTestId('msg-user').filter({ hasText: 'waiting message 0' })).toBeVisible({ timeout: 30_000 });
});

test('sending jumps to the latest message; new output while scrolled up offers "Jump to latest"', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const { name } = await openBoard(page);
  const session = new SessionPage(page);
  await session.startFromProject(name);
  await session.send('Please tell me everything');
  await expect(session.transcript).toContainText('Line 120 of a long answer.', { timeout: 30_000 });
  await session.waitIdle();
  const transcript = page.getByTestId('transcript');
  const fromBottom = () => transcript.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
  expect(await transcript.evaluate((el) => el.scrollHeight > el.clientHeight * 2)).toBe(true);

  // Scrolled up to read, then a message is sent: the view goes to the newest message.
  await transcript.evaluate((el) => el.scrollTo({ top: 0 }));
  await expect.poll(fromBottom).toBeGreaterThan(500);
  await session.input.fill('Now stream slowly please');
  await session.input.press('Enter');
  await expect(session.transcript.getByTestId('msg-user').filter({ hasText: 'stream slowly' })).toBeInViewport();
  await expect.poll(fromBottom).toBeLessThan(40);

  // Reading above while the answer streams in: the pill appears, and takes the user down.
  await expect(session.transcript).toContainText('Slow part 1.', { timeout: 30_000 });
  await transcript.evaluate((el) => el.scrollTo({ top: 0 }));
  const pill = page.getByTestId('jump-latest');
  await expect(pill).toBeVisible({ timeout: 30_000 });
  await page.screenshot({ path: 'test-results/transcript-jump-latest.png' });
  await pill.click();
  await expect(pill).toBeHidden();
  await expect.poll(fromBottom).toBeLessThan(40);
  await session.waitIdle();
});

test('what is typed and not sent stays with its session: back after another session, after a reload; sending it leaves nothing behind', async ({ page }) => {
  const { name } = await openBoard(page);
  const session = new SessionPage(page);
  await session.startFromProject(name);
  const first = new URL(page.url()).hash;
  await session.input.fill('a half-written thought\nwith a second line');

  // Another session, typed into too, then back: each box holds its own text.
  await page.getByTestId('sidebar-projects').getByRole('button', { name }).click();
  await session.newSession();
  expect(new URL(page.url()).hash).not.toBe(first);
  await expect(session.input).toHaveValue('');
  await session.input.fill('the other session’s note');
  await page.evaluate(`location.hash = ${JSON.stringify(first)}`);
  await expect(session.input).toHaveValue('a half-written thought\nwith a second line');

  // A reload, once the typing has settled: still there, in both sessions.
  await page.waitForTimeout(600);
  await page.reload();
  await expect(page.getByTestId('statusbar')).toContainText('Connected');
  await expect(session.input).toHaveValue('a half-written thought\nwith a second line');
  await page.goBack();
  await expect(session.input).toHaveValue('the other session’s note');

  // Sent, it is gone from the box for good; a box emptied by hand is empty after a reload too.
  await session.input.fill('');
  await page.evaluate(`location.hash = ${JSON.stringify(first)}`);
  await expect(session.input).toHaveValue('a half-written thought\nwith a second line');
  await session.input.fill('a draft then sent');
  await session.input.press('Enter');
  await expect(session.transcript).toContainText('The draft was sent.');
  await page.reload();
  await expect(page.getByTestId('statusbar')).toContainText('Connected');
  await expect(session.input).toHaveValue('');
  await page.goBack();
  await expect(session.input).toHaveValue('');
});

test('a message sent just before leaving the session does not come back in its box', async ({ page }) => {
  // The host's answers to sends are held back 1.5 s, so the box is gone before the answer comes.
  await page.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    const submits = new Set<number>();
    ws.onMessage((m) => {
      const f = JSON.parse(String(m)) as { type?: string; id?: number; channel?: string };
      if (f.type === 'invoke' && f.channel === 'agents.submit' && typeof f.id === 'number') submits.add(f.id);
      server.send(m);
    });
    server.onMessage((m) => {
      const f = JSON.parse(String(m)) as { type?: string; id?: number };
      if (f.type === 'result' && typeof f.id === 'number' && submits.has(f.id)) setTimeout(() => ws.send(m), 1_500);
      else ws.send(m);
    });
  });
  const { name } = await openBoard(page);
  const session = new SessionPage(page);
  await session.startFromProject(name);
  const mine = new URL(page.url()).hash;
  await session.input.fill('a message sent as I left');
  await session.input.press('Enter');
  await page.getByTestId('sidebar').getByRole('button', { name: 'Board' }).click();
  await page.waitForTimeout(2_500);
  await page.evaluate(`location.hash = ${JSON.stringify(mine)}`);
  await expect(session.transcript).toContainText('Got it while you were away.');
  await expect(session.input).toHaveValue('');
});
