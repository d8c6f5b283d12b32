/**
 * Many sessions and terminals at once, in Chromium against browser mode (the host a separate
 * process, as `serve` runs it): 20 sessions with 200 stored turns each and 30 terminals holding
 * 5,000 lines each. The Terminals view shows a grid of four panes (the most the UI has); ten of
 * the terminals are brought into view in turn, so ten have been visible and twenty never were.
 *
 * Reported: the renderer's memory (CDP Performance.getMetrics and the renderer process's RSS
 * from /proc), the host's and the pty host's RSS, CPU of host and renderer over 60 s of idle
 * (30 s on a session, 30 s on the Terminals view; utime+stime from /proc/<pid>/stat), and the
 * time to switch between sessions and between terminals (p50/p95), each beside its goal.
 * Terminals render with the DOM renderer here (GPU off in this browser's preference) so a switch
 * can be timed until the terminal's last line is on screen.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { appRoot } from '../../src-main/platform/paths';
import type { Client } from '../../src-preload/client/client';
import { startHost } from '../e2e/support/host';
import { seedLongSession } from '../fixtures/long-transcript';
import { connectWsClient, stopWsClients } from '../fixtures/terminals/ws-client';
import { startTestApp } from '../support/app';
import { makeRepo, tempDir } from '../support/temp';
import { summarizeTrace, type TraceSummary } from './trace-summary';

const SESSIONS = 20;
const TURNS_PER_SESSION = 200;
const TERMINALS = 30;
const LINES_PER_TERMINAL = 5_000;
/** Terminals brought into view in turn (the grid shows four at a time). */
const SHOWN_TERMINALS = 10;
const IDLE_MS_EACH = 30_000;
/** Settling before an idle window: the last switch's work (replays, layout, GC) is not idle. */
const SETTLE_MS = 5_000;
const SWITCH_ROUNDS = 3;
const GOALS = { rendererMb: 400, hostMb: 300, idleCpuPct: 1, switchP95Ms: 100 };

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const mb = (bytes: number) => round(bytes / 1024 / 1024);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The sessions, written into the store directly as the agent loop would have left them. */
async function seedSessions(dataDir: string, repo: string): Promise<string[]> {
  const t = await startTestApp(dataDir);
  const project = await t.app.projects.add(repo);
  const ids: string[] = [];
  for (let s = 0; s < SESSIONS; s++) ids.push(await seedLongSession(t.app, project.id, `Scale session ${s + 1}`, s, TURNS_PER_SESSION));
  t.app.dispose();
  return ids;
}

// ---- /proc ----

const CLK_TCK = 100;
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}
function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}
function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      // The process ended while the table was read.
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

/** Milliseconds per sample of the renderer's CPU within an idle window: shows when in the window it worked. */
const TIMELINE_STEP_MS = 3_000;

/**
 * CPU share of each pid over a window, in % of one core, and the renderer's CPU in each
 * TIMELINE_STEP_MS of it (ms of CPU): work left by the previous action shows as a step, a
 * steady cost as an even line.
 */
async function idleCpu(pids: Record<string, number>, ms: number): Promise<{ pct: Record<string, number>; rendererTimelineMs: number[] }> {
  const before = Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, cpuTicks(p)]));
  const t0 = performance.now();
  const timeline: number[] = [];
  let last = cpuTicks(pids.renderer!);
  for (let at = 0; at < ms; at += TIMELINE_STEP_MS) {
    await sleep(Math.min(TIMELINE_STEP_MS, ms - at));
    const now = cpuTicks(pids.renderer!);
    timeline.push(((now - last) * 1000) / CLK_TCK);
    last = now;
  }
  const secs = (performance.now() - t0) / 1000;
  return { pct: Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, round(((cpuTicks(p) - before[k]!) / CLK_TCK / secs) * 100, 2)])), rendererTimelineMs: timeline };
}

/** p50 and p95 of a set of times, rounded. */
function pcts(values: number[]): { p50: number; p95: number } {
  return { p50: round(percentile(values, 50)), p95: round(percentile(values, 95)) };
}

// ---- the page ----

/** A trace of the page this long, after an idle CPU window: what the renderer woke up for. */
const TRACE_MS = 10_000;
const TRACE_CATEGORIES = ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline'];

async function traceIdle(browser: Browser, page: Page, rendererPid: number): Promise<TraceSummary & { ms: number }> {
  await browser.startTracing(page, { categories: TRACE_CATEGORIES });
  await sleep(TRACE_MS);
  const json = (await browser.stopTracing()).toString('utf8');
  return { ms: TRACE_MS, ...summarizeTrace(json, rendererPid) };
}

const FRAME = `const frame = () => new Promise((r) => requestAnimationFrame(() => r()));`;

/** A switch's time to the view's first content (its history read / its pane in the page) and to its last line painted. */
interface SwitchTime {
  first: number;
  total: number;
}

/** Goes to a session by its address and times until its history shows and until its last turn's answer is painted. */
async function timeSessionSwitch(page: Page, id: string, marker: string): Promise<SwitchTime> {
  return page.evaluate<SwitchTime>(`(async () => {
    ${FRAME}
    const old = document.querySelector('[data-testid="session-view"]');
    const start = performance.now();
    let first = null;
    location.hash = '#/session/' + ${JSON.stringify(id)};
    const done = () => {
      const v = document.querySelector('[data-testid="session-view"]');
      const t = document.querySelector('[data-testid="transcript"]');
      if (!v || !t || v === old || !location.hash.endsWith(${JSON.stringify(id)})) return false;
      if (first === null && !t.textContent.includes('Loading the conversation')) first = performance.now() - start;
      return t.textContent.includes(${JSON.stringify(marker)});
    };
    while (!done()) await frame();
    await frame();
    return { first: first ?? 0, total: performance.now() - start };
  })()`);
}

/** Brings a terminal into the focused pane by its address and times until its pane is in the page and until its last line is painted. */
async function timeTerminalSwitch(page: Page, id: string, marker: string): Promise<SwitchTime> {
  return page.evaluate<SwitchTime>(`(async () => {
    ${FRAME}
    const start = performance.now();
    let first = null;
    location.hash = '#/terminals/' + ${JSON.stringify(id)};
    const done = () => {
      const pane = document.querySelector('[data-testid="terminal-pane"][data-terminal-id=${JSON.stringify(id)}]');
      if (pane && first === null) first = performance.now() - start;
      const rows = pane && pane.querySelector('.xterm-rows');
      return rows && rows.textContent.includes(${JSON.stringify(marker)});
    };
    while (!done()) await frame();
    await frame();
    return { first: first ?? 0, total: performance.now() - start };
  })()`);
}

async function fillTerminals(client: Client, cwd: string): Promise<Array<{ id: string; marker: string }>> {
  const out: Array<{ id: string; marker: string }> = [];
  for (let i = 0; i < TERMINALS; i++) {
    const info = await client.invoke('terminals.create', { target: { kind: 'path', path: cwd }, cols: 120, rows: 30 });
    const tag = `t${String(i).padStart(2, '0')}`;
    // The marker is printed by printf, so the typed command line never contains it whole.
    const cmd = `for i in $(seq 1 ${LINES_PER_TERMINAL}); do echo "${tag} line $i of ${LINES_PER_TERMINAL}: lorem ipsum dolor sit amet, consectetur adipiscing"; done; printf 'END%s\\n' -${tag}\r`;
    await client.invoke('terminals.write', { id: info.id, data: cmd });
    out.push({ id: info.id, marker: `END-${tag}` });
  }
  // Until every terminal has printed everything (its scrollback holds the marker).
  for (const t of out) {
    for (let tries = 0; ; tries++) {
      const a = await client.invoke('terminals.attach', { id: t.id });
      await client.invoke('terminals.detach', { id: t.id, attachmentId: a.attachmentId });
      if (a.data.includes(`${t.marker}\r\n`)) break;
      if (tries > 600) throw new Error(`terminal ${t.marker} did not finish printing`);
      await sleep(200);
    }
  }
  return out;
}

/** Options for a shorter run while investigating (the bench itself runs with none). */
export interface ScaleOptions {
  idleMs?: number;
  /** A Chromium trace of the terminal switches, written here (to see what a slow switch did). */
  traceTerminalsTo?: string;
}

export async function run(options: ScaleOptions = {}): Promise<Record<string, unknown>> {
  const idleMs = options.idleMs ?? IDLE_MS_EACH;
  execFileSync(process.execPath, [join(appRoot(), 'bin', 'ensure-renderer.mjs')], { stdio: 'inherit' });
  const repo = makeRepo('fd-bench-scale-');
  const data = tempDir('fd-bench-scale-data-');
  const sessionIds = await seedSessions(data.path, repo.path);
  const host = await startHost({ dataDir: data.path });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const url = new URL(host.url);
    const client = connectWsClient(Number(url.port), url.searchParams.get('token') ?? '');
    const terms = await fillTerminals(client, repo.path);
    stopWsClients();

    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    await page.goto(host.url);
    // The DOM renderer in every pane, so the bench can read what is on screen.
    await page.evaluate(`localStorage.setItem('flightdeck.terminals.gpu', 'off'); localStorage.setItem('flightdeck.terminals.layout', JSON.stringify({ layout: 'grid', panes: [null, null, null, null] }))`);
    await page.reload();
    await page.getByTestId('sidebar').waitFor();

    // Sessions: each one opened, then rounds of switching between them.
    const sessionSwitch: SwitchTime[] = [];
    const lastMarker = (s: number) => `Turn ${TURNS_PER_SESSION} of session ${s}:`;
    for (let r = 0; r < SWITCH_ROUNDS; r++) for (let s = 0; s < SESSIONS; s++) sessionSwitch.push(await timeSessionSwitch(page, sessionIds[s]!, lastMarker(s)));
    const firstSessionOpen = sessionSwitch.slice(0, SESSIONS);

    // Terminals: the first ten brought into the grid in turn, then rounds of switching among them.
    await page.evaluate(`location.hash = '#/terminals'`);
    await page.getByTestId('terminals-view').waitFor();
    const termSwitch: SwitchTime[] = [];
    const shown = terms.slice(0, SHOWN_TERMINALS);
    if (options.traceTerminalsTo) await browser.startTracing(page, { categories: [...TRACE_CATEGORIES, 'v8', 'blink.user_timing'] });
    for (let r = 0; r < SWITCH_ROUNDS; r++) {
      for (const [i, t] of shown.entries()) {
        await page.evaluate(`document.querySelectorAll('[data-testid="terminal-pane"], [data-testid="terminal-pane-empty"]')[${i % 4}]?.dispatchEvent(new MouseEvent('mousedown', { bubbles: true }))`);
        termSwitch.push(await timeTerminalSwitch(page, t.id, t.marker));
      }
    }

    if (options.traceTerminalsTo) writeFileSync(options.traceTerminalsTo, await browser.stopTracing());
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const browserCdp = await browser.newBrowserCDPSession();
    const info = (await browserCdp.send('SystemInfo.getProcessInfo')) as { processInfo: Array<{ type: string; id: number; cpuTime: number }> };
    const renderers = info.processInfo.filter((p) => p.type === 'renderer').map((p) => p.id);
    // One page: its renderer is the largest (a spare renderer may sit beside it).
    const renderer = renderers.sort((a, b) => rssBytes(b) - rssBytes(a))[0]!;
    const gpu = info.processInfo.find((p) => p.type === 'GPU')?.id;
    const tree = descendants(host.process.pid!);
    const hostPid = tree.find((p) => cmdline(p).includes('main.ts') && !cmdline(p).includes('tsx/dist/cli.mjs')) ?? host.process.pid!;
    const ptyHostPid = tree.find((p) => cmdline(p).includes('pty-host'));
    // Chromium's browser process: the one started from here without a --type.
    const browserPid = descendants(process.pid).find((p) => /chrom/.test(cmdline(p)) && !cmdline(p).includes('--type='));
    const pids: Record<string, number> = { host: hostPid, renderer, ...(ptyHostPid ? { ptyHost: ptyHostPid } : {}), ...(gpu ? { gpu } : {}), ...(browserPid ? { browser: browserPid } : {}) };

    // Idle: on a session (the last one), then on the Terminals view with four panes showing.
    await timeSessionSwitch(page, sessionIds[SESSIONS - 1]!, lastMarker(SESSIONS - 1));
    await sleep(SETTLE_MS);
    const idleSession = await idleCpu(pids, idleMs);
    const traceSession = await traceIdle(browser, page, renderer);
    await page.evaluate(`location.hash = '#/terminals'`);
    await sleep(SETTLE_MS);
    const idleTerminals = await idleCpu(pids, idleMs);
    const traceTerminals = await traceIdle(browser, page, renderer);
    const idle = Object.fromEntries(Object.keys(pids).map((k) => [k, round((idleSession.pct[k]! + idleTerminals.pct[k]!) / 2, 2)]));

    await cdp.send('HeapProfiler.collectGarbage').catch(() => undefined);
    const metrics = Object.fromEntries(((await cdp.send('Performance.getMetrics')) as { metrics: Array<{ name: string; value: number }> }).metrics.map((m) => [m.name, m.value]));
    const rendererRss = rssBytes(renderer);
    const hostRss = rssBytes(hostPid);
    const sessionP = pcts(sessionSwitch.map((x) => x.total));
    const termP = pcts(termSwitch.map((x) => x.total));
    return {
      sessions: SESSIONS,
      turnsPerSession: TURNS_PER_SESSION,
      terminals: TERMINALS,
      linesPerTerminal: LINES_PER_TERMINAL,
      terminalsShown: SHOWN_TERMINALS,
      panesVisible: 4,
      renderer: {
        rssMb: mb(rendererRss),
        jsHeapUsedMb: mb(metrics.JSHeapUsedSize ?? 0),
        jsHeapTotalMb: mb(metrics.JSHeapTotalSize ?? 0),
        domNodes: metrics.Nodes,
        jsEventListeners: metrics.JSEventListeners,
        layoutObjects: metrics.LayoutObjects,
        goalMb: GOALS.rendererMb,
        ratio: round(rendererRss / 1024 / 1024 / GOALS.rendererMb, 2),
      },
      host: { rssMb: mb(hostRss), goalMb: GOALS.hostMb, ratio: round(hostRss / 1024 / 1024 / GOALS.hostMb, 2), ptyHostRssMb: ptyHostPid ? mb(rssBytes(ptyHostPid)) : null },
      idleCpuPct: { ...idle, onSession: idleSession.pct, onTerminals: idleTerminals.pct, goalPct: GOALS.idleCpuPct },
      // The renderer's CPU in each step of the idle windows (ms per TIMELINE_STEP_MS).
      idleRendererTimelineMs: { stepMs: TIMELINE_STEP_MS, onSession: idleSession.rendererTimelineMs, onTerminals: idleTerminals.rendererTimelineMs },
      // What the renderer did in 10 s of idle after each window, from a Chromium trace.
      idleTrace: { onSession: traceSession, onTerminals: traceTerminals },
      sessionSwitchMs: {
        ...sessionP,
        firstOpen: pcts(firstSessionOpen.map((x) => x.total)),
        again: pcts(sessionSwitch.slice(SESSIONS).map((x) => x.total)),
        // Until the history is read and shown (the rest is bringing its newest answer into view).
        toHistory: pcts(sessionSwitch.map((x) => x.first)),
        // Every switch in order (the first SESSIONS are first opens): what the p95 is made of.
        each: sessionSwitch.map((x) => round(x.total)),
        goalP95: GOALS.switchP95Ms,
        ratio: round(sessionP.p95 / GOALS.switchP95Ms, 2),
      },
      terminalSwitchMs: {
        ...termP,
        // A terminal's first show in this window replays the main process's scrollback; later ones find its view.
        firstShow: pcts(termSwitch.slice(0, SHOWN_TERMINALS).map((x) => x.total)),
        again: pcts(termSwitch.slice(SHOWN_TERMINALS).map((x) => x.total)),
        toPane: pcts(termSwitch.map((x) => x.first)),
        // Every switch in order (the first SHOWN_TERMINALS are first shows): what the p95 is made of.
        each: termSwitch.map((x) => round(x.total)),
        goalP95: GOALS.switchP95Ms,
        ratio: round(termP.p95 / GOALS.switchP95Ms, 2),
      },
    };
  } finally {
    await browser.close();
    await host.stop();
    data.cleanup();
    repo.cleanup();
  }
}
