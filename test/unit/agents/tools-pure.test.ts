import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPatchInput, PatchInput, previewDiff } from '../../../src-main/agents/tools/patch-apply';
import { resolveInRoot, ToolError } from '../../../src-main/agents/tools/root-guard';
import { CappedOutput, commandEnv } from '../../../src-main/agents/tools/command-runner';
import { readProjectConfig, updateProjectConfig } from '../../../src-main/agents/orchestrator/project-config';
import { detectVerifyCommand } from '../../../src-main/agents/orchestrator/verify-detect';
import { tempDir } from '../../support/temp';

const dirs: Array<{ cleanup(): void }> = [];
const dir = () => {
  const d = tempDir('fd-unit-');
  dirs.push(d);
  return d.path;
};
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

describe('root confinement', () => {
  it('accepts paths inside the root, relative or absolute', () => {
    const root = dir();
    mkdirSync(join(root, 'src'));
    expect(resolveInRoot(root, 'src/a.ts')).toEqual({ abs: join(root, 'src/a.ts'), rel: 'src/a.ts' });
    expect(resolveInRoot(root, join(root, 'src', '..', 'b.ts')).rel).toBe('b.ts');
    expect(resolveInRoot(root, 'new/deep/file.txt').rel).toBe('new/deep/file.txt');
  });
  it('refuses .., absolute paths elsewhere and symlinks that leave the root', () => {
    const root = dir();
    const outside = dir();
    writeFileSync(join(outside, 'secret'), 'x');
    symlinkSync(outside, join(root, 'link'));
    symlinkSync(join(outside, 'secret'), join(root, 'file-link'));
    symlinkSync(join(outside, 'missing'), join(root, 'dangling'));
    for (const p of ['../x', 'a/../../x', '/etc/passwd', outside, 'link/secret', 'link/new-file', 'file-link', 'dangling', '', 'a\0b']) {
      expect(() => resolveInRoot(root, p), p).toThrow(ToolError);
    }
    expect(() => resolveInRoot(root, '../x')).toThrow(/outside the session root/);
    expect(() => resolveInRoot(root, 'link/secret')).toThrow(/symbolic link/);
  });
  it('allows symlinks that stay inside and refuses writes into .git', () => {
    const root = dir();
    mkdirSync(join(root, 'real'));
    symlinkSync(join(root, 'real'), join(root, 'alias'));
    expect(resolveInRoot(root, 'alias/x').rel).toBe('real/x');
    expect(() => resolveInRoot(root, '.git/config', { write: true })).toThrow(/inside .git/);
    expect(resolveInRoot(root, '.git/config').rel).toBe('.git/config');
    // Nested repositories' hooks and case-insensitive spellings run code just the same.
    expect(() => resolveInRoot(root, 'vendor/lib/.git/hooks/pre-commit', { write: true })).toThrow(/inside .git/);
    expect(() => resolveInRoot(root, '.GIT/hooks/post-checkout', { write: true })).toThrow(/inside .git/);
    expect(resolveInRoot(root, 'docs/.gitignore', { write: true }).rel).toBe('docs/.gitignore');
  });
});

describe('patch formats', () => {
  const input = (v: unknown) => PatchInput.parse(v);
  it('search/replace requires a unique match unless all', () => {
    expect(applyPatchInput('a b a', input({ path: 'f', edits: [{ search: 'b', replace: 'c' }] }))).toBe('a c a');
    expect(() => applyPatchInput('a b a', input({ path: 'f', edits: [{ search: 'a', replace: 'c' }] }))).toThrow(/occurs 2 times/);
    expect(applyPatchInput('a b a', input({ path: 'f', edits: [{ search: 'a', replace: 'c', all: true }] }))).toBe('c b c');
    expect(() => applyPatchInput('abc', input({ path: 'f', edits: [{ search: 'zz', replace: 'c' }] }))).toThrow(/not found/);
    expect(applyPatchInput('x', input({ path: 'f', edits: [{ search: 'x', replace: '$&$1' }] }))).toBe('$&$1');
  });
  it('applies a unified diff strictly', () => {
    const before = 'one\ntwo\nthree\n';
    const diff = previewDiff('f.txt', before, 'one\n2\nthree\n');
    expect(applyPatchInput(before, input({ path: 'f.txt', diff }))).toBe('one\n2\nthree\n');
    expect(() => applyPatchInput('other\ncontent\n', input({ path: 'f.txt', diff }))).toThrow(/does not apply/);
  });
  it('rejects malformed patch inputs', () => {
    expect(PatchInput.safeParse({ path: 'f' }).success).toBe(false);
    expect(PatchInput.safeParse({ path: 'f', edits: [], diff: 'x' }).success).toBe(false);
    expect(PatchInput.safeParse({ path: 'f', edits: [{ search: '', replace: 'x' }] }).success).toBe(false);
  });
});

describe('command output and environment', () => {
  it('keeps head and tail of long output', () => {
    const c = new CappedOutput(10);
    c.push('0123456789abcdefghij');
    expect(c.truncated).toBe(true);
    expect(c.text()).toBe('01234\n… [10 characters of output omitted] …\nfghij');
    const small = new CappedOutput(10);
    small.push('abc');
    expect(small.text()).toBe('abc');
  });
  it('strips provider credentials from the command environment', () => {
    const env = commandEnv({ PATH: '/bin', ANTHROPIC_API_KEY: 'sk-1', ANTHROPIC_AUTH_TOKEN: 't', OTHER: 'has sk-secret-12345 inside', KEEP: 'x' }, ['sk-secret-12345']);
    expect(env).toMatchObject({ PATH: '/bin', KEEP: 'x', PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' });
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(env.ANTHROPIC_AUTH_TOKEN).toBeUndefined();
    expect(env.OTHER).toBeUndefined();
  });
});

describe('project config (.flightdeck/config.yml)', () => {
  it('defaults when missing, creates on write, preserves unknown keys and comments', () => {
    const root = dir();
    expect(readProjectConfig(root).config.workflow).toEqual({ autoVerifyAfterEdit: true, maxVerifyAttempts: 2, verifyCommand: null, todoAutoInit: true });
    updateProjectConfig(root, [[['agent', 'model'], 'glm-4.7']]);
    expect(readProjectConfig(root).config.agent.model).toBe('glm-4.7');
    mkdirSync(join(root, '.flightdeck'), { recursive: true });
    writeFileSync(join(root, '.flightdeck/config.yml'), '# mine\nfeatures:\n  base: main # keep\nworkflow:\n  max_verify_attempts: 3\n');
    updateProjectConfig(root, [[['agent', 'profile'], 'glm']]);
    const text = readFileSync(join(root, '.flightdeck/config.yml'), 'utf8');
    expect(text).toContain('# mine');
    expect(text).toContain('base: main # keep');
    expect(readProjectConfig(root).config).toMatchObject({ agent: { profile: 'glm' }, workflow: { maxVerifyAttempts: 3 } });
  });
  it('never overwrites a file it cannot parse', () => {
    const root = dir();
    mkdirSync(join(root, '.flightdeck'));
    writeFileSync(join(root, '.flightdeck/config.yml'), 'a: [unclosed\n');
    expect(readProjectConfig(root).problem).toMatch(/not valid YAML/);
    expect(() => updateProjectConfig(root, [[['agent', 'model'], 'x']])).toThrow(/nothing was changed/);
    expect(readFileSync(join(root, '.flightdeck/config.yml'), 'utf8')).toBe('a: [unclosed\n');
  });
});

describe('verify command detection', () => {
  const detect = (files: Record<string, string>) => {
    const root = dir();
    for (const [f, c] of Object.entries(files)) writeFileSync(join(root, f), c);
    return detectVerifyCommand(root);
  };
  it.each([
    [{ 'go.mod': 'module x' }, 'go test ./...'],
    [{ 'pytest.ini': '[pytest]' }, 'python3 -m pytest -q'],
    [{ 'pyproject.toml': '[tool.pytest.ini_options]\n' }, 'python3 -m pytest -q'],
    [{ 'package.json': '{"scripts":{"test":"vitest"}}' }, 'npm test -- --run'],
    [{ 'package.json': '{"scripts":{"test":"node --test"}}' }, 'npm test'],
    [{ 'package.json': '{"scripts":{"test":"jest"}}', 'pnpm-lock.yaml': '' }, 'pnpm test --watchAll=false'],
    [{ 'package.json': '{"scripts":{"test":"jest"}}', 'yarn.lock': '' }, 'yarn test --watchAll=false'],
    [{ Makefile: 'test:\n\t./t.sh\n' }, 'make test'],
    [{ 'Cargo.toml': '[package]' }, 'cargo test'],
    [{ 'pom.xml': '<project/>' }, 'mvn -q test'],
    [{ gradlew: '#!/bin/sh', 'build.gradle': '' }, './gradlew test'],
    [{ 'build.gradle.kts': '' }, 'gradle test'],
  ])('%j → %s', (files, cmd) => expect(detect(files)).toBe(cmd));
  it('finds nothing to run for npm placeholder scripts, broken package.json or plain folders', () => {
    expect(detect({ 'package.json': '{"scripts":{"test":"echo \\"Error: no test specified\\" && exit 1"}}' })).toBeNull();
    expect(detect({ 'package.json': '{oops' })).toBeNull();
    expect(detect({ 'notes.txt': 'x' })).toBeNull();
  });
});
