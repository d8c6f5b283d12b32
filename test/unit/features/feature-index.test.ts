import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FeatureError } from '../../../src-main/features/errors';
import { isWatchedPath, locateStatePath, reconcileRows } from '../../../src-main/features/feature-index';
import type { FeatureRow } from '../../../src-main/features/feature-repo';
import { activeStatePath, mergedStatePath, type ScannedFeature } from '../../../src-main/features/scanner';
import { newFeatureState, type FeatureState } from '../../../src-main/features/state';

const ROOT = '/repo';
const state = (slug: string, status: FeatureState['status'] = 'planned'): FeatureState => ({
  ...newFeatureState({ slug, now: new Date('2026-01-01T00:00:00Z'), worktreePath: `.trees/${slug}`, branch: `feature/${slug}`, baseBranch: 'main', devPhases: ['a'] }),
  status,
});
const active = (slug: string, status: FeatureState['status'] = 'planned'): ScannedFeature => ({ slug, source: 'active', statePath: activeStatePath(ROOT, slug), state: state(slug, status) });
const merged = (slug: string): ScannedFeature => ({ slug, source: 'merged', statePath: mergedStatePath(ROOT, slug), state: state(slug, 'merged') });
const row = (f: ScannedFeature): FeatureRow => ({ repoRoot: ROOT, slug: f.slug, source: f.source, statePath: f.statePath, state: f.state, problem: null, indexedAt: 1 });
const broken = (path: string) => new FeatureError('yaml', 'invalid YAML: bad', { path, line: 3 });

describe('locateStatePath / isWatchedPath', () => {
  it('knows the two state file places and nothing else', () => {
    expect(locateStatePath(ROOT, activeStatePath(ROOT, 'x'))).toEqual({ slug: 'x', source: 'active' });
    expect(locateStatePath(ROOT, mergedStatePath(ROOT, 'x'))).toEqual({ slug: 'x', source: 'merged' });
    // An inherited record inside a worktree is not that worktree's feature.
    expect(locateStatePath(ROOT, join(ROOT, '.trees', 'x', '.flightdeck', 'y', 'state.yml'))).toBeNull();
    expect(locateStatePath(ROOT, join(ROOT, '.flightdeck', 'config.yml'))).toBeNull();
  });

  it('watches the folders leading to state files, never a worktree\'s sources', () => {
    for (const p of ['', '.trees', '.trees/x', '.trees/x/.flightdeck', '.trees/x/.flightdeck/x', '.trees/x/.flightdeck/x/state.yml', '.flightdeck', '.flightdeck/x', '.flightdeck/x/state.yml']) {
      expect(isWatchedPath(ROOT, join(ROOT, p)), p).toBe(true);
    }
    for (const p of ['src', '.trees/x/src', '.trees/x/node_modules', '.trees/x/.flightdeck/y', '.trees/x/.flightdeck/x/specs', '.flightdeck/x/specs', '.git']) {
      expect(isWatchedPath(ROOT, join(ROOT, p)), p).toBe(false);
    }
  });
});

describe('reconcileRows', () => {
  it('the files win: new, changed and vanished features', () => {
    const before = [row(active('a')), row(active('gone'))];
    const { rows } = reconcileRows(ROOT, before, { features: [active('a', 'completed'), merged('m')], problems: [] }, 2);
    expect(rows.map((r) => [r.slug, r.source, r.state?.status, r.problem])).toEqual([
      ['a', 'active', 'completed', null],
      ['m', 'merged', 'merged', null],
    ]);
  });

  it('a broken file keeps the last good row, with the problem', () => {
    const good = row(active('a', 'in_progress'));
    const { rows } = reconcileRows(ROOT, [good], { features: [], problems: [broken(activeStatePath(ROOT, 'a'))] }, 2);
    expect(rows).toEqual([{ ...good, indexedAt: 2, problem: { kind: 'yaml', message: `${activeStatePath(ROOT, 'a')}:3: invalid YAML: bad`, path: activeStatePath(ROOT, 'a'), line: 3 } }]);
  });

  it('a broken active copy over a good merged one: the last good row, else the merged copy, marked', () => {
    const scan = { features: [merged('a')], problems: [broken(activeStatePath(ROOT, 'a'))] };
    const kept = reconcileRows(ROOT, [row(active('a', 'failed'))], scan, 2).rows[0]!;
    expect([kept.source, kept.state?.status, kept.problem?.path]).toEqual(['active', 'failed', activeStatePath(ROOT, 'a')]);
    const fresh = reconcileRows(ROOT, [], scan, 2).rows[0]!;
    expect([fresh.source, fresh.state?.status, fresh.problem?.path]).toEqual(['merged', 'merged', activeStatePath(ROOT, 'a')]);
  });

  it('a broken merged record under a good active copy does not mark the feature', () => {
    const { rows } = reconcileRows(ROOT, [], { features: [active('a')], problems: [broken(mergedStatePath(ROOT, 'a'))] }, 2);
    expect(rows[0]!.problem).toBeNull();
  });

  it('a broken file never read well is listed by its problem alone; folder problems go apart', () => {
    const folder = new FeatureError('io', 'could not list the folder: EACCES', { path: join(ROOT, '.trees') });
    const { rows, repoProblems } = reconcileRows(ROOT, [], { features: [], problems: [broken(mergedStatePath(ROOT, 'b')), folder] }, 2);
    expect(rows.map((r) => [r.slug, r.source, r.state, r.problem?.kind])).toEqual([['b', null, null, 'yaml']]);
    expect(repoProblems.map((p) => p.kind)).toEqual(['io']);
  });
});
