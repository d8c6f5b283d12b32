/**
 * The one test-runner detector: which test command a project actually runs, and in the form
 * that ends by itself. Auto-verify, `feature init`'s checks and the corpus tests all ask it.
 *
 * A watch-mode default is the trap it exists for: `npm test -- --watch=false` looks harmless,
 * but Node's own runner takes `--watch=false` as `--watch` and never exits. So each runner is
 * recognised from the package's scripts (and its config files) and gets a non-watch flag only
 * where that runner has one (vitest `--run`, jest `--watchAll=false`); every runner also gets
 * `CI=true` in its environment, which vitest and jest honour. Pure: the caller says what files
 * exist and what they hold.
 */

export type TestRunnerId = 'node-test' | 'vitest' | 'jest' | 'mocha' | 'ava' | 'tap' | 'package-script' | 'pytest' | 'unittest' | 'go' | 'cargo' | 'make' | 'maven' | 'gradle';

export interface TestCommand {
  runner: TestRunnerId;
  /** The command line, run by a shell in the project's root. */
  command: string;
  /** Set in the command's environment on top of the usual one. */
  env: Readonly<Record<string, string>>;
  /** Where it was read from, for the user ("package.json scripts.test runs vitest"). */
  reason: string;
}

/** What the detector may look at: repository-relative, `/`-separated paths. */
export interface ProjectFiles {
  /** Every path of the project (tracked and untracked-not-ignored); used for Python test files. */
  paths: readonly string[];
  /** A file's text, or null when it is absent or unreadable. */
  read(path: string): string | null;
}

/** Honoured by vitest (std-env), jest (ci-info) and most runners: no watch, no prompts, no colours. */
export const TEST_ENV: Readonly<Record<string, string>> = Object.freeze({ CI: 'true' });

export type PackageManager = 'npm' | 'pnpm' | 'yarn' | 'bun';

/** The non-watch flag of runners that have one; the others never watch unless told to. */
const NON_WATCH_FLAG: Partial<Record<TestRunnerId, string>> = { vitest: '--run', jest: '--watchAll=false' };

/** npm's placeholder test script: present in every `npm init` package, never a real test. */
const NPM_PLACEHOLDER_TEST = /no test specified/;
/** Scripts calling scripts: deeper than this is a loop or not worth following. */
const MAX_SCRIPT_DEPTH = 4;

export function packageManager(files: ProjectFiles, pkg?: Record<string, unknown> | null): PackageManager {
  const declared = typeof pkg?.packageManager === 'string' ? /^(npm|pnpm|yarn|bun)@/.exec(pkg.packageManager)?.[1] : undefined;
  if (declared) return declared as PackageManager;
  const has = new Set(files.paths);
  if (has.has('pnpm-lock.yaml')) return 'pnpm';
  if (has.has('yarn.lock')) return 'yarn';
  if (has.has('bun.lockb') || has.has('bun.lock')) return 'bun';
  return 'npm';
}

/** `<pm> test` with extra arguments passed on to the script, in each manager's syntax. */
export function packageTestCommand(pm: PackageManager, args: string | null): string {
  const base = pm === 'bun' ? 'bun run test' : `${pm} test`;
  if (!args) return base;
  // npm needs `--` to pass arguments to the script; pnpm, yarn and bun pass them on as they are.
  return pm === 'npm' ? `${base} -- ${args}` : `${base} ${args}`;
}

export function readPackageJson(files: ProjectFiles): Record<string, unknown> | null {
  const text = files.read('package.json');
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    // A package.json that does not parse runs no scripts either.
    return null;
  }
}

export function packageScripts(pkg: Record<string, unknown> | null): Record<string, string> {
  const s = pkg?.scripts;
  if (!s || typeof s !== 'object') return {};
  return Object.fromEntries(Object.entries(s as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** Programs that run the next word as the command (`npx vitest`, `cross-env CI=1 jest`, `c8 node --test`). */
const WRAPPERS = new Set(['npx', 'pnpx', 'bunx', 'exec', 'cross-env', 'dotenv', 'env', 'c8', 'nyc', 'time', 'nice']);

/** The runner one shell command (no `&&`) starts, or null for something else. */
function runnerOfCommand(words: string[], scripts: Record<string, string>, depth: number): TestRunnerId | null {
  let i = 0;
  for (;;) {
    const w = words[i];
    if (w === undefined) return null;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w) || WRAPPERS.has(basename(w)) || (w.startsWith('-') && i > 0)) {
      i++;
      continue;
    }
    // `pnpm exec jest`, `yarn jest`, `npm exec -- jest`
    if ((w === 'pnpm' || w === 'yarn' || w === 'npm' || w === 'bun') && words[i + 1] !== undefined) {
      const next = words[i + 1]!;
      if (next === 'run' || next === 'run-script') {
        const target = words[i + 2];
        return target !== undefined && depth < MAX_SCRIPT_DEPTH && scripts[target] !== undefined ? scriptRunner(scripts[target]!, scripts, depth + 1).runner : null;
      }
      if (next === 'test' || next === 't') return depth < MAX_SCRIPT_DEPTH && scripts.test !== undefined ? scriptRunner(scripts.test, scripts, depth + 1).runner : null;
      if (next === 'exec' || next === 'dlx' || w === 'yarn' || w === 'bun') {
        i += next === 'exec' || next === 'dlx' ? 2 : 1;
        continue;
      }
      return null;
    }
    break;
  }
  const prog = basename(words[i]!);
  const rest = words.slice(i + 1);
  if (prog === 'node' && rest.some((a) => a === '--test' || a.startsWith('--test='))) return 'node-test';
  if (prog === 'vitest') return 'vitest';
  if (prog === 'jest' || (prog === 'react-scripts' && rest[0] === 'test')) return 'jest';
  if (prog === 'mocha' || prog === '_mocha') return 'mocha';
  if (prog === 'ava') return 'ava';
  if (prog === 'tap') return 'tap';
  return null;
}

function basename(w: string): string {
  return w.replace(/^.*\//, '');
}

/** Splits a script at `&&`, `||`, `;` and `|`, each part into words (quotes dropped, not parsed further). */
function commandsOf(script: string): string[][] {
  return script
    .split(/&&|\|\||;|\|/)
    .map((part) => part.trim().split(/\s+/).filter((w) => w !== '').map((w) => w.replace(/^['"]|['"]$/g, '')))
    .filter((words) => words.length > 0);
}

/**
 * The runner a script starts, and whether arguments appended to the script reach it: it is
 * the script's last command and starts the runner itself (not through another script), so
 * `npm test -- --run` lands on vitest and not on `eslint` or a nested `npm run`.
 */
export function scriptRunner(script: string, scripts: Record<string, string> = {}, depth = 0): { runner: TestRunnerId | null; takesArgs: boolean } {
  const cmds = commandsOf(script);
  let found: TestRunnerId | null = null;
  let takesArgs = false;
  cmds.forEach((words, idx) => {
    const r = runnerOfCommand(words, scripts, depth);
    if (r === null) return;
    if (found === null) found = r;
    if (idx === cmds.length - 1 && r === found) takesArgs = !callsScript(words);
  });
  return { runner: found, takesArgs };
}

/** Whether a command runs another package script (`npm run unit`, `yarn test`) rather than a runner. */
function callsScript(words: string[]): boolean {
  return words.some((w, i) => ['npm', 'pnpm', 'yarn', 'bun'].includes(w) && ['run', 'run-script', 'test', 't'].includes(words[i + 1] ?? ''));
}

/** Config files that name the runner when the script does not (`"test": "npm run unit"`). */
const CONFIG_FILES: Array<[RegExp, TestRunnerId]> = [
  [/^vitest\.config\.(js|mjs|cjs|ts|mts|cts)$/, 'vitest'],
  [/^vitest\.workspace\.(js|mjs|ts|json)$/, 'vitest'],
  [/^jest\.config\.(js|mjs|cjs|ts|json)$/, 'jest'],
  [/^\.mocharc\.(js|cjs|json|jsonc|yml|yaml)$/, 'mocha'],
  [/^ava\.config\.(js|mjs|cjs)$/, 'ava'],
  [/^\.taprc$/, 'tap'],
];

function nodeTestCommand(files: ProjectFiles): TestCommand | null {
  const pkg = readPackageJson(files);
  const scripts = packageScripts(pkg);
  const test = scripts.test;
  if (test === undefined || test.trim() === '' || NPM_PLACEHOLDER_TEST.test(test)) return null;
  const pm = packageManager(files, pkg);
  const { runner, takesArgs } = scriptRunner(test, scripts);
  const byConfig = runner === null ? CONFIG_FILES.find(([re]) => files.paths.some((p) => re.test(p)))?.[1] ?? null : null;
  const id = runner ?? byConfig ?? 'package-script';
  // A flag only where the runner has one and it reaches the runner; `vitest run` already is one.
  const flag = runner !== null && takesArgs ? NON_WATCH_FLAG[runner] : undefined;
  const alreadyOnce = runner === 'vitest' && /\bvitest\s+run\b|--run\b/.test(test);
  const alreadyJest = runner === 'jest' && /--watchAll=false|--ci\b/.test(test);
  const args = flag && !alreadyOnce && !alreadyJest ? flag : null;
  const what = id === 'package-script' ? 'a script of its own' : id;
  return { runner: id, command: packageTestCommand(pm, args), env: TEST_ENV, reason: `package.json scripts.test runs ${what} (${pm})` };
}

function pythonTestCommand(files: ProjectFiles): TestCommand | null {
  const has = new Set(files.paths);
  const read = (p: string) => files.read(p) ?? '';
  const pytestConfig =
    has.has('pytest.ini') ||
    has.has('conftest.py') ||
    files.paths.some((p) => p.endsWith('/conftest.py')) ||
    /\[tool\.pytest/.test(read('pyproject.toml')) ||
    /\[tool:pytest\]/.test(read('setup.cfg')) ||
    /\[pytest\]/.test(read('tox.ini'));
  if (pytestConfig) return { runner: 'pytest', command: 'python3 -m pytest -q', env: TEST_ENV, reason: 'a pytest configuration' };
  const tests = files.paths.filter((p) => /(^|\/)test_[^/]*\.py$|(^|\/)[^/]*_test\.py$/.test(p) && !p.includes('node_modules/'));
  if (tests.length === 0) return null;
  const texts = tests.slice(0, 20).map((p) => files.read(p));
  if (texts.some((t) => t !== null && /^\s*(import pytest|from pytest\b)/m.test(t))) return { runner: 'pytest', command: 'python3 -m pytest -q', env: TEST_ENV, reason: 'test files importing pytest' };
  const unittest = texts.some((t) => t !== null && /^\s*(import unittest|from unittest\b)/m.test(t));
  // Plain `assert` functions in test_*.py are pytest's style; unittest needs TestCase classes.
  if (!unittest) return { runner: 'pytest', command: 'python3 -m pytest -q', env: TEST_ENV, reason: 'test_*.py files' };
  // Discovery only enters packages: tests in a folder without __init__.py need it as the start.
  const dirs = new Set(tests.map((p) => (p.includes('/') ? p.slice(0, p.indexOf('/')) : '')));
  const only = dirs.size === 1 ? [...dirs][0]! : null;
  const start = only && only !== '' && !has.has(`${only}/__init__.py`) && /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(only) ? ` discover -s ${only}` : '';
  return { runner: 'unittest', command: `python3 -m unittest${start}`, env: TEST_ENV, reason: 'test files using unittest' };
}

/** The Makefile's test target (test, then check), when it has one. */
function makeTarget(files: ProjectFiles): string | null {
  const text = files.read('Makefile') ?? files.read('makefile') ?? files.read('GNUmakefile');
  if (text === null) return null;
  for (const t of ['test', 'check']) if (new RegExp(`^${t}\\s*:(?!=)`, 'm').test(text)) return t;
  return null;
}

/**
 * Every test command the project's files imply, most specific first: the package's own
 * script, then each language's runner, then a Makefile target, then Maven and Gradle.
 */
export function detectTestCommands(files: ProjectFiles): TestCommand[] {
  const has = new Set(files.paths);
  const out: TestCommand[] = [];
  const node = nodeTestCommand(files);
  if (node) out.push(node);
  if (has.has('go.mod')) out.push({ runner: 'go', command: 'go test ./...', env: TEST_ENV, reason: 'go.mod' });
  if (has.has('Cargo.toml')) out.push({ runner: 'cargo', command: 'cargo test', env: TEST_ENV, reason: 'Cargo.toml' });
  const py = pythonTestCommand(files);
  if (py) out.push(py);
  const target = makeTarget(files);
  if (target) out.push({ runner: 'make', command: `make ${target}`, env: TEST_ENV, reason: `the Makefile's ${target} target` });
  if (has.has('pom.xml')) out.push({ runner: 'maven', command: 'mvn -q test', env: TEST_ENV, reason: 'pom.xml' });
  if (has.has('gradlew')) out.push({ runner: 'gradle', command: './gradlew test', env: TEST_ENV, reason: 'gradlew' });
  else if (has.has('build.gradle') || has.has('build.gradle.kts')) out.push({ runner: 'gradle', command: 'gradle test', env: TEST_ENV, reason: 'build.gradle' });
  return out;
}

/** The one command auto-verify runs: the most specific the project has, or null. */
export function detectTestCommand(files: ProjectFiles): TestCommand | null {
  return detectTestCommands(files)[0] ?? null;
}

/**
 * Every command the detector can produce, the only ones auto-verify will run whatever a
 * repository's config asks (a config can pick among them, never add one).
 */
export const KNOWN_TEST_COMMANDS: readonly string[] = Object.freeze([
  ...(['npm', 'pnpm', 'yarn', 'bun'] as const).flatMap((pm) => [null, ...Object.values(NON_WATCH_FLAG)].map((f) => packageTestCommand(pm, f ?? null))),
  'go test ./...',
  'cargo test',
  'python3 -m pytest -q',
  'pytest -q',
  'python3 -m unittest',
  'make test',
  'make check',
  'mvn -q test',
  'gradle test',
  './gradlew test',
]);

/** Whether `command` is one the detector produces (a unittest start folder is a plain folder name). */
export function isKnownTestCommand(command: string): boolean {
  const c = command.trim();
  return KNOWN_TEST_COMMANDS.includes(c) || /^python3 -m unittest discover -s [A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(c);
}
