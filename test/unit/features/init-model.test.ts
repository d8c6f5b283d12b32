import { describe, expect, it } from 'vitest';
import { buildInitConfig, detectFromRepo, fallbackOverview, formatTree, type RepoFacts } from '../../../src-main/features/init-model';
import { parseConfig } from '../../../src-main/features/config';

function facts(files: Record<string, string>, extra: string[] = []): RepoFacts {
  return { paths: [...Object.keys(files), ...extra], contents: new Map(Object.entries(files)) };
}

describe('detectFromRepo', () => {
  it('package.json scripts become checks (cheap first), the npm placeholder test is not one', () => {
    const d = detectFromRepo(facts({ 'package.json': JSON.stringify({ scripts: { test: 'vitest run', lint: 'eslint .', start: 'node x' } }) }, ['package-lock.json']));
    expect(d.checks).toEqual(['npm run -s lint', 'npm test']);
    expect(d.setup).toEqual(['npm ci']);
    const placeholder = detectFromRepo(facts({ 'package.json': JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }) }));
    expect(placeholder.checks).toEqual([]);
  });

  it('uses the lock file\'s package manager', () => {
    const d = detectFromRepo(facts({ 'package.json': '{"scripts":{"build":"tsc","test":"jest"}}' }, ['pnpm-lock.yaml']));
    expect(d.checks).toEqual(['pnpm run --silent build', 'pnpm test --watchAll=false']);
    expect(d.setup).toEqual(['pnpm install --frozen-lockfile']);
  });

  it('detects cargo, go and pytest', () => {
    expect(detectFromRepo(facts({ 'Cargo.toml': '[package]' })).checks).toEqual(['cargo build', 'cargo test']);
    expect(detectFromRepo(facts({ 'go.mod': 'module x' })).checks).toEqual(['go build ./...', 'go vet ./...', 'go test ./...']);
    expect(detectFromRepo(facts({ 'pyproject.toml': '[tool.pytest.ini_options]\n' })).checks).toEqual(['python3 -m pytest -q']);
    expect(detectFromRepo(facts({}, ['pkg/mod.py', 'tests/test_mod.py'])).checks).toEqual(['python3 -m pytest -q']);
    expect(detectFromRepo(facts({ 'tests/test_mod.py': 'import unittest\n' }, ['pkg/mod.py'])).checks).toEqual(['python3 -m unittest discover -s tests']);
    expect(detectFromRepo(facts({}, ['tool.py'])).checks).toEqual([]);
  });

  it('the test check is the runner\'s non-watch form; a Makefile target only when no runner was found', () => {
    expect(detectFromRepo(facts({ 'package.json': JSON.stringify({ scripts: { test: 'node --test' } }) })).checks).toEqual(['npm test']);
    expect(detectFromRepo(facts({ 'package.json': JSON.stringify({ scripts: { test: 'vitest', lint: 'eslint .' } }) })).checks).toEqual(['npm run -s lint', 'npm test -- --run']);
    expect(detectFromRepo(facts({ Makefile: 'test:\n\t./t.sh\n' })).checks).toEqual(['make test']);
    expect(detectFromRepo(facts({ Makefile: 'test:\n\tgo test\n', 'go.mod': 'module x' })).checks).toEqual(['go build ./...', 'go vet ./...', 'go test ./...']);
  });

  it('a broken package.json detects no scripts instead of throwing', () => {
    expect(detectFromRepo(facts({ 'package.json': '{ not json' })).checks).toEqual([]);
  });
});

describe('buildInitConfig', () => {
  const detected = { checks: ['npm test'], setup: ['npm ci'], toolchains: ['Node.js package'] };

  it('merges the model\'s valid proposal after the detected values and validates', () => {
    const r = buildInitConfig(detected, 'checks:\n  - "npm test"\n  - "npm run -s lint"\nworktree:\n  setup: ["npm ci"]\ngit:\n  base_branch: develop\n', '/r/.flightdeck/config.yml');
    expect(r.notes).toEqual([]);
    expect(r.config.checks).toEqual(['npm test', 'npm run -s lint']);
    expect(r.config.worktree.setup).toEqual(['npm ci']);
    expect(r.config.git.base_branch).toBe('develop');
    expect(r.config.agent.max_turns).toBe(100);
    expect(parseConfig(r.text, 'x')).toEqual(r.config);
  });

  it('a poor answer (garbage, wrong types, unknown keys) still yields a valid config from detection, with notes', () => {
    for (const proposal of [null, 'this is : : not yaml: [', '- a list', 'checks: "npm test"\nworktree: {setup: [1, 2]}\ngit: {base_branch: "bad branch name!"}', 'nonsense: 1']) {
      const r = buildInitConfig(detected, proposal, 'c.yml');
      expect(r.config.checks).toEqual(['npm test']);
      expect(r.config.worktree.setup).toEqual(['npm ci']);
      expect(r.config.git.base_branch).toBe('auto');
      expect(parseConfig(r.text, 'c.yml')).toEqual(r.config);
      if (proposal !== 'nonsense: 1') expect(r.notes.length).toBeGreaterThan(0);
    }
  });

  it('writes an explicit empty checks list when nothing was found (not the Rust defaults)', () => {
    const r = buildInitConfig({ checks: [], setup: [], toolchains: [] }, null, 'c.yml');
    expect(r.config.checks).toEqual([]);
    expect(r.text).toContain('checks: []');
  });
});

describe('formatTree and fallbackOverview', () => {
  it('cuts a long tree with a count', () => {
    expect(formatTree(['b', 'a', 'c'], 2)).toBe('a\nb\n… and 1 more files');
  });
  it('uses the analysis when there is one, else the detection', () => {
    expect(fallbackOverview('r', { checks: [], setup: [], toolchains: [] }, 'Analysis text')).toBe('# r\n\nAnalysis text\n');
    expect(fallbackOverview('r', { checks: ['npm test'], setup: [], toolchains: ['Node'] }, '')).toContain('- `npm test`');
  });
});
