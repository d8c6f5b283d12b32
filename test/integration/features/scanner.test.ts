import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFeature, scanFeatures } from '../../../src-main/features/scanner';
import { newFeatureState, readState, writeState, type FeatureStatus } from '../../../src-main/features/state';

let repo: string;
beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'fd-scan-'));
});
afterEach(() => {
  rmSync(repo, { recursive: true, force: true });
});

function state(slug: string, status: FeatureStatus = 'in_progress') {
  const s = newFeatureState({
    slug,
    now: new Date('2026-02-10T10:30:00Z'),
    worktreePath: `.trees/${slug}`,
    branch: `feature/${slug}`,
    baseBranch: 'main',
    devPhases: ['one'],
  });
  return { ...s, status };
}

function putActive(folder: string, slug = folder, status: FeatureStatus = 'in_progress'): string {
  const p = join(repo, '.trees', folder, '.flightdeck', folder, 'state.yml');
  writeState(p, state(slug, status));
  return p;
}

function putMerged(folder: string, slug = folder, status: FeatureStatus = 'completed'): string {
  const p = join(repo, '.flightdeck', folder, 'state.yml');
  writeState(p, state(slug, status));
  return p;
}

describe('FeatureScanner on real folders', () => {
  it('finds nothing, without problems, in a repository with no features', async () => {
    const scan = await scanFeatures(repo);
    expect({ features: scan.features, problems: scan.problems }).toEqual({ features: [], problems: [] });
    // What it looked at: the two folders, neither there.
    expect([...scan.probes]).toEqual([
      [join(repo, '.flightdeck'), ''],
      [join(repo, '.trees'), ''],
    ]);
  });

  it('lists active features sorted by slug, ignoring ghost folders', async () => {
    putActive('zeta');
    putActive('alpha');
    putActive('mid-1');
    mkdirSync(join(repo, '.trees', 'ghost', 'src'), { recursive: true }); // a worktree without a feature record
    writeFileSync(join(repo, '.trees', 'stray-file'), 'x'); // not a folder at all
    mkdirSync(join(repo, '.trees', 'half', '.flightdeck', 'half'), { recursive: true }); // folder, no state.yml
    const { features, problems } = await scanFeatures(repo);
    expect(problems).toEqual([]);
    expect(features.map((f) => [f.slug, f.source, f.state.status])).toEqual([
      ['alpha', 'active', 'in_progress'],
      ['mid-1', 'active', 'in_progress'],
      ['zeta', 'active', 'in_progress'],
    ]);
  });

  it('ignores .flightdeck/<other> folders inherited inside a worktree', async () => {
    putActive('new-thing');
    // new-thing was branched after old-thing merged, so it carries old-thing's record.
    writeState(join(repo, '.trees', 'new-thing', '.flightdeck', 'old-thing', 'state.yml'), state('old-thing', 'completed'));
    const { features, problems } = await scanFeatures(repo);
    expect(problems).toEqual([]);
    expect(features.map((f) => f.slug)).toEqual(['new-thing']);
  });

  it('reports a state whose slug differs from its folder, and skips it', async () => {
    const p = putActive('folder-a', 'other-slug');
    putActive('ok');
    const { features, problems } = await scanFeatures(repo);
    expect(features.map((f) => f.slug)).toEqual(['ok']);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.path).toBe(p);
    expect(problems[0]!.message).toContain('the slug must equal the folder name');
  });

  it('merged records on the main checkout are forced to merged; the file is not changed', async () => {
    const p = putMerged('old-feature', 'old-feature', 'completed');
    const bytes = readFileSync(p);
    writeFileSync(join(repo, '.flightdeck', 'config.yml'), 'version: 1\n');
    mkdirSync(join(repo, '.flightdeck', 'prompts'), { recursive: true });
    const { features, problems } = await scanFeatures(repo);
    expect(problems).toEqual([]);
    expect(features.map((f) => [f.slug, f.source, f.state.status])).toEqual([['old-feature', 'merged', 'merged']]);
    expect(readFileSync(p).equals(bytes)).toBe(true);
    expect((await readState(p)).status).toBe('completed');
  });

  it('the active copy wins over a merged record of the same slug', async () => {
    putMerged('shared', 'shared', 'completed');
    putActive('shared', 'shared', 'failed');
    putMerged('b-merged');
    putActive('c-active');
    const { features } = await scanFeatures(repo);
    expect(features.map((f) => [f.slug, f.source, f.state.status])).toEqual([
      ['b-merged', 'merged', 'merged'],
      ['c-active', 'active', 'in_progress'],
      ['shared', 'active', 'failed'],
    ]);
    const one = await findFeature(repo, 'shared');
    expect(one.feature?.source).toBe('active');
    expect((await findFeature(repo, 'b-merged')).feature?.state.status).toBe('merged');
    expect((await findFeature(repo, 'nope')).feature).toBeUndefined();
  });

  it('a malformed or unreadable state is a problem, the others still listed', async () => {
    putActive('good');
    const bad = join(repo, '.trees', 'bad', '.flightdeck', 'bad', 'state.yml');
    mkdirSync(join(bad, '..'), { recursive: true });
    writeFileSync(bad, 'feature: [\n');
    const dirInstead = join(repo, '.flightdeck', 'weird', 'state.yml');
    mkdirSync(dirInstead, { recursive: true }); // a folder where the file should be
    const { features, problems } = await scanFeatures(repo);
    expect(features.map((f) => f.slug)).toEqual(['good']);
    expect(problems.map((p) => [p.kind, p.path]).sort()).toEqual(
      [
        ['io', dirInstead],
        ['yaml', bad],
      ].sort(),
    );
    expect(readFileSync(bad, 'utf8')).toBe('feature: [\n');
  });
});
