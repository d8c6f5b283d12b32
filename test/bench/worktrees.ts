/**
 * Worktree creation through Flightdeck (WorktreeManager.create: slug check, base detection, the
 * branch-in-use check, the ignore entry, `git worktree add`, the entry of the result — and the
 * preparation of a new worktree as the app's hooks do it: the config and the env files' ignore
 * check read while git checks out, then copying them and a port from a range at once, then the
 * start of its setup, whose state is recorded and which runs after create returns) against a bare `git worktree add -b` on the same repository, until each
 * worktree is usable. The ratio is what Flightdeck's safety costs.
 *
 * The setup's command is run by a runner that starts no terminal (the app's runs it in a sandboxed
 * terminal, after create returned): what create pays for it is its state record. Each run waits
 * for its setup (git's listing of untracked files before and after) to end before the next pair,
 * outside the timing.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfig, type FeaturesConfig } from '../../src-main/features/config';
import { observeGit, type GitCallTiming } from '../../src-main/git/git';
import { repoProgramScans } from '../../src-main/git/repo-programs';
import { observeSpans } from '../../src-main/platform/spans';
import { WorktreeSetupService } from '../../src-main/worktrees/setup-service';
import { WorktreeManager } from '../../src-main/worktrees/worktree-manager';
import { earlyPrepare, prepareNewWorktree } from '../../src-main/worktrees/worktree-prepare';
import { gitIn, makeRepo } from '../support/temp';

/** The ports range of the bench's config: allocation is one of the steps measured. */
const PORTS = { start: 4100, end: 4199 };

/** A middling project: enough files that checking them out is real work, as it is for users. */
const FILES = 2_000;
const RUNS = 10;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * CPU time of this process's ended children (user + system, /proc/self/stat; 10 ms ticks, so
 * summed over the runs). It counts what the gits did, not how long they waited for a core or
 * the disk: a figure that other engineers' load on the machine moves far less than wall time.
 */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'latin1');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) * 10;
}
const round1 = (x: number) => Math.round(x * 10) / 10;

export async function run(): Promise<Record<string, unknown>> {
  const repo = makeRepo('fd-bench-wt-');
  try {
    for (let i = 0; i < FILES; i++) {
      const dir = join(repo.path, 'src', `m${i % 40}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`.repeat(20));
    }
    writeFileSync(join(repo.path, '.gitignore'), '.trees/\n.env\n');
    writeFileSync(join(repo.path, '.env'), 'SECRET=1\n');
    gitIn(repo.path, 'add', '.');
    gitIn(repo.path, 'commit', '-q', '-m', 'files');
    const setups = new WorktreeSetupService({
      runner: { runCommand: async () => ({ terminalId: 'bench', exitCode: 0, signal: null, cancelled: false, timedOut: false, durationMs: 0, output: '', truncated: false }) },
      owner: () => ({}),
      commandsOf: async () => ({ commands: [], refused: null }),
    });
    const config = { ...defaultConfig().worktree, ports: PORTS, setup: ['npm ci'] };
    // The project's config as the trust check hands it over (the app's also checks its fingerprint).
    const trusted = async (c: FeaturesConfig) => ({ config: { ...c, worktree: config }, skipped: [] });
    // The app's hooks (app/services.ts): the config and the copy's check-ignore read during the
    // add, then copy and port, then the setup started, not waited for.
    const manager = new WorktreeManager({
      prepareEarly: (root) => earlyPrepare(root, trusted),
      prepare: (root, entry, early) => prepareNewWorktree({ root, worktree: entry.path, trusted, early, startSetup: (commands, env) => setups.begin(root, entry.path, commands, env) }),
      setupDone: (path) => setups.wait(path),
    });
    // Reading the repository's config is part of the first git call in it: done once before timing, like a running app.
    await manager.list(repo.path);
    const raw: number[] = [];
    const flightdeck: number[] = [];
    // Per run: each step's time, and every git call (what it was, where its time went).
    const steps: Array<Record<string, number>> = [];
    const calls: GitCallTiming[][] = [];
    let scans = 0;
    const cpu = { raw: 0, flightdeckChildren: 0, flightdeckOwn: 0 };
    const rawAdd = (i: number) => {
      const c = childrenCpuMs();
      const t = performance.now();
      execFileSync('git', ['worktree', 'add', '-q', '-b', `raw/r${i}`, join(repo.path, '.trees', `raw-${i}`), 'main'], { cwd: repo.path });
      raw.push(performance.now() - t);
      cpu.raw += childrenCpuMs() - c;
    };
    // Interleaved so that caches and machine load affect both alike, and in turns first: the
    // second checkout of a pair writes while the first one's files are still being flushed.
    for (let i = 0; i < RUNS; i++) {
      if (i % 2 === 0) rawAdd(i);
      const seen: GitCallTiming[] = [];
      const parts: Record<string, number> = {};
      observeGit((c) => seen.push(c));
      observeSpans((name, ms) => (parts[name] = (parts[name] ?? 0) + ms));
      const scans0 = repoProgramScans();
      const c0 = childrenCpuMs();
      const own0 = process.cpuUsage();
      const t = performance.now();
      // What a new worktree gets until it is usable: create with the prepare hook (copy, port, the setup started).
      const { entry, prepared } = await manager.create(repo.path, `fd-${i}`);
      const tEnd = performance.now();
      // The setup's first git starts after create returned (setImmediate): not counted here.
      cpu.flightdeckChildren += childrenCpuMs() - c0;
      const ownCpu = process.cpuUsage(own0);
      cpu.flightdeckOwn += (ownCpu.user + ownCpu.system) / 1000;
      observeGit(null);
      observeSpans(null);
      if (!prepared?.setupStarted || prepared.port === null) throw new Error('the bench worktree was not prepared as the app prepares one');
      flightdeck.push(tEnd - t);
      // Only the gits create itself waited for; the setup's own (its untracked listings) run after.
      const own = seen.filter((c) => !(c.args[0] === 'ls-files'));
      calls.push(own);
      scans += repoProgramScans() - scans0;
      const add = own.filter((c) => c.args[0] === 'worktree' && c.args[1] === 'add');
      steps.push({
        total: tEnd - t,
        repoRoot: parts['worktree: repo root'] ?? 0,
        checks: parts['worktree: checks'] ?? 0,
        worktreeAdd: sum(add.map((c) => c.waitMs + c.pinMs + c.execMs)),
        entry: parts['worktree: entry'] ?? 0,
        prepare: parts['worktree: prepare'] ?? 0,
        copy: parts['worktree: copy'] ?? 0,
        port: parts['worktree: port'] ?? 0,
        setupRecord: parts['worktree: setup record'] ?? 0,
        setupStart: parts['worktree: setup start'] ?? 0,
      });
      await manager.setupDone(entry.path);
      if (i % 2 === 1) rawAdd(i);
    }
    const rawMs = median(raw);
    const fdMs = median(flightdeck);
    const byCommand = new Map<string, number[][]>();
    calls.forEach((run) => {
      const per = new Map<string, number[]>();
      for (const c of run) {
        const name = c.args[0] === 'worktree' || c.args[0] === 'rev-parse' ? c.args.slice(0, 2).join(' ') : c.args[0]!;
        const v = per.get(name) ?? [0, 0, 0, 0];
        per.set(name, [v[0]! + 1, v[1]! + c.waitMs + c.pinMs + c.execMs, v[2]! + c.pinMs, v[3]! + c.execMs]);
      }
      for (const [name, v] of per) byCommand.set(name, [...(byCommand.get(name) ?? []), v]);
    });
    const gitCalls: Record<string, Record<string, number>> = {};
    for (const [name, runs] of byCommand) {
      gitCalls[name] = { perRun: runs.length === RUNS ? median(runs.map((v) => v[0]!)) : round1(sum(runs.map((v) => v[0]!)) / RUNS), ms: round1(median(runs.map((v) => v[1]!))), pinMs: round1(median(runs.map((v) => v[2]!))), execMs: round1(median(runs.map((v) => v[3]!))) };
    }
    const stepMedians = Object.fromEntries(Object.keys(steps[0]!).map((k) => [k, round1(median(steps.map((s) => s[k]!)))]));
    return {
      what: 'WorktreeManager.create with the app prepare hooks (config and the env files\' check-ignore read during the add; env files copied and a port from a range at once; the setup started and recorded, run after), vs `git worktree add -b` of the same base; medians',
      files: FILES,
      runs: RUNS,
      rawGitMedianMs: Math.round(rawMs),
      flightdeckMedianMs: Math.round(fdMs),
      ratio: Math.round((fdMs / rawMs) * 100) / 100,
      // Per hop: the repository's root, the checks' round of gits, the add, reading the new entry, and the
      // prepare hook (copy and port side by side, so prepare < copy + port; the setup's state record).
      breakdownMs: { ...stepMedians, besidesWorktreeAdd: round1(stepMedians.total! - stepMedians.worktreeAdd!) },
      // The app's own `git worktree add` (pinned git dir, safe -c settings, descriptor prelude) against the raw one.
      worktreeAddVsRaw: Math.round((stepMedians.worktreeAdd! / rawMs) * 100) / 100,
      // Means per run of CPU time (not wall): the raw add's git; create's children (the add with its
      // prelude shell, the copy's check-ignore); create's own in this process (JS, fs calls, spawning).
      cpuMsPerRun: {
        rawGit: round1(cpu.raw / RUNS),
        flightdeckChildren: round1(cpu.flightdeckChildren / RUNS),
        flightdeckOwn: round1(cpu.flightdeckOwn / RUNS),
        ratio: Math.round(((cpu.flightdeckChildren + cpu.flightdeckOwn) / cpu.raw) * 100) / 100,
      },
      gitCallsPerRun: round1(sum(calls.map((c) => c.length)) / RUNS),
      configScansPerRun: round1(scans / RUNS),
      gitCalls,
    };
  } finally {
    repo.cleanup();
  }
}
