/**
 * Seed 001 §8: the auto-verify whitelist, which of its commands applies to a repository, and
 * when a turn's edits call for verification. Pure apart from looking at files in the root.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Exactly the nine commands auto-verify may run. Nothing else, whatever the config says. */
export const VERIFY_WHITELIST = [
  'go test ./...',
  'pytest -q',
  'npm test -- --watch=false',
  'pnpm test -- --watch=false',
  'yarn test --watch=false',
  'cargo test',
  'mvn -q test',
  'gradle test',
  './gradlew test',
] as const;
export type VerifyCommand = (typeof VERIFY_WHITELIST)[number];

export function isWhitelisted(command: string): command is VerifyCommand {
  return (VERIFY_WHITELIST as readonly string[]).includes(command.trim());
}

/** npm's placeholder test script: running it only fails. */
const NPM_PLACEHOLDER_TEST = /no test specified/;

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function hasNodeTests(root: string): boolean {
  const pkg = join(root, 'package.json');
  if (!existsSync(pkg)) return false;
  try {
    const json = JSON.parse(readText(pkg)) as { scripts?: Record<string, unknown> };
    const test = json.scripts?.test;
    return typeof test === 'string' && test.trim() !== '' && !NPM_PLACEHOLDER_TEST.test(test);
  } catch {
    // A package.json that does not parse cannot run tests either.
    return false;
  }
}

function hasPytest(root: string): boolean {
  if (existsSync(join(root, 'pytest.ini')) || existsSync(join(root, 'conftest.py'))) return true;
  if (/\[tool\.pytest/.test(readText(join(root, 'pyproject.toml')))) return true;
  if (/\[tool:pytest\]/.test(readText(join(root, 'setup.cfg')))) return true;
  return /\[pytest\]/.test(readText(join(root, 'tox.ini')));
}

/**
 * The whitelisted command for the repository at `root`, checked in the whitelist's order;
 * null when none applies. For Node the lockfile picks the package manager.
 */
export function detectVerifyCommand(root: string): VerifyCommand | null {
  if (existsSync(join(root, 'go.mod'))) return 'go test ./...';
  if (hasPytest(root)) return 'pytest -q';
  if (hasNodeTests(root)) {
    if (existsSync(join(root, 'pnpm-lock.yaml'))) return 'pnpm test -- --watch=false';
    if (existsSync(join(root, 'yarn.lock'))) return 'yarn test --watch=false';
    return 'npm test -- --watch=false';
  }
  if (existsSync(join(root, 'Cargo.toml'))) return 'cargo test';
  if (existsSync(join(root, 'pom.xml'))) return 'mvn -q test';
  if (existsSync(join(root, 'gradlew'))) return './gradlew test';
  if (existsSync(join(root, 'build.gradle')) || existsSync(join(root, 'build.gradle.kts'))) return 'gradle test';
  return null;
}

/** Prose formats. Plain .txt is not one: requirements.txt and test fixtures are code to verify. */
const DOC_EXT = /\.(md|markdown|mdx|rst|adoc|asciidoc|org)$/i;
const DOC_NAMES = /^(LICEN[CS]E|CHANGELOG|AUTHORS|NOTICE|CONTRIBUTING|CODEOWNERS|README)(\.[a-z]+)?$/i;

/** Documentation-only paths do not call for running tests. */
export function isDocPath(rel: string): boolean {
  const parts = rel.split('/');
  const base = parts[parts.length - 1] ?? rel;
  return DOC_EXT.test(base) || DOC_NAMES.test(base) || parts.slice(0, -1).some((p) => p === 'docs' || p === 'doc');
}

/** In default mode, auto-verify runs only when the user asked for verification in so many words. */
const EXPLICIT_VERIFY = [
  /\b(run|rerun|re-run|make sure|ensure|check|verify|confirm)\b[^.\n]{0,40}\b(tests?|specs?|test suite|build)\b/i,
  /\b(tests?|specs?)\b[^.\n]{0,20}\b(pass|passing|green)\b/i,
  /\bverify\b/i,
  /\bauto-?verify\b/i,
  /(跑|运行|执行)[^。\n]{0,10}测试/,
  /验证/,
  /测试[^。\n]{0,6}通过/,
];

export function asksForVerification(input: string): boolean {
  return EXPLICIT_VERIFY.some((r) => r.test(input));
}
