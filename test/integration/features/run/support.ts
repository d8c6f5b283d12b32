/**
 * Feature-run tests: a real repository (with a bare origin when asked), the project's
 * config.yml committed on main, a planned feature made the way finalize makes one (a worktree
 * from the WorktreeManager, specs and state.yml written with the state writer, one commit), the
 * real services on a temporary data folder and the scripted model server.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FeatureRunEvent } from '../../../../src-preload/contract';
import type { AppServices } from '../../../../src-main/app/services';
import { trustRepository } from '../../../support/trust';
import { newFeatureState, readState, writeState } from '../../../../src-main/features/state';
import { FeatureApprovals } from '../../../../src-main/features/approvals';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { WorktreeManager } from '../../../../src-main/worktrees/worktree-manager';
import { startModelServer, type ModelServer, type Script } from '../../../fixtures/model-server/index';
import { startTestApp } from '../../../support/app';
import { gitIn, makeRepo, tempDir } from '../../../support/temp';
import { saveTestProfile } from '../../agents/harness';
import type { HostProcess } from '../../hardening/support';

/** This folder; import.meta rather than __dirname so the benches (tsx, ESM) can import these helpers too. */
const HERE = dirname(fileURLToPath(import.meta.url));

export const FAKE_GH_DIR = resolve(HERE, '../../../fixtures/gh');

export type Remote = 'none' | 'bare' | 'github';

export interface RunRepo {
  repo: string;
  origin: string | null;
  cleanup(): void;
}

export const DESIGN = (phases: string[]) =>
  ['# Design', '', 'Add a tiny math library.', '', '## Development Phases', '', ...phases.flatMap((p, i) => [`### Phase ${i + 1}: ${p}`, '', `Build ${p}.`, ''])].join('\n');
export const VERIFICATION = '# Verification\n\n- sum(2, 3) is 5\n- the tests pass\n';

export function configYaml(o: { checks?: string[]; extra?: string } = {}): string {
  const checks = o.checks ?? ['node --test'];
  return [
    'version: 1',
    'agent:',
    '  model: scripted-model',
    '  max_budget_usd: 20',
    '  max_retries: 1',
    '  max_turns: 50',
    `checks: [${checks.map((c) => JSON.stringify(c)).join(', ')}]`,
    'git:',
    '  auto_commit: true',
    '  branch_prefix: feature',
    '  base_branch: main',
    'review:',
    '  enabled: true',
    '  max_review_rounds: 3',
    o.extra ?? '',
  ].join('\n');
}

/**
 * The run tests play a user who reviewed and trusted their repository (its checks, templates and
 * placement are used): every repository made here is trusted in the harness's data folder, whether
 * the harness starts before or after it. Workspace trust itself: test/integration/trust.
 */
const madeRepos = new Set<string>();
let liveApp: AppServices | null = null;

async function trustMade(app: AppServices): Promise<void> {
  for (const repo of madeRepos) if (existsSync(repo)) await trustRepository(app, repo);
}

/** A repository with config.yml on main (and an origin as asked) and identity configured for commits. */
export function makeRunRepo(o: { remote: Remote; config?: string }): RunRepo {
  const r = makeRepo('fd-run-');
  gitIn(r.path, 'config', 'user.name', 'Runner Test');
  gitIn(r.path, 'config', 'user.email', 'runner@example.com');
  mkdirSync(join(r.path, '.flightdeck'), { recursive: true });
  writeFileSync(join(r.path, '.flightdeck', 'config.yml'), o.config ?? configYaml());
  writeFileSync(join(r.path, '.gitignore'), '.trees/\n');
  gitIn(r.path, 'add', '.');
  gitIn(r.path, 'commit', '-q', '-m', 'flightdeck config');
  let origin: string | null = null;
  let remoteDir: { cleanup(): void } | null = null;
  if (o.remote !== 'none') {
    const d = tempDir('fd-run-origin-');
    remoteDir = d;
    origin = join(d.path, 'origin.git');
    gitIn(d.path, 'init', '-q', '--bare', origin);
    if (o.remote === 'bare') gitIn(r.path, 'remote', 'add', 'origin', origin);
    else {
      // A GitHub-looking remote whose pushes land in the local bare repository.
      gitIn(r.path, 'remote', 'add', 'origin', 'https://github.com/acme/widgets.git');
      gitIn(r.path, 'remote', 'set-url', '--push', 'origin', origin);
    }
    gitIn(r.path, 'push', '-q', origin, 'main:main');
  }
  madeRepos.add(r.path);
  // trust() records synchronously (its promise only carries the status back).
  // A harness disposed without its cleanup (an e2e spec that keeps its data folder) is not live.
  if (liveApp?.db.open) void liveApp.trust.trust(r.path);
  else liveApp = null;
  return {
    repo: r.path,
    origin,
    cleanup() {
      madeRepos.delete(r.path);
      r.cleanup();
      remoteDir?.cleanup();
    },
  };
}

/** A planned feature, as finalize leaves it: worktree + branch, specs, state.yml, one commit. */
export async function planFeature(repo: string, slug: string, devPhases: string[], o: { agent?: { executor: 'builtin' | 'claude-code' } } = {}): Promise<string> {
  const wm = new WorktreeManager({ baseBranch: 'main' });
  wm.start();
  const { entry } = await wm.create(repo, slug);
  wm.dispose();
  const dir = join(entry.path, '.flightdeck', slug);
  mkdirSync(join(dir, 'specs'), { recursive: true });
  writeFileSync(join(dir, 'specs', 'design.md'), DESIGN(devPhases));
  writeFileSync(join(dir, 'specs', 'verification.md'), VERIFICATION);
  const state = newFeatureState({ slug, now: new Date(), worktreePath: `.trees/${slug}`, branch: `feature/${slug}`, baseBranch: 'main', devPhases });
  writeState(activeStatePath(repo, slug), o.agent ? ({ ...state, agent: { executor: o.agent.executor, profile: null, model: null, mode: 'yolo' } } as typeof state) : state);
  gitIn(entry.path, 'add', '.');
  gitIn(entry.path, 'commit', '-q', '-m', `feat(${slug}): initialize planning artifacts`);
  return entry.path;
}

/**
 * Records the feature's agent settings (as its state.yml holds them now) as approved, what
 * finalize does when a plan is approved (src-main/features/approvals.ts): a run uses the record
 * over state.yml, which the agent can write.
 */
export async function recordApproval(app: AppServices, repo: string, slug: string): Promise<void> {
  const agent = (await readState(activeStatePath(repo, slug))).agent;
  if (!agent) throw new Error(`${slug}: state.yml has no agent block to approve`);
  new FeatureApprovals(app.db).record(repo, slug, agent);
}

export function commitSubjects(cwd: string, range: string): string[] {
  return gitIn(cwd, 'log', '--format=%s', range).split('\n').filter(Boolean);
}

export function showFile(cwd: string, rev: string, path: string): string {
  return execFileSync('git', ['show', `${rev}:${path}`], { cwd, encoding: 'utf8' });
}

export interface RunHarness {
  app: AppServices;
  server: ModelServer;
  dataDir: string;
  events: FeatureRunEvent[];
  cleanup(): Promise<void>;
}

/** The services on a fresh data folder, the scripted server as the default profile, run events collected. */
export async function runHarness(script: Script, o: { dataDir?: string; coderEnv?: Record<string, string> } = {}): Promise<RunHarness> {
  const server = await startModelServer({ script });
  const data = o.dataDir ? { path: o.dataDir, cleanup() {} } : tempDir('fd-run-data-');
  const started = o.coderEnv
    ? { app: await (await import('../../../../src-main/app/services')).AppServices.create({ dataDir: data.path, logger: (await import('../../../../src-main/platform/logger')).silentLogger, platform: { runtime: 'browser' }, coderEnv: o.coderEnv }) }
    : await startTestApp(data.path);
  const app = started.app;
  app.agents.backoff = { baseMs: 5, maxMs: 40 };
  saveTestProfile(app, server.url);
  liveApp = app;
  await trustMade(app);
  const events: FeatureRunEvent[] = [];
  app.hub.subscribe((e) => {
    if (e.topic === 'featureRuns.event') events.push(e.payload as FeatureRunEvent);
  });
  return {
    app,
    server,
    dataDir: data.path,
    events,
    async cleanup() {
      if (liveApp === app) liveApp = null;
      app.dispose();
      await server.close();
      data.cleanup();
    },
  };
}

/** What a test that kills a run and resumes it in a long-lived host starts; each kept here as it is made. */
export interface HostTest {
  repo: RunRepo | null;
  server: ModelServer | null;
  host: HostProcess | null;
  data: { path: string; cleanup(): void } | null;
}

export const hostTest = (): HostTest => ({ repo: null, server: null, host: null, data: null });

/** Stops and removes everything T holds (the test's afterEach), leaving it empty for the next test. */
export async function cleanupHostTest(t: HostTest): Promise<void> {
  await t.host?.stop();
  await t.server?.close();
  t.repo?.cleanup();
  t.data?.cleanup();
  t.host = t.server = t.repo = t.data = null;
}

/** What an in-process run test starts: its repository and harness, each kept here as it is made. */
export interface RunTest {
  repo: RunRepo | null;
  h: RunHarness | null;
}

export const runTest = (): RunTest => ({ repo: null, h: null });

/** Stops and removes everything T holds (the test's afterEach), leaving it empty for the next test. */
export async function cleanupRunTest(t: RunTest): Promise<void> {
  await t.h?.cleanup();
  t.repo?.cleanup();
  t.h = t.repo = null;
}

/** PATH with the scripted gh first, and its scenario folder (outside /tmp, which the sandbox replaces). */
export function withFakeGh(scenario: unknown): { env: Record<string, string>; dir: string; cleanup(): void } {
  const base = resolve(HERE, '../../../../test-results');
  mkdirSync(base, { recursive: true });
  const dir = execFileSync('mktemp', ['-d', join(base, 'fake-gh-XXXXXX')], { encoding: 'utf8' }).trim();
  writeFileSync(join(dir, 'scenario.json'), JSON.stringify(scenario));
  const env = { PATH: `${FAKE_GH_DIR}${delimiter}${process.env.PATH ?? ''}`, GH_CONFIG_DIR: dir };
  // Retried: a scripted gh the disposed app started just before may still be recording its call
  // there (rm -rf failed with "Directory not empty" when a record landed mid-removal).
  return { env, dir, cleanup: () => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }) };
}

export const text = (t: string): Script[number] => ({ blocks: [{ type: 'text', text: t }] });
export const write = (path: string, content: string): Script[number] => ({ blocks: [{ type: 'tool_use', name: 'write', input: { path, content } }] });
export const bash = (command: string): Script[number] => ({ blocks: [{ type: 'tool_use', name: 'bash', input: { command } }] });
export const CLEAN_REVIEW = text('Looks good.\n\n```yaml\nissues: []\n```');
export const VERIFY_PASS = text('All items hold.\n\n```yaml\nresult: pass\nitems:\n  - item: sum(2, 3) is 5\n    result: pass\n  - item: the tests pass\n    result: pass\n```');
export const SUM_JS = 'export function sum(a, b) { return a + b; }\n';
/** The verifier's answer that passes with no items (what a candidate's verify step is scripted with). */
export const PASS_NO_ITEMS = text('```yaml\nresult: pass\nitems: []\n```');
/** A config with no checks and the review pipeline off: a feature run goes straight from coder to verify. */
export const NO_PIPELINE_CONFIG = (): string => configYaml({ checks: [] }).replace('enabled: true', 'enabled: false');

/**
 * SLUG planned with one phase in REPO and a harness scripted for two candidates that each write
 * sum.mjs (the second with SECOND_SUM) and pass, run one at a time so the answers go in order.
 */
export async function twoCandidateHarness(repo: string, slug: string, secondSum: string): Promise<{ featureTree: string; h: RunHarness }> {
  const featureTree = await planFeature(repo, slug, ['work']);
  const h = await runHarness([write('sum.mjs', SUM_JS), text('Done.'), PASS_NO_ITEMS, write('sum.mjs', secondSum), text('Done.'), PASS_NO_ITEMS]);
  h.app.featureRuns.setMaxParallel(1);
  return { featureTree, h };
}
export const SUM_TEST = "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { sum } from './sum.mjs';\ntest('sum', () => assert.strictEqual(sum(2, 3), 5));\n";
