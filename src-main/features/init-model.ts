/**
 * Pure init logic: which checks and setup commands a repository's own files imply, which files
 * are worth showing the model, and the config.yml Flightdeck writes from the detected values and
 * the model's proposal. The model's proposal is taken only where it validates; everything else
 * falls back to what was detected, so init always yields a valid config. No I/O.
 */
import { Document, isMap, parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { detectTestCommands, type ProjectFiles } from '../test-runners/detect';
import { CONFIG_VERSION, defaultConfig, parseConfig, type FeaturesConfig } from './config';

/** What init knows about the repository: its file list and the contents of a few key files. */
export interface RepoFacts {
  /** Repository-relative paths (tracked and untracked-not-ignored), `/`-separated. */
  paths: readonly string[];
  /** Contents of the files in {@link KEY_FILES} that exist (and of any sampled file, and a few Python test files). */
  contents: ReadonlyMap<string, string>;
}

/** Files that say how a project is built and tested, read for detection and shown to the model. */
export const KEY_FILES = [
  'README.md',
  'README',
  'README.rst',
  'package.json',
  'pyproject.toml',
  'setup.cfg',
  'pytest.ini',
  'tox.ini',
  'Cargo.toml',
  'go.mod',
  'Makefile',
  'tsconfig.json',
] as const;

/** package.json scripts that are checks besides the tests, in the order they are best run (cheap first). */
const CHECK_SCRIPTS = ['build', 'typecheck', 'lint'] as const;

export interface Detected {
  checks: string[];
  setup: string[];
  /** One line per detected toolchain, for the prompt and the fallback overview. */
  toolchains: string[];
}

function packageRunner(paths: ReadonlySet<string>): { run: (s: string) => string; test: string; install: string | null } {
  if (paths.has('pnpm-lock.yaml')) return { run: (s) => `pnpm run --silent ${s}`, test: 'pnpm test', install: 'pnpm install --frozen-lockfile' };
  if (paths.has('yarn.lock')) return { run: (s) => `yarn run --silent ${s}`, test: 'yarn test', install: 'yarn install --frozen-lockfile' };
  if (paths.has('bun.lockb') || paths.has('bun.lock')) return { run: (s) => `bun run ${s}`, test: 'bun run test', install: 'bun install --frozen-lockfile' };
  return { run: (s) => `npm run -s ${s}`, test: 'npm test', install: paths.has('package-lock.json') ? 'npm ci' : 'npm install' };
}

function packageScripts(text: string | undefined): Record<string, string> {
  if (text === undefined) return {};
  try {
    const pkg = JSON.parse(text) as { scripts?: unknown };
    if (!pkg.scripts || typeof pkg.scripts !== 'object') return {};
    return Object.fromEntries(Object.entries(pkg.scripts as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    // A broken package.json detects nothing; the model still sees the file and can say so.
    return {};
  }
}

/** The detector's view of what init gathered. */
export function factsAsFiles(f: RepoFacts): ProjectFiles {
  return { paths: f.paths, read: (p) => f.contents.get(p) ?? null };
}

/**
 * The checks and setup commands the repository's own files imply. The test command comes from
 * the test-runner detector (src-main/test-runners), in the runner's non-watch form; a Makefile
 * target is a check only when no language runner was found, so tests do not run twice.
 */
export function detectFromRepo(f: RepoFacts): Detected {
  const paths = new Set(f.paths);
  const checks: string[] = [];
  const setup: string[] = [];
  const toolchains: string[] = [];
  const tests = detectTestCommands(factsAsFiles(f));
  const testOf = (...runners: string[]) => tests.filter((t) => runners.includes(t.runner)).map((t) => t.command);
  if (paths.has('package.json')) {
    const runner = packageRunner(paths);
    const scripts = packageScripts(f.contents.get('package.json'));
    for (const name of CHECK_SCRIPTS) if (scripts[name] !== undefined) checks.push(runner.run(name));
    checks.push(...testOf('node-test', 'vitest', 'jest', 'mocha', 'ava', 'tap', 'package-script'));
    if (runner.install) setup.push(runner.install);
    toolchains.push(`Node.js package (package.json${Object.keys(scripts).length ? `; scripts: ${Object.keys(scripts).join(', ')}` : ''})`);
  }
  if (paths.has('Cargo.toml')) {
    checks.push('cargo build', ...testOf('cargo'));
    toolchains.push('Rust crate (Cargo.toml)');
  }
  if (paths.has('go.mod')) {
    checks.push('go build ./...', 'go vet ./...', ...testOf('go'));
    toolchains.push('Go module (go.mod)');
  }
  const python = tests.find((t) => t.runner === 'pytest' || t.runner === 'unittest');
  if (python) {
    checks.push(python.command);
    toolchains.push(`Python tests with ${python.runner}`);
  } else if (paths.has('pyproject.toml') || paths.has('setup.py') || paths.has('setup.cfg') || f.paths.some((p) => p.endsWith('.py'))) {
    toolchains.push('Python');
  }
  const make = testOf('make');
  if (make.length > 0 && checks.length === 0) {
    checks.push(...make);
    toolchains.push('Makefile');
  }
  if (paths.has('pom.xml') || paths.has('gradlew') || paths.has('build.gradle') || paths.has('build.gradle.kts')) checks.push(...testOf('maven', 'gradle'));
  return { checks, setup, toolchains };
}

/** The repository tree as one path per line, cut at `max` entries with a note saying so. */
export function formatTree(paths: readonly string[], max: number): string {
  const sorted = [...paths].sort();
  const shown = sorted.slice(0, max);
  return sorted.length > max ? `${shown.join('\n')}\n… and ${sorted.length - max} more files` : shown.join('\n');
}

/** What the model proposed, each key validated on its own so one bad key does not spoil the rest. */
const ProposedChecks = z.array(z.string().trim().min(1).max(500)).max(30);
const ProposedSetup = z.array(z.string().trim().min(1).max(500)).max(20);
const ProposedBase = z.string().trim().regex(/^[A-Za-z0-9._/-]+$/).max(200);

export interface InitConfigResult {
  /** The config.yml text, validated by the same parser that loads it. */
  text: string;
  config: FeaturesConfig;
  /** What was not taken from the model, and why. */
  notes: string[];
}

function dedupe(list: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of list) {
    const c = raw.trim().replace(/\s+/g, ' ');
    if (c === '' || seen.has(c)) continue;
    seen.add(c);
    out.push(c);
  }
  return out;
}

/**
 * Written commented out inside `agent:`, so a project sees how to place its feature runs in a
 * container (and can uncomment it as it is); absent, runs work on this machine.
 */
const PLACEMENT_EXAMPLE = [
  ' Where feature runs work unless the feature or the run says otherwise (docs/features.md,',
  ' "Placement"); absent: on this machine. To run them in a Docker container, uncomment:',
  ' placement:',
  '   kind: container',
  '   image: flightdeck-agent:latest',
  '   engine: local               # a name from Settings → Engines; left out: the default engine',
  '   gpus: { kind: none }        # or { kind: all } | { kind: count, count: 2 } | { kind: ids, ids: ["0"] }',
  '   network: bridge             # bridge | host | none',
].join('\n');

const HEADER = [
  '# Flightdeck features config (see docs/features.md for every key and its default).',
  '# Written by "feature init" from the repository and the agents\' proposal; edit freely.',
].join('\n');

/**
 * The config init writes: the documented defaults, the detected checks and setup merged with the
 * model's proposal (`proposalYaml`, the text of its `<config_yml>` block, or null). The checks
 * are the detected ones followed by the model's additional ones; an invalid proposal is ignored
 * with a note. The result always validates.
 */
export function buildInitConfig(detected: Detected, proposalYaml: string | null, path: string): InitConfigResult {
  const notes: string[] = [];
  let proposal: Record<string, unknown> = {};
  if (proposalYaml === null) {
    notes.push('the agent proposed no config (no <config_yml> block in its answer): used the detected checks');
  } else {
    try {
      const v: unknown = parseYaml(proposalYaml, { maxAliasCount: 100 });
      if (v && typeof v === 'object' && !Array.isArray(v)) proposal = v as Record<string, unknown>;
      else notes.push('the agent\'s config proposal is not a YAML mapping: used the detected checks');
    } catch (e) {
      notes.push(`the agent's config proposal is not valid YAML (${(e as Error).message.split('\n')[0]}): used the detected checks`);
    }
  }
  const take = <T>(key: string, value: unknown, schema: z.ZodType<T>): T | undefined => {
    if (value === undefined) return undefined;
    const r = schema.safeParse(value);
    if (r.success) return r.data;
    notes.push(`ignored the agent's ${key}: ${r.error.issues[0]?.message ?? 'invalid'}`);
    return undefined;
  };
  const worktree = proposal.worktree && typeof proposal.worktree === 'object' ? (proposal.worktree as Record<string, unknown>) : {};
  const git = proposal.git && typeof proposal.git === 'object' ? (proposal.git as Record<string, unknown>) : {};
  const checks = dedupe([...detected.checks, ...(take('checks', proposal.checks, ProposedChecks) ?? [])]);
  const setup = dedupe([...detected.setup, ...(take('worktree.setup', worktree.setup, ProposedSetup) ?? [])]);
  const base = take('git.base_branch', git.base_branch, ProposedBase);

  const defaults = defaultConfig();
  const doc = {
    version: CONFIG_VERSION,
    agent: defaults.agent,
    // An explicit list, empty when nothing was found: the built-in default list is for Rust projects.
    checks,
    prompts: defaults.prompts,
    git: { ...defaults.git, ...(base ? { base_branch: base } : {}) },
    review: defaults.review,
    worktree: { ...defaults.worktree, setup },
  };
  const yaml = new Document(doc);
  const agent = yaml.get('agent', true);
  if (isMap(agent)) agent.comment = PLACEMENT_EXAMPLE;
  const text = `${HEADER}\n${yaml.toString({ lineWidth: 0 })}`;
  // Round-trip through the loader: what is written is exactly what loads.
  const config = parseConfig(text, path);
  return { text, config, notes };
}

/** The overview when the agents gave none: what detection found, plainly. */
export function fallbackOverview(repoName: string, detected: Detected, analysis: string): string {
  if (analysis.trim().length > 0) return `# ${repoName}\n\n${analysis.trim()}\n`;
  const lines = [`# ${repoName}`, '', 'Overview written from the repository\'s files (the agents gave none).', ''];
  if (detected.toolchains.length) lines.push('## Toolchains', '', ...detected.toolchains.map((t) => `- ${t}`), '');
  if (detected.checks.length) lines.push('## Checks', '', ...detected.checks.map((c) => `- \`${c}\``), '');
  return lines.join('\n');
}
