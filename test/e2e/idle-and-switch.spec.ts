import { test, expect, type Locator, type Page } from '@playwright/test';
import { startHostWithLongSessions, type LongSessionsHost } from './support/long-sessions';
import type { RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { SessionPage } from './poms/session';
import { TerminalsPage } from './poms/terminals';
import { connectWsClient, stopWsClients } from '../fixtures/terminals/ws-client';

/**
 * A page left alone does nothing: no timer, interval, animation frame or observer callback runs
 * on a long session or on the Terminals view once what the last action started has settled.
 * And a terminal switched back into its pane shows its rows in the same turn as its pane appears.
 */

let seeded: LongSessionsHost;
let host: RunningHost;
let sessionId: string;
let otherId: string;
/** Longer than one read's page (5,000 events), with an old-shape event in its first page. */
let longestId: string;
const TURNS = 150;
const LONGEST_TURNS = 460;

test.beforeAll(async () => {
  seeded = await startHostWithLongSessions('fd-e2e-idle-', [
    { title: 'A long conversation', turns: TURNS },
    { title: 'Another long conversation', turns: TURNS },
    { title: 'The longest conversation', turns: LONGEST_TURNS, oldEventAfterTurn: 10 },
  ]);
  ({ host } = seeded);
  [sessionId, otherId, longestId] = seeded.ids as [string, string, string];
});

test.afterAll(async () => {
  await seeded?.stop();
});

/**
 * Counts every callback of timers, intervals, animation frames and observers the page runs, with
 * where each was scheduled (for the failure message), and every change to the DOM.
 */
async function countWakeUps(page: Page): Promise<void> {
  // A string: this config compiles without the DOM's types (the script runs in the page).
  await page.addInitScript(`(() => {
    const log = { list: [], mutations: 0 };
    globalThis.__wakeups = log;
    const RealMutationObserver = MutationObserver;
    const where = (kind) => kind + ' from ' + (new Error().stack || '').split('\\n').slice(3, 5).map((l) => l.trim()).join(' < ');
    for (const name of ['setTimeout', 'setInterval', 'requestAnimationFrame', 'requestIdleCallback']) {
      const original = globalThis[name];
      globalThis[name] = function (cb, ...rest) {
        if (typeof cb !== 'function') return original.call(globalThis, cb, ...rest);
        const at = where(name);
        return original.call(globalThis, function (...args) { log.list.push(at); return cb.apply(this, args); }, ...rest);
      };
    }
    for (const name of ['ResizeObserver', 'IntersectionObserver', 'MutationObserver']) {
      const Original = globalThis[name];
      globalThis[name] = class extends Original {
        constructor(cb, ...rest) {
          const at = where(name);
          super((...args) => { log.list.push(at); return cb(...args); }, ...rest);
        }
      };
    }
    // The DOM itself: anything that changes it while idle is work (a clock, a blinking cursor).
    const watch = () => new RealMutationObserver((records) => (log.mutations += records.length)).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    if (document.readyState === 'loading') addEventListener('DOMContentLoaded', watch);
    else watch();
  })()`);
}

/** The wake-ups and DOM changes while the page is left alone for `ms` (the wait is the test's, not the page's). */
async function wakeUpsWhileIdle(page: Page, ms: number): Promise<{ list: string[]; mutations: number }> {
  const reset = `(() => { const l = globalThis.__wakeups; l.list.length = 0; l.mutations = 0; })()`;
  await page.evaluate(reset);
  await page.waitForTimeout(ms);
  return page.evaluate(`(() => { const l = globalThis.__wakeups; return { list: [...l.list], mutations: l.mutations }; })()`);
}

/** Long enough to see any interval, animation loop or blinking cursor (xterm blinks every 600 ms). */
const IDLE_WINDOW_MS = 3_000;
/**
 * Settling after the last action: a focused field's caret and a focused terminal's cursor blink
 * until nothing has happened for 10 s (lib/caret-rest.ts, terminal-view.ts), then stop.
 */
const SETTLE_MS = 11_000;

const projectName = () => seeded.repoPath.split('/').pop()!;

/** The board, then a shell of the seeded project in the first pane, drawn by the DOM renderer (its rows readable in the page). */
async function openShellDrawnInPage(page: Page): Promise<{ terms: TerminalsPage; pane: Locator }> {
  const terms = new TerminalsPage(page);
  await new BoardPage(page).open(host.url);
  await terms.useCompatibleRendering();
  await terms.openFromCard(projectName());
  return { terms, pane: terms.pane(0) };
}

test('a page left alone does nothing, on a long session and on the Terminals view', async ({ page }) => {
  await countWakeUps(page);
  const board = new BoardPage(page);
  await board.open(host.url);
  await page.evaluate(`location.hash = '#/session/${sessionId}'`);
  const session = new SessionPage(page);
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 0:`);
  await expect(session.input).toBeFocused();
  await page.waitForTimeout(SETTLE_MS);
  await expect(page.locator('html')).toHaveClass(/caret-resting/);
  const onSession = await wakeUpsWhileIdle(page, IDLE_WINDOW_MS);
  expect(onSession.list, 'callbacks run on an idle session').toEqual([]);
  expect(onSession.mutations, 'DOM changes on an idle session').toBe(0);

  // Two shells side by side, one of them focused; WebGL as a user has it (nothing to read the
  // screen by, so the shells are left to print their prompts during the settling).
  const terms = new TerminalsPage(page);
  await board.open(host.url);
  await terms.openFromCard(projectName());
  await expect(terms.pane(0)).toHaveAttribute('data-status', 'running');
  await expect(terms.pane(0).getByTestId('xterm-host')).toHaveAttribute('data-renderer', 'webgl');
  await terms.setLayout('Two side by side');
  await terms.newShellIn(projectName());
  await expect(terms.panes).toHaveCount(2);
  await expect(terms.pane(1)).toHaveAttribute('data-status', 'running');
  await expect(terms.pane(1).getByTestId('xterm-host')).toHaveAttribute('data-renderer', 'webgl');
  await page.waitForTimeout(SETTLE_MS);
  const onTerminals = await wakeUpsWhileIdle(page, IDLE_WINDOW_MS);
  expect(onTerminals.list, 'callbacks run on an idle Terminals view').toEqual([]);
  expect(onTerminals.mutations, 'DOM changes on an idle Terminals view').toBe(0);
});

/** A shell in the first pane (as openShellDrawnInPage) that ran `command` until `printed` is on screen. */
async function shellThatPrinted(page: Page, command: string, printed: string | RegExp): Promise<{ terms: TerminalsPage; pane: Locator; id: string }> {
  const { terms, pane } = await openShellDrawnInPage(page);
  const id = (await pane.getAttribute('data-terminal-id'))!;
  await terms.type(pane, command);
  await expect(terms.screen(pane)).toContainText(printed, { timeout: 30_000 });
  return { terms, pane, id };
}

test('a terminal switched back into its pane shows its rows as soon as the pane shows it', async ({ page }) => {
  // Text drawn in the page, where the test can read it the moment the pane changes.
  const { terms, pane, id: first } = await shellThatPrinted(page, 'for i in $(seq 1 200); do echo "first-line-$i"; done', 'first-line-200');
  await terms.newShellIn(projectName());
  await expect(pane).not.toHaveAttribute('data-terminal-id', first);
  const second = (await pane.getAttribute('data-terminal-id'))!;
  await terms.type(pane, 'echo second-$((2+3))');
  await expect(terms.screen(pane)).toContainText('second-5');

  // Back and forth by address, as a link or the palette does: read the pane in the very turn it
  // starts showing the terminal, before the browser has drawn a frame.
  const rowsWhenShown = (id: string) =>
    page.evaluate<string>(`new Promise((resolve) => {
      const paneOf = () => document.querySelector('[data-testid="terminal-pane"][data-terminal-id="${id}"]');
      const watcher = new MutationObserver(() => {
        const p = paneOf();
        if (!p) return;
        watcher.disconnect();
        resolve(p.querySelector('.xterm-rows')?.textContent ?? '');
      });
      watcher.observe(document.body, { subtree: true, childList: true, attributes: true });
      location.hash = '#/terminals/${id}';
    })`);
  for (let round = 0; round < 3; round++) {
    expect(await rowsWhenShown(first)).toContain('first-line-200');
    expect(await rowsWhenShown(second)).toContain('second-5');
  }
});

test('a second terminal drawn in the page takes the glyph widths the first measured, measuring one reference character', async ({ page }) => {
  // Each measurement xterm's DOM renderer makes: the character it put in a measuring span (32
  // times) when it read the span's width, a forced layout each.
  await page.addInitScript(`(() => {
    const width = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'offsetWidth');
    globalThis.__glyphsMeasured = [];
    Object.defineProperty(HTMLElement.prototype, 'offsetWidth', { configurable: true, get() {
      if (this.classList.contains('xterm-char-measure-element')) globalThis.__glyphsMeasured.push((this.textContent || '').slice(0, 1));
      return width.get.call(this);
    } });
  })()`);
  const measured = () => page.evaluate<string[]>('globalThis.__glyphsMeasured.splice(0)');
  const line = 'printf "%s \\033[1m%s\\033[0m\\n" glyphs-abcdefghijklmnopqrstuvwxyz-0123456789 BOLD-QXZ';
  const { terms, pane } = await openShellDrawnInPage(page);
  const first = (await pane.getAttribute('data-terminal-id'))!;
  await terms.type(pane, line);
  await expect(terms.screen(pane)).toContainText('glyphs-abcdefghijklmnopqrstuvwxyz-0123456789 BOLD-QXZ');
  const byFirst = new Set(await measured());
  // The first terminal measured what it drew (a control: measurements are seen at all).
  for (const c of 'aqz09Q') expect(byFirst).toContain(c);

  await terms.newShellIn(projectName());
  await expect(pane).not.toHaveAttribute('data-terminal-id', first);
  await terms.type(pane, line);
  await expect(terms.screen(pane)).toContainText('glyphs-abcdefghijklmnopqrstuvwxyz-0123456789 BOLD-QXZ');
  // Its own renderer (a new xterm) measured only the reference it compares its font by.
  expect(new Set(await measured())).toEqual(new Set(['W']));
});

test('a session shown again opens at its newest answer in the same turn as its view', async ({ page }) => {
  const board = new BoardPage(page);
  const session = new SessionPage(page);
  await board.open(host.url);
  // Each read whole (its newest turns show first, from a short read).
  await page.evaluate(`location.hash = '#/session/${sessionId}'`);
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 0:`);
  await expect(page.getByTestId('transcript-earlier-loading')).toHaveCount(0);
  await page.evaluate(`location.hash = '#/session/${otherId}'`);
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 1:`);
  await expect(page.getByTestId('transcript-earlier-loading')).toHaveCount(0);

  // Back: the transcript read before is shown as the view appears, not after the log is read again.
  const transcriptWhenShown = (id: string) =>
    page.evaluate<string>(`new Promise((resolve) => {
      const old = document.querySelector('[data-testid="session-view"]');
      const watcher = new MutationObserver(() => {
        const v = document.querySelector('[data-testid="session-view"]');
        if (!v || v === old) return;
        watcher.disconnect();
        resolve(v.querySelector('[data-testid="transcript"]')?.textContent ?? '');
      });
      watcher.observe(document.body, { subtree: true, childList: true });
      location.hash = '#/session/${id}';
    })`);
  for (let round = 0; round < 2; round++) {
    expect(await transcriptWhenShown(sessionId)).toContain(`Turn ${TURNS} of session 0:`);
    expect(await transcriptWhenShown(otherId)).toContain(`Turn ${TURNS} of session 1:`);
  }
  // And it still follows the log: a reload reads it whole again.
  await page.reload();
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 1:`);
});

test('the first session opened after a start shows its view without a pause on an empty page, its code fetched while the page was idle', async ({ page }) => {
  const board = new BoardPage(page);
  await board.open(host.url);
  // Fetched once the board is up and the page idle, before anybody asked for a session.
  await expect.poll(() => page.evaluate<boolean>(`performance.getEntriesByType('resource').some((r) => r.name.includes('/SessionView-'))`)).toBe(true);
  await page.evaluate(`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))`);
  // Frames painted after the switch before one holds the session's view (each read in a task right after it).
  const framesBefore = await page.evaluate<number>(`new Promise((resolve) => {
    let frames = 0;
    const after = new MessageChannel();
    after.port1.onmessage = () => {
      if (document.querySelector('[data-testid="session-view"]')) return resolve(frames);
      frames++;
      requestAnimationFrame(() => after.port2.postMessage(0));
    };
    location.hash = '#/session/${sessionId}';
    requestAnimationFrame(() => after.port2.postMessage(0));
  })`);
  // React.lazy suspends on a first render even with its code loaded, and holds the empty
  // fallback for 300 ms: the view came some 18 frames late. Now it is there as soon as React
  // has rendered the switch (a frame or two: React schedules the render in a task of its own).
  expect(framesBefore, 'frames painted without the session view').toBeLessThan(6);
  await expect(new SessionPage(page).transcript).toContainText(`Turn ${TURNS} of session 0:`);
});

test('a long session opened shows its newest turns from a short read, then reads the rest in one request before its changes are listed', async ({ page }) => {
  // What the page asks the host, in order (the requests go out on its socket).
  const asked: Array<{ channel: string; input: Record<string, unknown> }> = [];
  page.on('websocket', (ws) =>
    ws.on('framesent', (f) => {
      const frame = JSON.parse(String(f.payload)) as { type?: string; channel?: string; input?: Record<string, unknown> };
      if (frame.type === 'invoke' && frame.channel) asked.push({ channel: frame.channel, input: frame.input ?? {} });
    }),
  );
  const reads = () => asked.filter((a) => a.channel === 'agents.events.read').map((a) => a.input);
  const board = new BoardPage(page);
  const session = new SessionPage(page);
  await board.open(host.url);
  asked.length = 0;
  await page.evaluate(`location.hash = '#/session/${sessionId}'`);
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 0:`);
  // The Changes button's count comes once the page is idle and the conversation is read.
  await expect.poll(() => asked.some((a) => a.channel === 'changes.list')).toBe(true);
  await expect(page.getByTestId('transcript-earlier-loading')).toHaveCount(0);
  // 1,650 events: the newest turns first, then all of it in one read (a page holds 5,000).
  // Listing changes runs git on the host, which the reads would wait behind.
  expect(reads()).toEqual([expect.objectContaining({ lastTurns: 20 }), expect.objectContaining({ fromSeq: 1 })]);
  expect(reads()[1]).not.toHaveProperty('lastTurns');
  const lastRead = asked.map((a) => a.channel).lastIndexOf('agents.events.read');
  expect(lastRead).toBeLessThan(asked.findIndex((a) => a.channel === 'changes.list'));
  await expect(session.transcript.getByTestId('turn-menu').first()).toBeAttached();
});

type ReadInput = { sessionId?: string; fromSeq?: number; lastTurns?: number; limit?: number };

/**
 * Between the page and the host: records every invoke, and answers each `agents.events.read`
 * as `decide` says: passed on, held back until released (a slow host, made deterministic), or
 * answered with an error (a host that failed it).
 */
async function routeReads(page: Page, decide: (input: ReadInput) => 'pass' | 'hold' | 'fail') {
  const invokes: Array<{ channel: string; input: ReadInput }> = [];
  const held: Array<{ input: ReadInput; release: () => void }> = [];
  let toPage: ((frame: unknown) => void) | null = null;
  await page.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    toPage = (frame) => ws.send(JSON.stringify(frame));
    const hold = new Map<number, ReadInput>();
    ws.onMessage((m) => {
      if (typeof m === 'string') {
        const f = JSON.parse(m) as { type: string; id?: number; channel?: string; input?: ReadInput };
        if (f.type === 'invoke' && f.channel) {
          invokes.push({ channel: f.channel, input: f.input ?? {} });
          const what = f.channel === 'agents.events.read' ? decide(f.input ?? {}) : 'pass';
          if (what === 'fail') return void ws.send(JSON.stringify({ type: 'result', id: f.id, result: { ok: false, error: { code: 'internal', message: 'the disk is gone' } } }));
          if (what === 'hold') hold.set(f.id!, f.input ?? {});
        }
      }
      server.send(m);
    });
    server.onMessage((m) => {
      if (typeof m === 'string' && m.startsWith('{"type":"result"')) {
        const id = (JSON.parse(m) as { id: number }).id;
        const input = hold.get(id);
        if (input) {
          hold.delete(id);
          return void held.push({ input, release: () => ws.send(m) });
        }
      }
      ws.send(m);
    });
  });
  const reads = () => invokes.filter((i) => i.channel === 'agents.events.read').map((i) => i.input);
  /** A live event of a session, as the host publishes one (on the page's current connection). */
  const publish = (event: { sessionId: string; seq: number; data: Record<string, unknown> }) =>
    toPage?.({ type: 'event', topic: 'agents.event', key: event.sessionId, payload: { ts: Date.now(), turnId: null, ...event } });
  return { invokes, held, reads, publish };
}

/**
 * Lets every held answer through, gives the page time for the tasks they arrive in (they fold
 * into the cache there, even without a view), and forgets the requests made so far.
 */
async function releaseHeld(page: Page, route: Awaited<ReturnType<typeof routeReads>>): Promise<void> {
  route.held.splice(0).forEach((h) => h.release());
  await page.evaluate('new Promise((r) => setTimeout(r, 200))');
  route.invokes.length = 0;
}

/** The whole-log read of a first open: from seq 1, not the short read of the newest turns. */
const wholeRead = (i: ReadInput, id: string) => i.sessionId === id && i.lastTurns === undefined && i.fromSeq === 1;

/**
 * The other long session opened with the read of the rest of it held back: its newest turns
 * are on screen, "loading earlier turns…" shows, and the held read waits in `route.held`.
 * `holding.off()` lets later reads through (the held one stays held until released).
 */
async function openOtherWithRestHeld(page: Page) {
  let holding = true;
  const route = await routeReads(page, (i) => (holding && wholeRead(i, otherId) ? 'hold' : 'pass'));
  const session = new SessionPage(page);
  await new BoardPage(page).open(host.url);
  await page.evaluate(`location.hash = '#/session/${otherId}'`);
  await expect(page.getByTestId('transcript-earlier-loading')).toBeVisible();
  await expect.poll(() => route.held.length).toBe(1);
  return { route, session, holding: { off: () => void (holding = false) } };
}

test('a long session left while the rest of it is read keeps it once it comes: coming back reads only what came after', async ({ page }) => {
  const { route, session, holding } = await openOtherWithRestHeld(page);
  // Its newest turns, shown while the rest is read: no turn menus yet (a turn's number counts the turns before it).
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 1:`);
  await expect(session.transcript.getByTestId('turn-menu')).toHaveCount(0);
  // The user moves on before the rest arrives.
  await page.evaluate(`location.hash = '#/session/${sessionId}'`);
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 0:`);
  holding.off();
  // The answer reaches a page without that view.
  await releaseHeld(page, route);
  await page.evaluate(`location.hash = '#/session/${otherId}'`);
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 1:`);
  await expect(page.getByTestId('transcript-earlier-loading')).toHaveCount(0);
  await expect(session.transcript.getByTestId('turn-menu').first()).toBeAttached();
  // Only what came after the kept fold: no short read, no read from the start.
  expect(route.reads()).toEqual([{ sessionId: otherId, fromSeq: 1_651, limit: 5_000 }]);
});

test('of two long sessions left while read, only the first reads on for the cache: going through sessions quickly queues one whole-log read, not one per session', async ({ page }) => {
  let holding = true;
  const route = await routeReads(page, (i) => (holding && (wholeRead(i, otherId) || wholeRead(i, sessionId)) ? 'hold' : 'pass'));
  const board = new BoardPage(page);
  const session = new SessionPage(page);
  await board.open(host.url);
  await page.evaluate(`location.hash = '#/session/${otherId}'`);
  await expect(page.getByTestId('transcript-earlier-loading')).toBeVisible();
  await page.evaluate(`location.hash = '#/session/${sessionId}'`);
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 0:`);
  await expect(page.getByTestId('transcript-earlier-loading')).toBeVisible();
  await expect.poll(() => route.held.length).toBe(2);
  await page.evaluate(`location.hash = '#/'`);
  await expect(session.transcript).toHaveCount(0);
  holding = false;
  await releaseHeld(page, route);
  // The first one left was read on and kept; the second was not.
  await page.evaluate(`location.hash = '#/session/${otherId}'`);
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 1:`);
  await page.evaluate(`location.hash = '#/session/${sessionId}'`);
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 0:`);
  await expect(page.getByTestId('transcript-earlier-loading')).toHaveCount(0);
  expect(route.reads()).toEqual([
    { sessionId: otherId, fromSeq: 1_651, limit: 5_000 },
    { sessionId, lastTurns: 20, limit: 5_000 },
    { sessionId, fromSeq: 1, limit: 1_650 - 20 * 11 },
  ]);
});

test('a reader who scrolled up in a long session’s newest turns keeps their place when the earlier turns arrive above', async ({ page }) => {
  const { route, session, holding } = await openOtherWithRestHeld(page);
  // Up by a few screens, to an answer of an earlier turn of the tail.
  const topRow = () =>
    page.evaluate<{ text: string; top: number }>(`(() => {
      const box = document.querySelector('[data-testid="transcript"]').getBoundingClientRect();
      const rows = [...document.querySelectorAll('.transcript-row')].filter((r) => r.getBoundingClientRect().top >= box.top && r.textContent.trim() !== '');
      rows.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top);
      return { text: rows[0].textContent.slice(0, 80), top: Math.round(rows[0].getBoundingClientRect().top - box.top) };
    })()`);
  await session.transcript.evaluate((el) => el.scrollBy(0, -2_500));
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  const before = await topRow();
  holding.off();
  route.held.shift()!.release();
  await expect(page.getByTestId('transcript-earlier-loading')).toHaveCount(0);
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  expect(await topRow()).toEqual(before);
  // Nothing new below: no "Jump to latest".
  await expect(page.getByTestId('jump-latest')).toHaveCount(0);
});

test('a long session opened again while its earlier view still reads it lists its changes only after both reads', async ({ page }) => {
  let holding = true;
  // The first view's whole-log read, and the second view's read of what came after it.
  const route = await routeReads(page, (i) => (holding && (wholeRead(i, otherId) || (i.sessionId === otherId && i.fromSeq === 1_651)) ? 'hold' : 'pass'));
  const changesOfOther = () => route.invokes.filter((i) => i.channel === 'changes.list' && i.input.sessionId === otherId).length;
  const board = new BoardPage(page);
  const session = new SessionPage(page);
  await board.open(host.url);
  await page.evaluate(`location.hash = '#/session/${otherId}'`);
  await expect(page.getByTestId('transcript-earlier-loading')).toBeVisible();
  await expect.poll(() => route.held.length).toBe(1);
  // Away and back while the first view's whole-log read is still out: a second view reads it too
  // (it waits for the first one's fold, then reads what came after).
  await page.evaluate(`location.hash = '#/session/${sessionId}'`);
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 0:`);
  await page.evaluate(`location.hash = '#/session/${otherId}'`);
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 1:`);
  // The first view's read comes back; the second is still reading: its git listing waits.
  route.held.shift()!.release();
  await expect.poll(() => route.held.length).toBe(1);
  await page.evaluate('new Promise((r) => setTimeout(r, 1_500))');
  expect(changesOfOther(), 'changes listed while the view still read its conversation').toBe(0);
  holding = false;
  route.held.shift()!.release();
  await expect(page.getByTestId('transcript-earlier-loading')).toHaveCount(0);
  await expect.poll(changesOfOther).toBe(1);
});

test('a session longer than a page whose first page leaves an old event out is read to its end, with and without its short read', async ({ page }) => {
  let failTail = true;
  const route = await routeReads(page, (i) => (failTail && i.sessionId === longestId && i.lastTurns !== undefined ? 'fail' : 'pass'));
  const board = new BoardPage(page);
  const session = new SessionPage(page);
  await board.open(host.url);
  // Without the short read: pages of 5,000 rows; the first holds 4,999 events (one left out) and is not the end.
  await page.evaluate(`location.hash = '#/session/${longestId}'`);
  await expect(session.transcript).toContainText(`Turn ${LONGEST_TURNS} of session 2:`);
  expect(route.reads().filter((r) => r.lastTurns === undefined)).toEqual([
    { sessionId: longestId, fromSeq: 1, limit: 5_000 },
    { sessionId: longestId, fromSeq: 5_001, limit: 5_000 },
  ]);
  // With it, in a page of its own: the rest is read up to the tail, the old event left out.
  failTail = false;
  await page.evaluate(`location.hash = '#/'`);
  await page.reload();
  await page.getByTestId('sidebar').waitFor();
  route.invokes.length = 0;
  await page.evaluate(`location.hash = '#/session/${longestId}'`);
  await expect(session.transcript).toContainText(`Turn ${LONGEST_TURNS} of session 2:`);
  await expect(page.getByTestId('transcript-earlier-loading')).toHaveCount(0);
  await expect(session.transcript.getByTestId('turn-menu').first()).toBeAttached();
  const tailStart = LONGEST_TURNS * 11 + 1 - 20 * 11 + 1;
  expect(route.reads()).toEqual([
    { sessionId: longestId, lastTurns: 20, limit: 5_000 },
    { sessionId: longestId, fromSeq: 1, limit: tailStart - 1 },
  ]);
});

test('a long session opened again while its earlier view reads the rest for the cache waits for that read instead of reading the whole log again', async ({ page }) => {
  const { route, session, holding } = await openOtherWithRestHeld(page);
  holding.off();
  await page.evaluate(`location.hash = '#/session/${sessionId}'`);
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 0:`);
  route.invokes.length = 0;
  // Back while the first view's read (now for the cache) is still out.
  await page.evaluate(`location.hash = '#/session/${otherId}'`);
  await expect(page.getByTestId('transcript-earlier-loading')).toBeVisible();
  route.held.shift()!.release();
  await expect(page.getByTestId('transcript-earlier-loading')).toHaveCount(0);
  await expect(session.transcript.getByTestId('turn-menu').first()).toBeAttached();
  // Its own short read, then only what came after the fold the first view kept.
  expect(route.reads()).toEqual([
    { sessionId: otherId, lastTurns: 20, limit: 5_000 },
    { sessionId: otherId, fromSeq: 1_651, limit: 5_000 },
  ]);
});

test('live events do not go onto the newest turns alone when the rest could not be read: they wait for the whole log', async ({ page }) => {
  let failWhole = true;
  const route = await routeReads(page, (i) => (failWhole && wholeRead(i, otherId) ? 'fail' : 'pass'));
  const board = new BoardPage(page);
  const session = new SessionPage(page);
  await board.open(host.url);
  await page.evaluate(`location.hash = '#/session/${otherId}'`);
  const failed = page.getByTestId('transcript-earlier-failed');
  await expect(failed).toBeVisible();
  const whole = () => route.reads().filter((r) => wholeRead(r, otherId)).length;
  const tried = whole();
  // The agent goes on meanwhile: its next event is held and the log read again (which fails again).
  route.publish({ sessionId: otherId, seq: 1_651, data: { type: 'notice', level: 'info', text: 'live-after-the-tail' } });
  await expect.poll(whole).toBeGreaterThan(tried);
  await expect(failed).toBeVisible();
  await expect(session.transcript).not.toContainText('live-after-the-tail');
  failWhole = false;
  await failed.getByRole('button', { name: 'Try again' }).click();
  await expect(failed).toHaveCount(0);
  // The whole log, then the held event after it.
  await expect(session.transcript).toContainText('live-after-the-tail');
  await expect(session.transcript.getByTestId('turn-menu').first()).toBeAttached();
});

test('a conversation shown from before that cannot be brought up to date says so and tries again', async ({ page }) => {
  let failing = false;
  const route = await routeReads(page, (i) => (failing && i.sessionId === sessionId ? 'fail' : 'pass'));
  const board = new BoardPage(page);
  const session = new SessionPage(page);
  await board.open(host.url);
  await page.evaluate(`location.hash = '#/session/${sessionId}'`);
  await expect(session.transcript.getByTestId('turn-menu').first()).toBeAttached();
  await page.evaluate(`location.hash = '#/session/${otherId}'`);
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 1:`);
  // Back to the first: shown from the cache at once, and its catch-up fails.
  failing = true;
  route.invokes.length = 0;
  await page.evaluate(`location.hash = '#/session/${sessionId}'`);
  const failed = page.getByTestId('transcript-newest-failed');
  await expect(failed).toContainText('the newest events could not be read');
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 0:`);
  failing = false;
  await failed.getByRole('button', { name: 'Try again' }).click();
  await expect(failed).toHaveCount(0);
  expect(route.reads()).toEqual([
    { sessionId, fromSeq: 1_651, limit: 5_000 },
    { sessionId, fromSeq: 1_651, limit: 5_000 },
  ]);
});

test('a long session whose short read fails opens from the whole log, and one whose whole read fails says so and tries again', async ({ page }) => {
  let failTail = true;
  let failWhole = false;
  const route = await routeReads(page, (i) => {
    if (failTail && i.sessionId === sessionId && i.lastTurns !== undefined) return 'fail';
    if (failWhole && wholeRead(i, otherId)) return 'fail';
    return 'pass';
  });
  const board = new BoardPage(page);
  const session = new SessionPage(page);
  await board.open(host.url);
  await page.evaluate(`location.hash = '#/session/${sessionId}'`);
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 0:`);
  await expect(session.transcript.getByTestId('turn-menu').first()).toBeAttached();
  expect(route.reads().filter((r) => r.sessionId === sessionId)).toEqual([expect.objectContaining({ lastTurns: 20 }), expect.objectContaining({ fromSeq: 1, limit: 5_000 })]);

  failTail = false;
  failWhole = true;
  await page.evaluate(`location.hash = '#/session/${otherId}'`);
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 1:`);
  const failed = page.getByTestId('transcript-earlier-failed');
  await expect(failed).toContainText('earlier turns could not be read');
  await expect(session.transcript.getByTestId('turn-menu')).toHaveCount(0);
  failWhole = false;
  await failed.getByRole('button', { name: 'Try again' }).click();
  await expect(failed).toHaveCount(0);
  await expect(page.getByTestId('transcript-earlier-loading')).toHaveCount(0);
  await expect(session.transcript.getByTestId('turn-menu').first()).toBeAttached();
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 1:`);
});

test('a focused terminal drawn in the page blinks its cursor without an animation run at the frame rate', async ({ page }) => {
  const { terms, pane } = await openShellDrawnInPage(page);
  await terms.type(pane, 'echo blink-$((4+5))');
  await expect(terms.screen(pane)).toContainText('blink-9');
  const cursor = pane.locator('.xterm-rows.xterm-focus .xterm-cursor.xterm-cursor-blink');
  await expect(cursor).toHaveCount(1);
  // xterm's own blink is a CSS animation, which Chromium steps through every frame.
  expect(await page.evaluate(`document.getAnimations().length`), 'animations running in the page').toBe(0);
  // It still blinks: hidden for half a second, then shown, and so on.
  const hidden = () =>
    page.evaluate<boolean>(`(() => {
      const el = document.querySelector('.xterm-rows.xterm-focus .xterm-cursor.xterm-cursor-blink');
      return getComputedStyle(el).backgroundColor === getComputedStyle(el.parentElement).backgroundColor;
    })()`);
  await expect.poll(hidden, { intervals: [100] }).toBe(true);
  await expect.poll(hidden, { intervals: [100] }).toBe(false);
  await expect.poll(hidden, { intervals: [100] }).toBe(true);
});

test('a terminal parked while hidden comes back with its rows, and goes on', async ({ page }) => {
  const { terms, pane, id: first } = await shellThatPrinted(page, 'for i in $(seq 1 300); do echo "kept-line-$i"; done', 'kept-line-300');
  // Marks this xterm's element: a view kept live comes back with the mark, a parked one without.
  await page.evaluate(`document.querySelector('[data-terminal-id="${first}"] .xterm-view').dataset.mark = 'live'`);
  // Seven more shells through the same pane: past six hidden views, the one hidden longest is parked.
  for (let i = 0; i < 7; i++) {
    const before = await pane.getAttribute('data-terminal-id');
    await terms.newShellIn(projectName());
    await expect(pane).not.toHaveAttribute('data-terminal-id', before!);
  }
  await page.evaluate(`location.hash = '#/terminals/${first}'`);
  await expect(pane).toHaveAttribute('data-terminal-id', first);
  await expect(terms.screen(pane)).toContainText('kept-line-300');
  expect(await page.evaluate(`document.querySelector('[data-terminal-id="${first}"] .xterm-view').dataset.mark ?? null`), 'a new xterm, not the live one').toBeNull();
  // A short history it held whole: replayed from the main process, nothing kept while parked.
  await expect(pane.locator('.xterm-view')).toHaveAttribute('data-parked-as', 'replay');
  await expect(pane).not.toContainText('too old to replay');
  // The replay ended where the stream goes on: what is typed now is echoed once, after it.
  await terms.type(pane, 'echo "after-$((20+3))"');
  await expect(terms.screen(pane)).toContainText('after-23');
  const rows = await terms.screen(pane).innerText();
  expect(rows.split('kept-line-300').length - 1).toBe(1);
  expect(rows.indexOf('kept-line-300')).toBeLessThan(rows.indexOf('after-23'));
});

/**
 * Goes to a terminal by its address and follows it until `marker` is drawn: each different text
 * its rows showed in a painted frame (read in a task right after each frame), and how many times
 * its scrollbar was changed on the way (xterm updates it for every line scrolled while open).
 */
function showUntil(page: Page, id: string, marker: string): Promise<{ painted: string[]; scrollbarChanges: number }> {
  return page.evaluate<{ painted: string[]; scrollbarChanges: number }>(`new Promise((resolve) => {
    const painted = [];
    let scrollbarChanges = 0;
    const pane = () => document.querySelector('[data-testid="terminal-pane"][data-terminal-id="${id}"]');
    const changes = new MutationObserver((records) => {
      for (const r of records) if (r.target instanceof Element && r.target.closest('[data-terminal-id="${id}"] .scrollbar')) scrollbarChanges++;
    });
    changes.observe(document.body, { subtree: true, attributes: true });
    const afterFrame = new MessageChannel();
    afterFrame.port1.onmessage = () => {
      const text = pane()?.querySelector('.xterm-rows')?.textContent ?? '';
      if (text.trim() !== '' && painted[painted.length - 1] !== text) painted.push(text);
      if (!text.includes(${JSON.stringify(marker)})) return requestAnimationFrame(() => afterFrame.port2.postMessage(0));
      changes.disconnect();
      resolve({ painted, scrollbarChanges });
    };
    location.hash = '#/terminals/${id}';
    requestAnimationFrame(() => afterFrame.port2.postMessage(0));
  })`);
}

test('a page opened again shows a long terminal at its end from its first painted row, without scrolling through its history', async ({ page }) => {
  const { terms, pane, id } = await shellThatPrinted(page, 'for i in $(seq 1 5000); do echo "history-line-$i of a long build log"; done; echo "end-of-$((6*7))"', 'end-of-42');
  // A new page (as after a restart): the terminal's view is new and replays all 5,000 lines.
  await page.reload();
  await page.getByTestId('sidebar').waitFor();
  const shown = await showUntil(page, id, 'end-of-42');
  // Opened once it had parsed its history: its scrollbar was set up for the whole of it, not
  // moved for each of its lines, and no frame showed a part of the log on the way to its end.
  expect(shown.scrollbarChanges).toBeLessThan(50);
  expect(shown.painted[0], 'the first rows painted').toContain('end-of-42');
  // And it works on: focused, typing goes to it.
  await terms.type(pane, 'echo "after-$((7*7))"');
  await expect(terms.screen(pane)).toContainText('after-49');
});

/** The cell size a page keeps for sizing new terminals before they open (terminal-view.ts). */
const CELL_METRICS_KEY = 'flightdeck.terminals.cellMetrics';

test('the first terminal a new install shows (no cell size kept yet) parses its history before it opens, too', async ({ page }) => {
  const { id } = await shellThatPrinted(page, 'for i in $(seq 1 3000); do echo "fresh-line-$i of a long build log"; done; echo "fresh-end-$((6*7))"', 'fresh-end-42');
  // As on a new install: nothing measured yet. The new page never has an idle moment, so the
  // warm-up (which would measure the cell first) does not run: the view measures it itself.
  await page.addInitScript(`window.requestIdleCallback = () => 0; window.cancelIdleCallback = () => undefined;`);
  // On the board, so the new page shows no terminal until the test goes to one.
  await page.evaluate(`localStorage.removeItem('${CELL_METRICS_KEY}'); location.hash = '#/'`);
  await page.reload();
  await page.getByTestId('sidebar').waitFor();
  const shown = await showUntil(page, id, 'fresh-end-42');
  expect(shown.scrollbarChanges).toBeLessThan(50);
  expect(shown.painted[0], 'the first rows painted').toContain('fresh-end-42');
  // What it measured is kept for the next one.
  expect(await page.evaluate(`localStorage.getItem('${CELL_METRICS_KEY}')`)).toContain('cellWidth');
});

test('a page with terminals warms their code up once it has settled: the cell size is measured and the throwaway terminal is gone', async ({ page }) => {
  const { id } = await shellThatPrinted(page, 'for i in $(seq 1 3000); do echo "warm-line-$i of a long build log"; done; echo "warm-end-$((6*7))"', 'warm-end-42');
  // On the board, so the new page shows no terminal until the test goes to one.
  await page.evaluate(`localStorage.removeItem('${CELL_METRICS_KEY}'); location.hash = '#/'`);
  await page.reload();
  await page.getByTestId('sidebar').waitFor();
  // No terminal shown in this page: only the warm-up measures and keeps the cell size.
  await expect.poll(() => page.evaluate(`localStorage.getItem('${CELL_METRICS_KEY}')`), { timeout: 15_000 }).toContain('cellWidth');
  await expect(page.locator('.xterm-host[aria-hidden="true"]')).toHaveCount(0);
  await expect(page.locator('.xterm')).toHaveCount(0);
  const shown = await showUntil(page, id, 'warm-end-42');
  expect(shown.painted[0], 'the first rows painted').toContain('warm-end-42');
});

/** Seven more shells through the same pane: past six hidden views, the one hidden longest (the first) is parked. */
async function parkByOpeningSeven(terms: TerminalsPage, pane: Locator): Promise<void> {
  for (let i = 0; i < 7; i++) {
    const before = await pane.getAttribute('data-terminal-id');
    await terms.newShellIn(projectName());
    await expect(pane).not.toHaveAttribute('data-terminal-id', before!);
  }
}

/**
 * Records the page's terminal and session requests as they go out on its socket, with whether
 * the view they are for was in the page at that moment (`shown`).
 */
async function recordRequestsWithView(page: Page): Promise<void> {
  await page.addInitScript(`(() => {
    globalThis.__requests = [];
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (d) {
      if (typeof d === 'string' && d.startsWith('{')) {
        const f = JSON.parse(d);
        if (f.type === 'invoke' && f.input && /^(terminals\\.(attach|resize)|agents\\.events\\.read)$/.test(f.channel)) {
          const view = f.channel === 'agents.events.read' ? '[data-testid="session-view"]' : '[data-testid="terminal-pane"][data-terminal-id="' + f.input.id + '"]';
          globalThis.__requests.push({ channel: f.channel, input: f.input, shown: document.querySelector(view) !== null });
        }
      }
      return send.call(this, d);
    };
  })()`);
}
type SentRequest = { channel: string; input: Record<string, unknown>; shown: boolean };
const sentRequests = (page: Page) => page.evaluate<SentRequest[]>(`globalThis.__requests`);

test('a terminal opened by its address asks for its history before its pane is drawn, parses it at the pane’s size and sizes its pty to that alone', async ({ page }) => {
  await recordRequestsWithView(page);
  const { terms, pane, id: first } = await shellThatPrinted(page, 'for i in $(seq 1 3000); do echo "ahead-line-$i"; done; echo "ahead-end-$((6*7))"', 'ahead-end-42');
  await terms.newShellIn(projectName());
  await expect(pane).not.toHaveAttribute('data-terminal-id', first);
  // A new page (as after a restart), on the Terminals view: the first terminal has no view here.
  await page.reload();
  await page.getByTestId('terminals-view').waitFor();
  await expect(terms.screen(pane)).toContainText(/\S/);

  await page.evaluate(`location.hash = '#/terminals/${first}'`);
  await expect(terms.screen(pane)).toContainText('ahead-end-42');
  const asked = (await sentRequests(page)).filter((r) => r.input.id === first);
  // The attach went out as the app went to the terminal, before React drew its pane (the pane's
  // own effect would have asked with the pane in the page).
  expect(asked[0], 'the first request for the terminal').toMatchObject({ channel: 'terminals.attach', shown: false });
  expect(asked.filter((r) => r.channel === 'terminals.attach')).toHaveLength(1);
  // Parsed at the pane's size: the pty was never sized to xterm's 80×24 on the way, only to the pane.
  await terms.type(pane, 'echo "pty-$(stty size | tr " " x)-size"');
  const size = /pty-(\d+)x(\d+)-size/;
  await expect(terms.screen(pane)).toContainText(size);
  const [rows, cols] = (await terms.screen(pane).innerText()).match(size)!.slice(1).map(Number);
  expect(cols, 'the pane is wider than 80 columns').toBeGreaterThan(80);
  const resizes = asked.filter((r) => r.channel === 'terminals.resize').map((r) => r.input);
  expect(resizes.length).toBeGreaterThan(0);
  for (const r of resizes) expect(r).toMatchObject({ cols, rows });
});

test('a terminal first shown after its scrollback was read ahead asks only for what came after it, and shows all of it once', async ({ page }) => {
  const { terms, pane, id: first } = await shellThatPrinted(
    page,
    'for i in $(seq 1 20); do echo "read-ahead-line-$i"; done; echo "read-ahead-end-$((6*7))"; read go; echo "printed-after-the-read-$((7*7))"',
    'read-ahead-end-42',
  );
  await terms.newShellIn(projectName());
  await expect(pane).not.toHaveAttribute('data-terminal-id', first);
  // The new page's terminal requests and the answers to its reads ahead, as they cross its socket (the old page's sockets are not watched).
  const readAhead = new Map<number, string>();
  const answered = new Map<string, number>();
  const attaches: Array<Record<string, unknown>> = [];
  const frame = (payload: string | Buffer) => {
    if (typeof payload !== 'string' || !payload.startsWith('{')) return null;
    return JSON.parse(payload) as { type: string; id: number; channel?: string; input?: Record<string, unknown>; result?: { ok: boolean; value?: { end?: number } } };
  };
  page.on('websocket', (ws) => {
    ws.on('framesent', (f) => {
      const m = frame(f.payload);
      if (m?.type === 'invoke' && m.channel === 'terminals.history') readAhead.set(m.id, String(m.input!.id));
      if (m?.type === 'invoke' && m.channel === 'terminals.attach') attaches.push(m.input!);
    });
    ws.on('framereceived', (f) => {
      const m = frame(f.payload);
      const id = m?.type === 'result' ? readAhead.get(m.id) : undefined;
      if (id && m!.result?.ok) answered.set(id, m!.result.value!.end!);
    });
  });
  // A new page (as after a restart): once it has settled, it reads the scrollback of the terminal it has no view of.
  await page.reload();
  await page.getByTestId('terminals-view').waitFor();
  await expect.poll(() => answered.has(first), { timeout: 20_000 }).toBe(true);
  expect(answered.get(first)).toBeGreaterThan(20 * 'read-ahead-line-1\r\n'.length);

  // Then the program prints more, and the user goes to the terminal.
  const url = new URL(host.url);
  const client = connectWsClient(Number(url.port), url.searchParams.get('token') ?? '');
  try {
    await client.invoke('terminals.write', { id: first, data: 'go\r' });
    await expect.poll(async () => (await client.invoke('terminals.history', { id: first }))?.data.includes('printed-after-the-read-49'), { timeout: 10_000 }).toBe(true);
  } finally {
    stopWsClients();
  }
  const before = attaches.length;
  await page.evaluate(`location.hash = '#/terminals/${first}'`);
  await expect(terms.screen(pane)).toContainText('printed-after-the-read-49');
  // One attach, from where the read ahead ended: what came after it is all that was asked for.
  expect(attaches.slice(before).filter((a) => a.id === first)).toEqual([{ id: first, since: answered.get(first) }]);
  // The read ahead and what came after, each line once, in order (all of it fits on the screen).
  const lines = (await terms.screen(pane).innerText()).split('\n').map((l) => l.trim());
  const printed = lines.filter((l) => /^(read-ahead-line-\d+|read-ahead-end-42|printed-after-the-read-49)$/.test(l));
  expect(printed).toEqual([...Array.from({ length: 20 }, (_, i) => `read-ahead-line-${i + 1}`), 'read-ahead-end-42', 'printed-after-the-read-49']);
});

test('a terminal that ended while hidden shows its end line when its pane comes back to it, after another that ended with the same code', async ({ page }) => {
  // Shown first, then hidden (its view stays live) by a second shell in the same pane.
  const { terms, pane, id: hidden } = await shellThatPrinted(page, 'echo "ends-while-hidden-$((6*7))"', 'ends-while-hidden-42');
  await terms.newShellIn(projectName());
  await expect(pane).not.toHaveAttribute('data-terminal-id', hidden);
  // It ends while hidden (typed through another client)...
  const url = new URL(host.url);
  const client = connectWsClient(Number(url.port), url.searchParams.get('token') ?? '');
  try {
    await client.invoke('terminals.write', { id: hidden, data: 'exit 3\r' });
    await expect.poll(async () => (await client.invoke('terminals.list', {})).find((t) => t.id === hidden)?.status, { timeout: 10_000 }).toBe('exited');
  } finally {
    stopWsClients();
  }
  // ...and the one on screen ends too, with the same code: the pane's end label does not change.
  await terms.type(pane, 'exit 3');
  await expect(terms.screen(pane)).toContainText('[exited with code 3]');
  await page.locator(`[data-testid="terminal-tab"][data-terminal-id="${hidden}"]`).click();
  await expect(pane).toHaveAttribute('data-terminal-id', hidden);
  await expect(terms.screen(pane)).toContainText('ends-while-hidden-42');
  await expect(terms.screen(pane)).toContainText('[exited with code 3]');
});

test('an ended terminal with a long history shows its end line last, after the whole replayed history', async ({ page }) => {
  const { id } = await shellThatPrinted(page, 'for i in $(seq 1 3000); do echo "ended-line-$i"; done; echo "ended-$((6*7))"; exit 3', '[exited with code 3]');
  // A new page: the history is replayed (in pieces through the view's scheduler), then the end line.
  await page.reload();
  await page.getByTestId('sidebar').waitFor();
  await page.evaluate(`location.hash = '#/terminals/${id}'`);
  const shown = page.locator(`[data-testid="terminal-pane"][data-terminal-id="${id}"] .xterm-rows`);
  await expect(shown).toContainText('[exited with code 3]');
  const lines = (await shown.innerText())
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  // The history's end (the shell says "exit" as it goes), then the end line.
  expect(lines.slice(-3)).toEqual(['ended-42', 'exit', '[exited with code 3]']);
});

/** Another session first (the session view's code is loaded, as in a page used a while), then the board again. */
async function boardAfterAnotherSession(page: Page, session: SessionPage): Promise<void> {
  await new BoardPage(page).open(host.url);
  await page.evaluate(`location.hash = '#/session/${otherId}'`);
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 1:`);
  await page.evaluate(`location.hash = '#/'`);
  await expect(page.getByTestId('session-view')).toHaveCount(0);
}

test('a session opened by its address asks for its newest turns before its view is drawn, once', async ({ page }) => {
  await recordRequestsWithView(page);
  const session = new SessionPage(page);
  await boardAfterAnotherSession(page, session);
  await page.evaluate(`location.hash = '#/session/${sessionId}'`);
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 0:`);
  const reads = (await sentRequests(page)).filter((r) => r.channel === 'agents.events.read' && r.input.sessionId === sessionId);
  // Asked as the app went to the session, not by the view's effect once it was in the page; and
  // the view took that read instead of asking again.
  expect(reads.filter((r) => r.input.lastTurns !== undefined)).toEqual([{ channel: 'agents.events.read', input: { sessionId, lastTurns: 20, limit: 5_000 }, shown: false }]);
});

// The hand-over of events heard before the view listens itself is in session-tail-ahead.test.ts:
// here the view is drawn (and listens) before the held read is let go.
test('a live event while a session’s first short read is under way is shown after what it read', async ({ page }) => {
  const route = await routeReads(page, (i) => (i.sessionId === sessionId && i.lastTurns !== undefined ? 'hold' : 'pass'));
  const session = new SessionPage(page);
  await boardAfterAnotherSession(page, session);
  await page.evaluate(`location.hash = '#/session/${sessionId}'`);
  await expect.poll(() => route.held.length).toBe(1);
  route.publish({ sessionId, seq: 1_651, data: { type: 'notice', level: 'info', text: 'live-during-the-short-read' } });
  for (const h of route.held.splice(0)) h.release();
  await expect(session.transcript).toContainText(`Turn ${TURNS} of session 0:`);
  await expect(session.transcript).toContainText('live-during-the-short-read');
  // After the newest turn the read brought, not before it.
  const text = (await session.transcript.textContent()) ?? '';
  expect(text.indexOf('live-during-the-short-read')).toBeGreaterThan(text.indexOf(`Turn ${TURNS} of session 0:`));
  expect(route.reads().filter((r) => r.sessionId === sessionId && r.lastTurns !== undefined)).toHaveLength(1);
});

test('a terminal whose history was parsed before it opened scrolls back page by page from the keyboard', async ({ page }) => {
  const { terms, pane, id } = await shellThatPrinted(page, 'for i in $(seq 1 3000); do echo "kb-line-$i"; done; echo "kb-end-$((6*7))"', 'kb-end-42');
  // A new page: the view parses its replay, then opens.
  await page.reload();
  await page.getByTestId('sidebar').waitFor();
  await page.evaluate(`location.hash = '#/terminals/${id}'`);
  await expect(terms.screen(pane)).toContainText('kb-end-42');
  await pane.locator('.xterm-screen').click();
  /** The lowest line number on screen. */
  const top = async () => Math.min(...[...(await terms.screen(pane).innerText()).matchAll(/kb-line-(\d+)/g)].map((m) => Number(m[1])));
  const seen: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 5; i++) await page.keyboard.press('Shift+PageUp');
    await expect.poll(top).toBeLessThan(seen.at(-1) ?? 3_000);
    seen.push(await top());
  }
  // Five pages back, not the start of the history (where a scroll area sized empty jumped), and
  // each round further back: its scroll area knew the whole history.
  expect(seen[0]).toBeGreaterThan(3_000 - 5 * 100);
  expect(seen[2]).toBeLessThan(seen[1]!);
  expect(seen[1]).toBeLessThan(seen[0]!);
});

test('a terminal parked with a long history (its own copy of the output) comes back at its end from its first painted row, without answering the queries in it, and goes on', async ({ page }) => {
  // A query answered long ago (as vim asks at startup), then over 400,000 characters: past what
  // parks for a replay from the main process, so it parks as the output it was written.
  const { terms, pane, id: first } = await shellThatPrinted(page, "printf '\\033[c'; read -rs -t 2 -d c; echo asked-$((6*7))", 'asked-42');
  await terms.type(pane, 'for i in $(seq 1 6000); do echo "snap-line-$i of a history long enough to be parked as a snapshot"; done; echo "snap-end-$((5*9))"');
  await expect(terms.screen(pane)).toContainText('snap-end-45', { timeout: 30_000 });
  await parkByOpeningSeven(terms, pane);
  const shown = await showUntil(page, first, 'snap-end-45');
  await expect(pane.locator('.xterm-view')).toHaveAttribute('data-parked-as', 'copy');
  expect(shown.scrollbarChanges).toBeLessThan(50);
  expect(shown.painted[0], 'the first rows painted').toContain('snap-end-45');
  await expect(pane).not.toContainText('too old to replay');
  // It ended where the stream goes on: what is typed now comes once, after it, and nothing the
  // terminal answered while the output was parsed again reached the shell.
  await terms.type(pane, 'echo "after-$((30+3))"');
  await expect(terms.screen(pane)).toContainText('after-33');
  await expect(terms.screen(pane)).not.toContainText('command not found');
  const rows = await terms.screen(pane).innerText();
  expect(rows.split('snap-end-45').length - 1).toBe(1);
  expect(rows.indexOf('snap-end-45')).toBeLessThan(rows.indexOf('after-33'));
});

test('a terminal resized after its output is parked with a snapshot of its screen, and comes back at its end', async ({ page }) => {
  const { terms, pane, id: first } = await shellThatPrinted(page, 'for i in $(seq 1 3000); do echo "wrapped-line-$i: a line long enough to wrap again when the pane is made narrower than it"; done; echo "wrapped-end-$((4*9))"', 'wrapped-end-36');
  // A narrower window: xterm rewraps its lines, which the output parsed again at the new width
  // would not give. The copy goes; the snapshot holds what it shows.
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: Math.round(size.width * 0.7), height: size.height });
  await expect(terms.screen(pane)).toContainText('wrapped-end-36');
  await parkByOpeningSeven(terms, pane);
  await showUntil(page, first, 'wrapped-end-36');
  await expect(pane.locator('.xterm-view')).toHaveAttribute('data-parked-as', 'snapshot');
  await terms.type(pane, 'echo "after-$((40+4))"');
  await expect(terms.screen(pane)).toContainText('after-44');
  const rows = await terms.screen(pane).innerText();
  expect(rows.indexOf('wrapped-end-36')).toBeLessThan(rows.indexOf('after-44'));
});

test('a page opened again replays a terminal without answering the queries in its history', async ({ page }) => {
  // Asks for the device attributes and reads the answer itself, as vim does at startup.
  const { terms, pane, id } = await shellThatPrinted(page, "printf '\\033[c'; read -rs -t 2 -d c; echo asked-$((6*7))", 'asked-42');
  // A new page: its view replays the whole history, the query with it; an answer now would be
  // typed at the prompt, in front of the next command.
  await page.reload();
  await page.evaluate(`location.hash = '#/terminals/${id}'`);
  await expect(terms.screen(pane)).toContainText('asked-42');
  await terms.type(pane, 'echo "answered-$((8*8))"');
  await expect(terms.screen(pane)).toContainText('answered-64');
  await expect(terms.screen(pane)).not.toContainText('command not found');
});
