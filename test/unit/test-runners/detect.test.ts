import { describe, expect, it } from 'vitest';
import { detectTestCommand, detectTestCommands, isKnownTestCommand, KNOWN_TEST_COMMANDS, scriptRunner, type ProjectFiles } from '../../../src-main/test-runners/detect';

function files(map: Record<string, string>, extra: string[] = []): ProjectFiles {
  return { paths: [...Object.keys(map), ...extra], read: (p) => map[p] ?? null };
}
const pkg = (test: string, more: Record<string, string> = {}) => JSON.stringify({ scripts: { test, ...more } });

describe('test runner detector', () => {
  it('node:test gets no flag at all — Node takes --watch=false as watch mode', () => {
    const c = detectTestCommand(files({ 'package.json': pkg('node --test') }, ['package-lock.json']))!;
    expect(c).toMatchObject({ runner: 'node-test', command: 'npm test', env: { CI: 'true' } });
    expect(c.command).not.toContain('watch');
    expect(detectTestCommand(files({ 'package.json': pkg('c8 node --test test/') }))!.command).toBe('npm test');
  });

  it('vitest gets --run, unless the script already runs once', () => {
    expect(detectTestCommand(files({ 'package.json': pkg('vitest') }))!).toMatchObject({ runner: 'vitest', command: 'npm test -- --run' });
    expect(detectTestCommand(files({ 'package.json': pkg('vitest run') }))!.command).toBe('npm test');
    expect(detectTestCommand(files({ 'package.json': pkg('vitest') }, ['pnpm-lock.yaml']))!.command).toBe('pnpm test --run');
    expect(detectTestCommand(files({ 'package.json': pkg('vitest') }, ['yarn.lock']))!.command).toBe('yarn test --run');
  });

  it('jest gets --watchAll=false (react-scripts too); mocha, ava and tap get none', () => {
    expect(detectTestCommand(files({ 'package.json': pkg('jest') }))!).toMatchObject({ runner: 'jest', command: 'npm test -- --watchAll=false' });
    expect(detectTestCommand(files({ 'package.json': pkg('react-scripts test') }))!.command).toBe('npm test -- --watchAll=false');
    expect(detectTestCommand(files({ 'package.json': pkg('cross-env NODE_ENV=test jest --coverage') }))!.command).toBe('npm test -- --watchAll=false');
    for (const [script, runner] of [['mocha', 'mocha'], ['ava', 'ava'], ['tap test/*.js', 'tap'], ['nyc mocha --recursive', 'mocha']] as const) {
      expect(detectTestCommand(files({ 'package.json': pkg(script) }))!).toMatchObject({ runner, command: 'npm test' });
    }
  });

  it('a flag only reaches the runner when it is the script\'s last command', () => {
    expect(scriptRunner('jest && eslint .')).toEqual({ runner: 'jest', takesArgs: false });
    expect(detectTestCommand(files({ 'package.json': pkg('jest && eslint .') }))!.command).toBe('npm test');
    expect(detectTestCommand(files({ 'package.json': pkg('tsc && vitest') }))!.command).toBe('npm test -- --run');
    // Through another script: the runner is known, the flag is not forwarded.
    const nested = detectTestCommand(files({ 'package.json': pkg('npm run unit', { unit: 'vitest' }) }))!;
    expect(nested).toMatchObject({ runner: 'vitest', command: 'npm test' });
  });

  it('a script that names no runner is still the test command; a config file names the runner', () => {
    expect(detectTestCommand(files({ 'package.json': pkg('./run-tests.sh') }))!).toMatchObject({ runner: 'package-script', command: 'npm test' });
    expect(detectTestCommand(files({ 'package.json': pkg('./run-tests.sh') }, ['vitest.config.ts']))!.runner).toBe('vitest');
    expect(detectTestCommand(files({ 'package.json': pkg('echo "Error: no test specified" && exit 1') }))).toBeNull();
    expect(detectTestCommand(files({ 'package.json': '{ not json' }))).toBeNull();
    expect(detectTestCommand(files({ 'package.json': JSON.stringify({ scripts: { test: 'vitest' }, packageManager: 'pnpm@9.0.0' }) }))!.command).toBe('pnpm test --run');
  });

  it('pytest from config or imports, unittest from TestCase files (discover from a non-package folder)', () => {
    expect(detectTestCommand(files({ 'pytest.ini': '[pytest]' }))!).toMatchObject({ runner: 'pytest', command: 'python3 -m pytest -q' });
    expect(detectTestCommand(files({ 'pyproject.toml': '[tool.pytest.ini_options]' }))!.runner).toBe('pytest');
    expect(detectTestCommand(files({ 'tests/test_a.py': 'import pytest\n' }))!.runner).toBe('pytest');
    expect(detectTestCommand(files({ 'tests/test_a.py': 'def test_x():\n    assert 1\n' }))!.runner).toBe('pytest');
    expect(detectTestCommand(files({ 'tests/test_a.py': 'import unittest\n' }))!).toMatchObject({ runner: 'unittest', command: 'python3 -m unittest discover -s tests' });
    expect(detectTestCommand(files({ 'test_a.py': 'import unittest\n' }))!.command).toBe('python3 -m unittest');
    expect(detectTestCommand(files({ 'tests/test_a.py': 'import unittest\n', 'tests/__init__.py': '' }))!.command).toBe('python3 -m unittest');
    expect(detectTestCommand(files({ 'tool.py': 'print(1)' }))).toBeNull();
  });

  it('go, cargo, make (test, then check; not a variable named test), maven and gradle', () => {
    expect(detectTestCommand(files({ 'go.mod': 'module x' }))!.command).toBe('go test ./...');
    expect(detectTestCommand(files({ 'Cargo.toml': '[package]' }))!.command).toBe('cargo test');
    expect(detectTestCommand(files({ Makefile: 'all:\n\tcc x.c\ntest: all\n\t./x\n' }))!).toMatchObject({ runner: 'make', command: 'make test' });
    expect(detectTestCommand(files({ Makefile: 'check:\n\t./t.sh\n' }))!.command).toBe('make check');
    expect(detectTestCommand(files({ Makefile: 'test := 1\nall:\n\ttrue\n' }))).toBeNull();
    expect(detectTestCommand(files({ 'pom.xml': '' }))!.command).toBe('mvn -q test');
    expect(detectTestCommands(files({ 'package.json': pkg('jest'), Makefile: 'test:\n\tnpm test\n' })).map((c) => c.command)).toEqual(['npm test -- --watchAll=false', 'make test']);
  });

  it('every detected command is a known one; nothing else is', () => {
    const all = [pkg('vitest'), pkg('jest'), pkg('node --test')].flatMap((p) => ['npm', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lockb'].map((lock) => detectTestCommand(files({ 'package.json': p }, [lock]))!.command));
    for (const c of [...all, 'python3 -m unittest discover -s tests']) expect(isKnownTestCommand(c)).toBe(true);
    expect(KNOWN_TEST_COMMANDS).not.toContain('npm test -- --watch=false');
    for (const c of ['npm test; rm -rf ~', 'python3 -m unittest discover -s ../x', 'python3 -m unittest discover -s ..', 'make deploy', 'npm test -- --watch=false']) expect(isKnownTestCommand(c)).toBe(false);
  });
});
