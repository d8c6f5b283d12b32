import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { activeStatePath, mergedStatePath } from '../../../../src-main/features/scanner';
import { newFeatureState, withTotals, writeState, type FeatureState, type FeatureStatus } from '../../../../src-main/features/state';
import { gitIn, makeRepo, tempDir } from '../../../support/temp';

export interface RepoWithOrigin {
  path: string;
  origin: string;
  cleanup(): void;
}

/** A repository on `main` with a bare `origin` that has main pushed (origin/HEAD set). */
export function repoWithOrigin(prefix = 'fd-feat-'): RepoWithOrigin {
  const r = makeRepo(prefix);
  const remote = tempDir(`${prefix}origin-`);
  const origin = join(remote.path, 'origin.git');
  gitIn(r.path, 'init', '-q', '--bare', '-b', 'main', origin);
  gitIn(r.path, 'remote', 'add', 'origin', origin);
  gitIn(r.path, 'push', '-q', '-u', 'origin', 'main');
  gitIn(r.path, 'remote', 'set-head', 'origin', 'main');
  return {
    path: r.path,
    origin,
    cleanup: () => {
      r.cleanup();
      remote.cleanup();
    },
  };
}

export function commitFile(cwd: string, file: string, content: string, msg: string): void {
  mkdirSync(dirname(join(cwd, file)), { recursive: true });
  writeFileSync(join(cwd, file), content);
  gitIn(cwd, 'add', file);
  gitIn(cwd, 'commit', '-q', '-m', msg);
}

export interface FeatureSpec {
  status?: FeatureStatus;
  /** Per dev phase: turns and cost (review and verify stay at zero). */
  phases?: { name: string; turns: number; cost: number; secs?: number; status?: 'pending' | 'running' | 'completed' | 'failed'; input?: number; output?: number }[];
  pr?: { number: number; url?: string; title?: string };
}

export function stateFor(slug: string, spec: FeatureSpec = {}): FeatureState {
  const phases = spec.phases ?? [{ name: 'build', turns: 3, cost: 0.5 }];
  const s = newFeatureState({ slug, now: new Date('2026-02-10T10:30:00Z'), worktreePath: `.trees/${slug}`, branch: `feature/${slug}`, baseBranch: 'main', devPhases: phases.map((p) => p.name) });
  const filled: FeatureState = {
    ...s,
    status: spec.status ?? 'in_progress',
    phases: s.phases.map((p) => {
      const d = phases.find((x) => x.name === p.name);
      return d ? { ...p, status: d.status ?? 'completed', turns: d.turns, cost_usd: d.cost, duration_secs: d.secs ?? 60, cost: { input_tokens: d.input ?? 1000, output_tokens: d.output ?? 500 } } : p;
    }),
    pr: spec.pr ? { number: spec.pr.number, url: spec.pr.url ?? `https://github.com/o/r/pull/${spec.pr.number}`, title: spec.pr.title ?? slug } : null,
  };
  return withTotals(filled);
}

/** A feature the way finalize leaves it: worktree `.trees/<slug>` on `feature/<slug>`, its state committed there. */
export function makeActiveFeature(repo: string, slug: string, spec: FeatureSpec = {}): string {
  const wt = join(repo, '.trees', slug);
  gitIn(repo, 'worktree', 'add', '-q', '-b', `feature/${slug}`, wt, 'main');
  writeState(activeStatePath(repo, slug), stateFor(slug, spec));
  gitIn(wt, 'add', '.flightdeck');
  gitIn(wt, 'commit', '-q', '-m', `feat(${slug}): initialize planning artifacts`);
  return wt;
}

/** The record of a merged feature on the main checkout. */
export function makeMergedRecord(repo: string, slug: string, spec: FeatureSpec = {}): void {
  writeState(mergedStatePath(repo, slug), stateFor(slug, { status: 'completed', ...spec }));
}

export function ignoreTrees(repo: string): void {
  writeFileSync(join(repo, '.gitignore'), '.trees/\n');
  gitIn(repo, 'add', '.gitignore');
  gitIn(repo, 'commit', '-q', '-m', 'ignore .trees');
}
