import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newFeatureState, writeState } from '../../../src-main/features/state';
import { activeStatePath } from '../../../src-main/features/scanner';

/** What a feature's planning left: its design (with phases), verification and phase names. */
export interface PlannedSpec {
  design: string;
  verification: string;
  phases: string[];
}

/** The sum library most e2e flows build: one phase, checked by `node --test`. */
export const SUM_LIB_SPEC: PlannedSpec = {
  design: '# Design\n\nA sum function.\n\n## Development Phases\n\n### Phase 1: library\n\nsum.mjs and its test.\n',
  verification: '# Verification\n\n- sum(2, 3) is 5\n',
  phases: ['library'],
};

export const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** A committer, .flightdeck/config.yml and an ignored .trees/ committed on main. */
export function commitProjectConfig(root: string): void {
  git(root, 'config', 'user.name', 'E2E');
  git(root, 'config', 'user.email', 'e2e@example.com');
  mkdirSync(join(root, '.flightdeck'), { recursive: true });
  writeFileSync(
    join(root, '.flightdeck', 'config.yml'),
    ['version: 1', 'agent:', '  max_budget_usd: 20', '  max_retries: 1', '  max_turns: 50', 'checks: ["node --test"]', 'git:', '  auto_commit: true', '  branch_prefix: feature', '  base_branch: main', 'review:', '  enabled: true', '  max_review_rounds: 2', ''].join('\n'),
  );
  writeFileSync(join(root, '.gitignore'), '.trees/\n');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'flightdeck config');
}

/** One feature planned and never started, on its own worktree branch, as finalize leaves it. */
export function planFeature(root: string, slug: string, spec: PlannedSpec = SUM_LIB_SPEC): void {
  const wt = join(root, '.trees', slug);
  git(root, 'worktree', 'add', '-q', '-b', `feature/${slug}`, wt, 'main');
  const dir = join(wt, '.flightdeck', slug, 'specs');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'design.md'), spec.design);
  writeFileSync(join(dir, 'verification.md'), spec.verification);
  const state = newFeatureState({ slug, now: new Date(), worktreePath: `.trees/${slug}`, branch: `feature/${slug}`, baseBranch: 'main', devPhases: spec.phases });
  writeState(activeStatePath(root, slug), { ...state, agent: { executor: 'builtin', profile: null, model: null, mode: 'yolo' } });
  git(wt, 'add', '.');
  git(wt, 'commit', '-qm', `feat(${slug}): initialize planning artifacts`);
}

/** A project with config.yml on main and one planned feature. */
export function plannedProject(root: string, slug: string, spec: PlannedSpec = SUM_LIB_SPEC): void {
  commitProjectConfig(root);
  planFeature(root, slug, spec);
}
