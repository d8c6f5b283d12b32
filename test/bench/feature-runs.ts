/**
 * Feature-run benchmarks against the scripted model server (figures only, no limits asserted):
 *
 * - overhead: a feature run of a few dev phases plus a clean review and a passing verify through
 *   FeatureRunService, against the very same agent inputs sent directly through the session
 *   driver in a worktree of the same repository shape (no state file, commits, diff, checks,
 *   events or delivery). The difference, per phase, is what the pipeline itself adds.
 * - memory: the app's services in a host process of their own (feature-runs-host.ts) with 1, 5
 *   and 10 features running at once, each model reply streamed slowly (delayMs) so the runs
 *   overlap; the host's RSS and heap in flight against its idle figures.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startModelServer, type Script } from '../fixtures/model-server/index';
import { observeGit } from '../../src-main/git/git';
import { repoProgramScans } from '../../src-main/git/repo-programs';
import { observeSpans } from '../../src-main/platform/spans';
import { tempDir } from '../support/temp';
import { CLEAN_REVIEW, configYaml, makeRunRepo, planFeature, runHarness, text, VERIFY_PASS, write, type RunHarness, type RunRepo } from '../integration/features/run/support';
import type { HostMessage, HostRequest } from './feature-runs-host';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');

// ---- overhead -------------------------------------------------------------------------------

/** Dev phases per run; with review and verify the run has DEV_PHASES + 2 phases. */
const DEV_PHASES = ['parser', 'evaluator', 'printer'];
/** Measured repetitions (after one warm-up) of the run and of the direct calls; medians reported. */
const OVERHEAD_REPS = 5;
/** A check that costs next to nothing, so the figure is the pipeline's and not a test suite's. */
const TRIVIAL_CHECK = 'true';

const round2 = (x: number) => Math.round(x * 100) / 100;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

function overheadScript(): Script {
  return [...DEV_PHASES.flatMap((p) => [write(`${p}.mjs`, `export const ${p} = () => '${p}';\n`), text(`Phase ${p} done.`)]), CLEAN_REVIEW, VERIFY_PASS];
}

/** The inputs a session received (user messages that are not tool results), from a request's history. */
function userInputs(body: unknown): string[] {
  const messages = (body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
  const out: string[] = [];
  for (const m of messages) {
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string') out.push(m.content);
    else if (Array.isArray(m.content) && m.content.every((b: { type?: string }) => b.type === 'text')) out.push(m.content.map((b: { text: string }) => b.text).join(''));
  }
  return out;
}

export async function overhead(): Promise<Record<string, unknown>> {
  const repos: RunRepo[] = [];
  let h: RunHarness | null = null;
  try {
    h = await runHarness([]);
    const runMs: number[] = [];
    const directMs: number[] = [];
    const phases = DEV_PHASES.length + 2;
    let calls = { run: 0, direct: 0 };
    // Per measured run: each named part's total time and count, git calls by subcommand, config scans.
    const parts: Array<Map<string, { ms: number; n: number }>> = [];
    const gitCalls: Array<Map<string, { ms: number; pinMs: number; n: number }>> = [];
    const scans: number[] = [];
    for (let rep = 0; rep <= OVERHEAD_REPS; rep++) {
      const repo = makeRunRepo({ remote: 'none', config: configYaml({ checks: [TRIVIAL_CHECK] }) });
      repos.push(repo);
      const slug = `bench-${rep}`;
      await planFeature(repo.repo, slug, DEV_PHASES);
      // The direct calls get a worktree of the same repository shape (specs included), unused by any run.
      const directTree = await planFeature(repo.repo, `direct-${rep}`, DEV_PHASES);

      h.server.setScript(overheadScript());
      h.server.reset();
      const partMs = new Map<string, { ms: number; n: number }>();
      const gitMs = new Map<string, { ms: number; pinMs: number; n: number }>();
      observeSpans((name, ms) => {
        const v = partMs.get(name) ?? { ms: 0, n: 0 };
        partMs.set(name, { ms: v.ms + ms, n: v.n + 1 });
      });
      observeGit((c) => {
        const name = c.then ? `git ${c.args[0]} + ${c.then[0]}` : `git ${c.args[0]}`;
        const v = gitMs.get(name) ?? { ms: 0, pinMs: 0, n: 0 };
        gitMs.set(name, { ms: v.ms + c.waitMs + c.pinMs + c.execMs, pinMs: v.pinMs + c.pinMs, n: v.n + 1 });
      });
      const scans0 = repoProgramScans();
      let t0 = performance.now();
      const { done } = await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug });
      const r = await done;
      const tRun = performance.now() - t0;
      observeSpans(null);
      observeGit(null);
      const scanCount = repoProgramScans() - scans0;
      if (r.outcome !== 'completed') throw new Error(`bench feature run ended ${r.outcome}: ${r.message}`);
      const requests = h.server.mainRequests();
      const inputs = userInputs(requests.at(-1)!.body);
      if (inputs.length !== DEV_PHASES.length + 2) throw new Error(`expected ${DEV_PHASES.length + 2} agent inputs in the run, found ${inputs.length}`);
      const runCalls = requests.length;

      // The same inputs, in order, to one session of the same role, executor and mode, same replies.
      h.server.setScript(overheadScript());
      h.server.reset();
      t0 = performance.now();
      const session = h.app.driver.createSession({ root: directTree, role: 'coder', executor: 'builtin', mode: 'yolo', title: 'bench direct' });
      for (const input of inputs) {
        const t = await h.app.driver.runTurn(session.id, input);
        if (t.outcome !== 'completed') throw new Error(`bench direct turn ended ${t.outcome}: ${t.message}`);
      }
      const tDirect = performance.now() - t0;
      if (h.server.mainRequests().length !== runCalls) throw new Error(`the direct calls made ${h.server.mainRequests().length} model requests, the run ${runCalls}`);
      calls = { run: runCalls, direct: h.server.mainRequests().length };
      // Repetition 0 warms up (module loading, JIT, first connections).
      if (rep === 0) continue;
      runMs.push(tRun);
      directMs.push(tDirect);
      parts.push(partMs);
      gitCalls.push(gitMs);
      scans.push(scanCount);
      repo.cleanup();
      repos.pop();
    }
    const run = median(runMs);
    const direct = median(directMs);
    const perPhase = (runs: Array<Map<string, { ms: number; n: number }>>) => {
      const names = [...new Set(runs.flatMap((m) => [...m.keys()]))];
      return Object.fromEntries(
        names
          .map((n) => [n, { ms: round2(median(runs.map((m) => m.get(n)?.ms ?? 0)) / phases), calls: round2(median(runs.map((m) => m.get(n)?.n ?? 0)) / phases) }] as const)
          .sort((a, b) => b[1].ms - a[1].ms),
      );
    };
    return {
      what: `a feature run of ${DEV_PHASES.length} dev phases + clean review + passing verify (check \`${TRIVIAL_CHECK}\`, auto-commit, local delivery) through FeatureRunService vs the same ${phases} agent inputs sent directly with services.driver (createSession + runTurn) in a worktree; in-process, built-in executor`,
      phases,
      modelCallsPerRun: calls,
      repetitions: OVERHEAD_REPS,
      runMs: { median: Math.round(run), samples: runMs.map(Math.round) },
      directMs: { median: Math.round(direct), samples: directMs.map(Math.round) },
      overheadPerPhaseMs: round2((run - direct) / phases),
      ratio: round2(run / direct),
      // Where a phase's time goes in the run (medians over the runs, per phase; parts nest: a
      // commit's git calls are in both \`git: commit\` and \`git add/diff/commit\`, the queue's publish inside \`events: emit\`).
      breakdownPerPhaseMs: perPhase(parts),
      gitPerPhase: perPhase(gitCalls.map((m) => new Map([...m].map(([k, v]) => [k, { ms: v.ms, n: v.n }])))),
      gitPinPerPhaseMs: round2(median(gitCalls.map((m) => [...m.values()].reduce((a, v) => a + v.pinMs, 0))) / phases),
      configScansPerRun: median(scans),
    };
  } finally {
    await h?.cleanup();
    for (const r of repos) r.cleanup();
  }
}

// ---- memory ---------------------------------------------------------------------------------

const LEVELS = [1, 5, 10];
/** Pause between SSE events of every reply: a reply of ~7 events takes several seconds, so the runs overlap. */
const DELAY_MS = 700;
/** Enough dev phases that no run finishes while it is being measured (they are cancelled after). */
const MEMORY_DEV_PHASES = ['one', 'two', 'three', 'four', 'five', 'six'];
/** Samples taken at steady state, this far apart; the median is reported. */
const SAMPLES = 5;
const SAMPLE_EVERY_MS = 400;
/**
 * Forced collections before the samples count: V8 gives pages back to the system over several
 * collections, so the first samples after a busy spell overstate RSS (seen as a negative slope).
 */
const SETTLE_SAMPLES = 3;
/** Per agent, as measured for the anchors (Claude Code and similar CLIs, one process per agent). */
const ANCHOR_MB_PER_AGENT = '225–500';
const MB = 1024 * 1024;

/** Each dev phase writes a file and says it is done; review and verify answer cleanly. Slow replies throughout. */
function memoryScript(): Script {
  const slow = { delayMs: DELAY_MS, times: 100_000 };
  return [
    { ...write('phase-notes.md', '# Notes\n\nThe phase is implemented.\n'), match: { userPattern: 'Development phase' }, ...slow },
    { ...text('Phase done.'), match: { userPattern: 'phase-notes.md (' }, ...slow },
    { ...CLEAN_REVIEW, match: { userPattern: 'Review round' }, ...slow },
    { ...VERIFY_PASS, match: { userPattern: 'Verification attempt' }, ...slow },
  ];
}

class Host {
  private readonly waiters: Array<{ match: (m: HostMessage) => boolean; resolve: (m: HostMessage) => void; reject: (e: Error) => void }> = [];
  readonly done = new Map<string, { outcome: string; message: string | null }>();
  private failure: Error | null = null;

  constructor(readonly child: ChildProcess) {
    child.on('message', (raw) => {
      const m = raw as HostMessage;
      if (m.type === 'done') this.done.set(m.slug, { outcome: m.outcome, message: m.message });
      if (m.type === 'error') return this.fail(new Error(`host: ${m.message}`));
      const i = this.waiters.findIndex((w) => w.match(m));
      if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(m);
    });
    child.on('exit', (code, signal) => this.fail(new Error(`the host process exited (${code ?? signal})`)));
  }

  private fail(e: Error): void {
    this.failure ??= e;
    for (const w of this.waiters.splice(0)) w.reject(e);
  }

  send(m: HostRequest): void {
    if (this.failure) throw this.failure;
    this.child.send(m);
  }

  ask<T extends HostMessage['type']>(m: HostRequest, type: T, match: (r: Extract<HostMessage, { type: T }>) => boolean = () => true, timeoutMs = 60_000): Promise<Extract<HostMessage, { type: T }>> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      const timer = setTimeout(() => reject(new Error(`no ${type} answer from the host within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({
        match: (r) => r.type === type && match(r as Extract<HostMessage, { type: T }>),
        resolve: (r) => (clearTimeout(timer), resolve(r as Extract<HostMessage, { type: T }>)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.send(m);
    });
  }

  async memory(): Promise<{ rssMB: number; heapUsedMB: number }> {
    const m = await this.ask({ type: 'memory' }, 'memory');
    return { rssMB: m.rss / MB, heapUsedMB: m.heapUsed / MB };
  }

  async until(test: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!(await test())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function steadySamples(host: Host): Promise<{ rssMB: number; heapUsedMB: number }> {
  const rss: number[] = [];
  const heap: number[] = [];
  for (let i = 0; i < SETTLE_SAMPLES + SAMPLES; i++) {
    const m = await host.memory();
    if (i < SETTLE_SAMPLES) continue;
    rss.push(m.rssMB);
    heap.push(m.heapUsedMB);
    await new Promise((r) => setTimeout(r, SAMPLE_EVERY_MS));
  }
  return { rssMB: round2(median(rss)), heapUsedMB: round2(median(heap)) };
}

async function memory(): Promise<Record<string, unknown>> {
  const server = await startModelServer({ script: memoryScript() });
  const data = tempDir('fd-bench-host-');
  const repos: RunRepo[] = [];
  let child: ChildProcess | null = null;
  const killChild = () => child?.kill('SIGKILL');
  // The bench runner dying (Ctrl-C, an uncaught error) must not leave the host behind.
  process.once('exit', killChild);
  try {
    child = fork(join(HERE, 'feature-runs-host.ts'), [data.path], { cwd: ROOT, execArgv: ['--import', 'tsx', '--expose-gc'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const host = new Host(child);
    await host.ask({ type: 'init', modelUrl: server.url, maxParallel: Math.max(...LEVELS) }, 'ready');

    const makeFeatures = async (n: number, tag: string) => {
      const out: Array<{ repo: string; slug: string }> = [];
      for (let i = 0; i < n; i++) {
        // One repository per feature: concurrent runs in one repository would also measure git lock contention.
        const r = makeRunRepo({ remote: 'none', config: configYaml({ checks: [TRIVIAL_CHECK] }) });
        repos.push(r);
        const slug = `${tag}-${i}`;
        await planFeature(r.repo, slug, MEMORY_DEV_PHASES);
        out.push({ repo: r.repo, slug });
      }
      return out;
    };

    // Warm-up: one run to its end with fast replies, so code loaded on first use counts as idle.
    server.setScript(memoryScript().map((t) => ({ ...t, delayMs: 0 })));
    const [warm] = await makeFeatures(1, 'warm');
    host.send({ type: 'enqueue', projectPath: warm!.repo, slug: warm!.slug });
    await host.until(() => host.done.has(warm!.slug), 'the warm-up run', 120_000);
    if (host.done.get(warm!.slug)!.outcome !== 'completed') throw new Error(`the warm-up run ended ${JSON.stringify(host.done.get(warm!.slug))}`);
    server.setScript(memoryScript());

    const levels: Array<Record<string, number>> = [];
    for (const n of LEVELS) {
      const features = await makeFeatures(n, `n${n}`);
      server.reset();
      // Idle right before each level: RSS drifts down over time as V8 returns pages, so a single
      // baseline taken early would make the later levels look cheaper than nothing.
      const idle = await steadySamples(host);
      for (const f of features) host.send({ type: 'enqueue', projectPath: f.repo, slug: f.slug });
      // Steady: every run is running and has had a model request under way (its session, prompt and stream exist).
      await host.until(async () => (await host.ask({ type: 'running' }, 'running')).count === n, `${n} runs to be running`);
      await host.until(() => server.mainRequests().length >= 2 * n, `${n} runs to be streaming`);
      const m = await steadySamples(host);
      const running = (await host.ask({ type: 'running' }, 'running')).count;
      if (running !== n) throw new Error(`only ${running} of ${n} runs were still running while measured; lengthen the script`);
      levels.push({ running: n, idleRssMB: idle.rssMB, idleHeapUsedMB: idle.heapUsedMB, rssMB: m.rssMB, heapUsedMB: m.heapUsedMB, rssPerFeatureMB: round2((m.rssMB - idle.rssMB) / n), heapPerFeatureMB: round2((m.heapUsedMB - idle.heapUsedMB) / n) });
      for (const f of features) host.send({ type: 'cancel', projectPath: f.repo, slug: f.slug });
      await host.until(() => features.every((f) => host.done.has(f.slug)), `${n} runs to end after cancel`);
    }
    // Idle again: what the finished runs left behind.
    const idleAfter = await steadySamples(host);
    const first = levels[0]!;
    const last = levels.at(-1)!;
    return {
      what: `RSS and heap used (after a forced GC) of a separate host process running the app's services (built-in executor) with N features in dev phases at once, scripted replies streamed with ${DELAY_MS} ms between events; median of ${SAMPLES} samples`,
      levels,
      idleAfter,
      // The slope between the smallest and the largest level: what one more running feature costs.
      mbPerExtraFeature: {
        rss: round2((last.rssMB! - first.rssMB!) / (last.running! - first.running!)),
        heapUsed: round2((last.heapUsedMB! - first.heapUsedMB!) / (last.running! - first.running!)),
      },
      context: `the anchors spend ${ANCHOR_MB_PER_AGENT} MB per agent (one CLI process each); here the built-in agent runs inside the host, so its figure is the per-run increment of one process`,
    };
  } finally {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((r) => child!.once('exit', () => r()));
      child.disconnect(); // The host disposes the services and exits when its channel closes.
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      killChild();
    }
    process.off('exit', killChild);
    await server.close();
    for (const r of repos) r.cleanup();
    data.cleanup();
  }
}

export async function run(): Promise<Record<string, unknown>> {
  return { overhead: await overhead(), memory: await memory() };
}
