import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { defaultConfig, parseConfig, DEFAULT_WORKTREE_COPY } from '../../../src-main/features/config';
import { FeatureError } from '../../../src-main/features/errors';

// The documented example config (section 7 of the features design), with `.coda` renamed to
// `.flightdeck`: the defaults must equal it key for key.
const SEED_EXAMPLE = `
version: 1
agent:
  model: "claude-opus-4-6"
  max_budget_usd: 20.0
  max_retries: 3
  max_turns: 100
checks:
  - "cargo build"
  - "cargo +nightly fmt -- --check"
  - "cargo clippy -- -D warnings"
prompts:
  extra_dirs:
    - ".flightdeck/prompts"
git:
  auto_commit: true
  branch_prefix: "feature"
  base_branch: "auto"
review:
  enabled: true
  max_review_rounds: 5
`;

function parseError(text: string): FeatureError {
  try {
    parseConfig(text, '/repo/.flightdeck/config.yml');
  } catch (e) {
    expect(e).toBeInstanceOf(FeatureError);
    return e as FeatureError;
  }
  throw new Error('expected a parse error');
}

describe('features config', () => {
  it('defaults equal the documented example, plus the worktree defaults and the checks timeout', () => {
    const d = defaultConfig();
    const { worktree, check_timeout_minutes, pr, ...rest } = d;
    expect(rest).toEqual(parse(SEED_EXAMPLE));
    // The pull request loop: three fix rounds from CI and reviews, never merged unless asked.
    expect(pr).toEqual({ max_fix_rounds: 3, auto_merge: 'off' });
    // A hung check (a runner left in watch mode) is stopped; half an hour covers a slow real suite.
    expect(check_timeout_minutes).toBe(30);
    expect(worktree).toEqual({ setup: [], copy: ['.env', '.env.local', '.env.*.local', '.envrc'], ports: null });
    expect(DEFAULT_WORKTREE_COPY).toEqual(worktree.copy);
  });

  it('the example itself parses to the defaults, and an empty file means all defaults', () => {
    expect(parseConfig(SEED_EXAMPLE, 'c.yml')).toEqual(defaultConfig());
    expect(parseConfig('', 'c.yml')).toEqual(defaultConfig());
    expect(parseConfig('# only a comment\n', 'c.yml')).toEqual(defaultConfig());
  });

  it('fills nested defaults around the keys given', () => {
    const c = parseConfig('agent:\n  model: sonnet\ngit:\n  base_branch: develop\nworktree:\n  ports: {start: 3000, end: 3099}\n', 'c.yml');
    expect(c.agent).toEqual({ model: 'sonnet', max_budget_usd: 20, max_retries: 3, max_turns: 100 });
    expect(c.git).toEqual({ auto_commit: true, branch_prefix: 'feature', base_branch: 'develop' });
    expect(c.worktree.ports).toEqual({ start: 3000, end: 3099 });
    expect(c.checks).toHaveLength(3);
  });

  it('pr: the fix round limit and the auto-merge method are checked', () => {
    expect(parseConfig('pr:\n  auto_merge: squash\n', 'c.yml').pr).toEqual({ max_fix_rounds: 3, auto_merge: 'squash' });
    expect(parseError('pr:\n  auto_merge: yes\n').message).toMatch(/pr\.auto_merge/);
    expect(parseError('pr:\n  max_fix_rounds: -1\n').message).toMatch(/pr\.max_fix_rounds/);
    expect(parseError('pr:\n  max_fix_round: 2\n').message).toMatch(/max_fix_round/);
  });

  it('reports an unknown key with its path and line', () => {
    const e = parseError('version: 1\nagent:\n  model: x\n  max_budget: 3\n');
    expect(e.kind).toBe('config');
    expect(e.line).toBe(4);
    expect(e.message).toBe('/repo/.flightdeck/config.yml:4: unknown key "agent.max_budget"');
  });

  it('reports a wrong type with its path and line', () => {
    const e = parseError('review:\n  enabled: true\n  max_review_rounds: "five"\n');
    expect(e.line).toBe(3);
    expect(e.message).toContain('review.max_review_rounds');
  });

  it('converts to an AppError carrying kind, path and line', () => {
    const app = parseError('agentt: {}\n').toAppError();
    expect(app.code).toBe('invalid_input');
    expect(app.details).toEqual({ kind: 'config', path: '/repo/.flightdeck/config.yml', line: 1 });
    expect(app.message).toMatch(/^config error: /);
  });

  it('the example file in the docs stays parseable', () => {
    const doc = readFileSync('docs/features.md', 'utf8');
    const block = /```yaml\n# \.flightdeck\/config\.yml\n([\s\S]*?)```/.exec(doc);
    expect(block).not.toBeNull();
    expect(() => parseConfig(block![1]!, 'docs')).not.toThrow();
  });
});
