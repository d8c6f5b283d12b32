/**
 * The feature board with 1,000 features across four projects, in Chromium against browser mode:
 * how long the first render takes (page load → every card counted, the first load apart from
 * the median; the host's list call alone; and the render alone once the list is in), how long a filter takes to show its result, how long clearing it takes, and
 * how many cards are in the page (the columns are virtualized, so it stays near what is visible
 * whatever the total). The features are real state files in real repositories, read by the
 * host's own feature index, so the list's cost is part of the first figure.
 *
 * Two first loads: the page against a host on a fresh data folder, seconds after the files were
 * written (every state file parsed), and, after the host is restarted on the same data folder
 * (the index trusts what it recorded: a stat per file), the page in a new browser context (its
 * cache cold, as a new origin's would be), without resuming the seeded in-progress features
 * (they have no run to resume). Later loads are reloads of the same page.
 *
 * A load is timed from the bench's clock before the navigation to the frame the page painted
 * with the first card, and with every feature counted, as the page records them (PAINT_MARKS).
 * The driver's own view of the same moments (`…SeenByDriverMs`) is later by its round trips and
 * by the copy of every socket frame the browser sends it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { requests } from '../../src-preload/contract';
import { startBrowserHost } from '../../src-main/host/browser-host';
import { appRoot } from '../../src-main/platform/paths';
import { formatIssueRecord, ISSUE_FILE } from '../../src-main/features/issue-input';
import { FeatureIndex } from '../../src-main/features/feature-index';
import { IssueLinks } from '../../src-main/features/issue-links';
import { silentLogger } from '../../src-main/platform/logger';
import { activeStatePath, forgetParsedStates, mergedStatePath, scanFeatures } from '../../src-main/features/scanner';
import { newFeatureState, readState, serializeState, type FeatureStatus } from '../../src-main/features/state';
import { stateParser } from '../../src-main/features/state-parser';
import type { Database } from '../../src-main/store/db';
import { startTestApp } from '../support/app';
import { makeRepo } from '../support/temp';

const FEATURES = 1000;
const PROJECTS = 4;
/** Runs of each measurement; the median is reported (the first page load also warms Chromium's caches). */
const ROUNDS = 5;
const STATUSES: FeatureStatus[] = ['planned', 'in_progress', 'completed', 'failed', 'merged'];
/** Finished runs recorded per feature (the run list's latest-run query reads them all). */
const RUNS_PER_FEATURE = 3;
/** Every tenth feature was planned from an issue (its card links it). */
const ISSUE_EVERY = 10;

const round = (n: number) => Math.round(n * 10) / 10;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Writes `count` state files into a repository, the statuses spread over every column. */
function seedFeatures(repo: string, offset: number, count: number): void {
  for (let i = 0; i < count; i++) {
    const n = offset + i;
    const slug = `feature-${String(n).padStart(4, '0')}`;
    const status = STATUSES[n % STATUSES.length]!;
    const state = newFeatureState({ slug, now: new Date(Date.UTC(2026, 10, 1) + n * 60_000), worktreePath: `.trees/${slug}`, branch: `feature/${slug}`, baseBranch: 'main', devPhases: ['types', 'api', 'ui'] });
    const phases = state.phases.map((p, j) => (status === 'planned' ? p : { ...p, status: j < 2 ? ('completed' as const) : p.status, turns: j < 2 ? 3 : 0, cost_usd: j < 2 ? 0.12 : 0 }));
    const path = status === 'merged' ? mergedStatePath(repo, slug) : activeStatePath(repo, slug);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, serializeState({ ...state, status, phases, current_phase: status === 'planned' ? 0 : 2 }));
    if (n % ISSUE_EVERY === 0) writeFileSync(join(dirname(path), ISSUE_FILE), formatIssueRecord({ number: n + 1, url: `https://github.com/acme/app/issues/${n + 1}`, title: `Issue ${n + 1}` }));
  }
}

/** Finished runs of every feature, as the run service records them, so its list has history to query. */
function seedRuns(db: Database, repo: string, offset: number, count: number): void {
  const ins = db.prepare(`INSERT INTO feature_runs (id, project_path, slug, executor, status, phase, message, owner_pid, owner_id, queued_at, started_at, ended_at) VALUES (?, ?, ?, 'claude-code', ?, NULL, NULL, NULL, NULL, ?, ?, ?)`);
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const slug = `feature-${String(offset + i).padStart(4, '0')}`;
      for (let k = 0; k < RUNS_PER_FEATURE; k++) {
        const at = Date.UTC(2026, 10, 1) + (offset + i) * 60_000 + k * 1000;
        ins.run(`frun-${String(offset + i).padStart(6, '0')}r${k}`, repo, slug, k === RUNS_PER_FEATURE - 1 ? 'completed' : 'interrupted', at, at, at + 500);
      }
    }
  })();
}

/** The median time of `fn` over ROUNDS calls. */
async function timed(fn: () => unknown): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    await fn();
    xs.push(performance.now() - t0);
  }
  return round(median(xs));
}

/** The median over ROUNDS calls of `fn` of the part it times with `time`. */
async function timedPart(fn: (time: (part: () => Promise<unknown>) => Promise<void>) => Promise<unknown>): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    await fn(async (part) => {
      const t0 = performance.now();
      await part();
      xs.push(performance.now() - t0);
    });
  }
  return round(median(xs));
}

/**
 * Where a list's time goes, each part timed alone over the same thousand features: resolving
 * the projects' repositories (git), a stat of every state file (what verifying the index costs),
 * reading and parsing every state file from scratch, the index's rows from SQLite, a reconcile
 * of the index with the files, the issue links of every card, the run list, the contract's check
 * of the answer and its serialization.
 */
async function listBreakdown(app: Awaited<ReturnType<typeof startTestApp>>['app'], repoPaths: string[]): Promise<Record<string, number>> {
  const roots = await Promise.all(repoPaths.map((p) => app.features.repoRoot(p)));
  const rows = roots.flatMap((r) => app.features.index.cached(r).rows);
  const paths = rows.map((r) => r.statePath).filter((p): p is string => p !== null);
  const answer = { projects: await app.features.list({}) };
  return {
    repoRootsMs: await timed(() => Promise.all(repoPaths.map((p) => app.features.repoRoot(p)))),
    statEveryStateFileMs: await timed(() => paths.forEach((p) => statSync(p, { bigint: true }))),
    readAndParseEveryStateFileMs: await timed(() => Promise.all(paths.map((p) => readState(p)))),
    scanWithParseCacheMs: await timed(() => Promise.all(roots.map((r) => scanFeatures(r)))),
    indexRowsFromDbMs: await timed(() => roots.forEach((r) => app.features.index.repo.forRepo(r))),
    reconcileMs: await timed(() => Promise.all(roots.map((r) => app.features.index.reconcile(r)))),
    issueLinksUncachedMs: await timed(() => {
      const links = new IssueLinks();
      return Promise.all(paths.map((p) => links.of(p)));
    }),
    runListMs: await timed(() => app.featureRuns.list()),
    // Starting the state-file watchers of the four indexed repositories until they are ready (a
    // watch per folder on the way to a state file, and the issue links looked at once more).
    watchersReadyMs: await timedPart(async (time) => {
      const idx = new FeatureIndex({ db: app.db, log: silentLogger });
      await Promise.all(roots.map((r) => idx.reconcile(r)));
      await time(async () => {
        idx.watch(roots);
        await idx.ready();
      });
      await idx.dispose();
    }),
    contractCheckMs: await timed(() => requests['features.list'].output.safeParse(answer)),
    serializeMs: await timed(() => JSON.stringify(answer)),
  };
}

/** The page loaded ROUNDS times (the first in a fresh page, then reloads): what each load waited for, then the render and filter timings. */
async function loadRounds(page: Page, url: string): Promise<{ load: number[]; firstCard: number[]; loadSeenByDriver: number[]; data: number[]; scriptsRun: number[]; render: number[]; filter: number[]; clear: number[]; cardsInPage: number; scriptKb: number }> {
  await page.addInitScript(PAINT_MARKS);
  // Painted, as the page saw it (the judged figures), and when the driver learned of it (a round
  // trip through the browser, which also sends it a copy of every frame of the page's socket).
  const load: number[] = [];
  const firstCard: number[] = [];
  const loadSeenByDriver: number[] = [];
  // The page's own part before any data: its scripts fetched, parsed and run (DOMContentLoaded waits for module scripts).
  const scriptsRun: number[] = [];
  let scriptKb = 0;
  const data: number[] = [];
  const render: number[] = [];
  const filter: number[] = [];
  const clear: number[] = [];
  let cardsInPage = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = Date.now();
    await page.goto(url);
    // Waiting in the page for its own marks: the driver's element waits poll the page (a style
    // and layout of the element per frame) while it loads, which slowed what they timed.
    const painted = await page.evaluate<{ card: number; all: number; list: number }>(PAINTED);
    loadSeenByDriver.push(Date.now() - t0);
    firstCard.push(painted.card - t0);
    load.push(painted.all - t0);
    // The list's answer arriving in the page (the data fetch), apart from the cards painted from it.
    data.push(painted.list ? painted.list - t0 : NaN);
    cardsInPage = await page.getByTestId('feature-card').count();
    const timing = await page.evaluate<{ dcl: number; kb: number }>(PAGE_TIMING);
    scriptsRun.push(timing.dcl);
    scriptKb = timing.kb;
    // The render alone: the board is taken off the page and put back with the same data.
    render.push(await page.evaluate<number>(RENDER_AGAIN));
    // Filter: a slug fragment that matches ten features (feature-0000 … feature-0009), until the count shows them.
    filter.push(await timeFilter(page, 'feature-000', `10 of ${FEATURES}`));
    clear.push(await timeFilter(page, '', `${FEATURES} features`));
  }
  return { load, firstCard, loadSeenByDriver, data, scriptsRun, render, filter, clear, cardsInPage, scriptKb };
}

export async function run(): Promise<Record<string, unknown>> {
  execFileSync(process.execPath, [join(appRoot(), 'bin', 'ensure-renderer.mjs')], { stdio: 'inherit' });
  const repos = Array.from({ length: PROJECTS }, (_, i) => makeRepo(`fd-bench-board-${i}-`));
  const per = FEATURES / PROJECTS;
  repos.forEach((r, i) => seedFeatures(r.path, i * per, per));
  // This process is the host: nothing parsed by an earlier bench in it may help this one.
  forgetParsedStates();
  const parsesBefore = { ...stateParser.counts };
  const t = await startTestApp();
  repos.forEach((r, i) => seedRuns(t.app.db, r.path, i * per, per));
  let host = await startBrowserHost(t.app, { port: 0 });
  let restarted: Awaited<ReturnType<typeof startTestApp>> | null = null;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    for (const r of repos) await t.app.projects.add(r.path);
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    const fresh = await loadRounds(page, host.url);
    // How the first load's parses ran: the fast loader (main thread), the full parser in the worker thread, or on the main thread while it loaded.
    const freshParses = { fastLoader: stateParser.counts.fast - parsesBefore.fast, worker: stateParser.counts.worker - parsesBefore.worker, mainThread: stateParser.counts.inline - parsesBefore.inline };
    // The host's part of the first figure: the list itself (state files reconciled with the index).
    const list: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = performance.now();
      await t.app.features.list({});
      list.push(performance.now() - t0);
    }
    const hostListBreakdown = await listBreakdown(t.app, repos.map((r) => r.path));

    // The host restarted on the same data folder: a new process would keep nothing of the old one's memory.
    await page.close();
    await host.close();
    t.app.dispose();
    forgetParsedStates();
    await stateParser.dispose();
    const parsesAtRestart = { ...stateParser.counts };
    restarted = await startTestApp(t.dataDir);
    // The seeded in-progress features have no run behind them here: the restarted host leaves them
    // as they are (only a run it was running when it stopped resumes), as it would a cloned repository's.
    host = await startBrowserHost(restarted.app, { port: 0 });
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const again = await loadRounds(await context.newPage(), host.url);
    const restartParses = stateParser.counts.fast + stateParser.counts.worker + stateParser.counts.inline - parsesAtRestart.fast - parsesAtRestart.worker - parsesAtRestart.inline;
    return {
      features: FEATURES,
      projects: PROJECTS,
      rounds: ROUNDS,
      // Fresh data folder, state files written seconds before: every one parsed.
      firstPageLoadMs: round(fresh.load[0]!),
      pageLoadMs: round(median(fresh.load)),
      // The first page load taken apart: the whole list in the page, then the first card painted.
      firstPageListArrivedMs: round(fresh.data[0]!),
      firstPageFirstCardMs: round(fresh.firstCard[0]!),
      pageListArrivedMs: round(median(fresh.data)),
      pageFirstCardMs: round(median(fresh.firstCard)),
      firstLoadParses: freshParses,
      // Of the later loads: the page's scripts run (DOMContentLoaded), and the script it loaded to show the board.
      pageScriptsRunMs: round(median(fresh.scriptsRun.slice(1))),
      firstPageScriptsRunMs: round(fresh.scriptsRun[0]!),
      pageScriptKb: fresh.scriptKb,
      // The host restarted on that data folder, the page in a new browser context (cold cache).
      restartFirstPageLoadMs: round(again.load[0]!),
      restartFirstPageFirstCardMs: round(again.firstCard[0]!),
      restartPageLoadMs: round(median(again.load)),
      restartPageFirstCardMs: round(median(again.firstCard)),
      // The same loads until the driver learned of them (its evaluate's answer).
      firstPageLoadSeenByDriverMs: round(fresh.loadSeenByDriver[0]!),
      pageLoadSeenByDriverMs: round(median(fresh.loadSeenByDriver)),
      restartFirstPageLoadSeenByDriverMs: round(again.loadSeenByDriver[0]!),
      restartPageLoadSeenByDriverMs: round(median(again.loadSeenByDriver)),
      restartFirstPageScriptsRunMs: round(again.scriptsRun[0]!),
      restartParses,
      hostListMs: round(median(list)),
      hostListFirstMs: round(list[0]!),
      hostListBreakdown,
      renderOnlyMs: round(median(fresh.render)),
      filterMs: round(median(fresh.filter)),
      clearFilterMs: round(median(fresh.clear)),
      cardsInPage: fresh.cardsInPage,
    };
  } finally {
    await browser.close();
    await host.close();
    restarted?.app.dispose();
    t.cleanup();
    for (const r of repos) r.cleanup();
  }
}

/** When DOMContentLoaded ended (ms after the navigation began), and the kilobytes of script the page loaded so far (uncompressed). */
const PAGE_TIMING = `(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const scripts = performance.getEntriesByType('resource').filter((r) => r.name.endsWith('.js'));
  return { dcl: nav ? nav.domContentLoadedEventEnd : NaN, kb: Math.round(scripts.reduce((n, r) => n + r.decodedBodySize, 0) / 1024) };
})()`;

/**
 * Run in the page before its own scripts: when the first card and then the full count ("1000
 * features") are first painted, as epoch milliseconds (the bench's clock): a frame after the
 * DOM mutation that put them there, then a task after that frame's paint — when the page's
 * thread has painted the frame and handed it on, a few milliseconds before the screen shows
 * it. Also when the features' list (the first message over 100,000 characters that holds
 * features) reached the page.
 */
const PAINT_MARKS = `(() => {
  const marks = {};
  Object.defineProperty(window, '__boardPaint', { value: marks });
  const Socket = window.WebSocket;
  window.WebSocket = class extends Socket {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        if (!marks.list && typeof e.data === 'string' && e.data.length > 100000 && e.data.includes('"features":[')) marks.list = performance.timeOrigin + performance.now();
      });
    }
  };
  const afterPaint = (key) => requestAnimationFrame(() => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      marks[key] = performance.timeOrigin + performance.now();
      if (marks.card && marks.all) painted();
    };
    ch.port2.postMessage(0);
  });
  let painted;
  marks.done = new Promise((r) => { painted = r; });
  let card = false, all = false;
  const seen = new MutationObserver(() => {
    if (!card && document.querySelector('[data-testid="feature-card"]')) { card = true; afterPaint('card'); }
    const count = document.querySelector('[data-testid="board-count"]');
    if (!all && count && count.textContent.includes(${JSON.stringify(`${FEATURES} features`)})) { all = true; afterPaint('all'); }
    if (card && all) seen.disconnect();
  });
  seen.observe(document, { subtree: true, childList: true, characterData: true });
})()`;

/** The marks PAINT_MARKS set, once both are in. */
const PAINTED = `(async () => {
  const m = window.__boardPaint;
  const late = new Promise((_, no) => setTimeout(() => no(new Error('the board was not painted within 60 s')), 60_000));
  await Promise.race([m.done, late]);
  return { card: m.card, all: m.all, list: m.list ?? 0 };
})()`;

/** Frames until a condition holds, in the page (this file is compiled for Node: the page's code is a string). */
const FRAME = `const frame = () => new Promise((r) => requestAnimationFrame(() => r()));`;

/** Leaves the board for Settings, comes back, and times the board's mount until its cards are painted. */
const RENDER_AGAIN = `(async () => {
  ${FRAME}
  location.hash = '#/settings';
  while (document.querySelector('[data-testid="feature-board"]')) await frame();
  const back = performance.now();
  location.hash = '#/';
  while (!document.querySelector('[data-testid="feature-card"]')) await frame();
  await frame();
  return performance.now() - back;
})()`;

/** Sets the filter as typing would and measures, in the page, until the count reads `expected` and the cards are painted. */
async function timeFilter(page: Page, text: string, expected: string): Promise<number> {
  return page.evaluate<number>(`(async () => {
    ${FRAME}
    const input = document.querySelector('[data-testid="board-filter"]');
    const count = document.querySelector('[data-testid="board-count"]');
    const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
    const start = performance.now();
    setValue.call(input, ${JSON.stringify(text)});
    input.dispatchEvent(new Event('input', { bubbles: true }));
    while (count.textContent !== ${JSON.stringify(expected)}) await frame();
    await frame();
    return performance.now() - start;
  })()`);
}
