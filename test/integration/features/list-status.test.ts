import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeStatePath, mergedStatePath } from '../../../src-main/features/scanner';
import { writeState } from '../../../src-main/features/state';
import { cli } from '../../support/cli';
import { gitIn, tempDir } from '../../support/temp';
import { commitFile, ignoreTrees, makeActiveFeature, makeMergedRecord, repoWithOrigin, stateFor, type RepoWithOrigin } from './support/feature-repos';

let a: RepoWithOrigin;
let b: RepoWithOrigin;
let data: { path: string; cleanup(): void };
const fd = (...args: string[]) => cli(...args, `--data-dir=${data.path}`);

beforeAll(async () => {
  a = repoWithOrigin('fd-list-a-');
  b = repoWithOrigin('fd-list-b-');
  data = tempDir('fd-list-data-');
  for (const r of [a, b]) ignoreTrees(r.path);
  // Project A: two active features, one merged record, and a merged record whose feature is active again.
  makeActiveFeature(a.path, 'add-user-auth', { status: 'in_progress', phases: [{ name: 'type-defs', turns: 5, cost: 0.42, secs: 133, input: 6000, output: 2500 }, { name: 'transport', turns: 12, cost: 1.85, secs: 330, status: 'running' }] });
  makeActiveFeature(a.path, 'fix-login-bug', { status: 'completed', phases: [{ name: 'fix', turns: 15, cost: 1.05 }] });
  makeMergedRecord(a.path, 'old-feature', { phases: [{ name: 'old', turns: 8, cost: 0.65 }] });
  // The merged record is committed on main: worktrees made from main inherit it (a ghost to ignore).
  gitIn(a.path, 'add', '.flightdeck/old-feature/state.yml');
  gitIn(a.path, 'commit', '-q', '-m', 'record old-feature');
  makeActiveFeature(a.path, 'newer', { status: 'planned' });
  // Both copies of one slug: the active one wins.
  makeMergedRecord(a.path, 'both', { phases: [{ name: 'x', turns: 1, cost: 0.01 }] });
  makeActiveFeature(a.path, 'both', { status: 'failed', phases: [{ name: 'x', turns: 9, cost: 0.9 }] });
  // A plain worktree without a state file is no feature.
  gitIn(a.path, 'worktree', 'add', '-q', '-b', 'feature/plain', join(a.path, '.trees', 'plain'), 'main');
  makeActiveFeature(b.path, 'b-feature', { status: 'planned', phases: [{ name: 'only', turns: 0, cost: 0 }] });
  for (const r of [a, b]) expect((await fd('projects', 'add', r.path)).code).toBe(0);
}, 60_000);

afterAll(() => {
  a.cleanup();
  b.cleanup();
  data.cleanup();
});

interface ListJson {
  projects: { name: string; repoRoot: string; features: { slug: string; source: string; status: string; branch: string; turns: number; costUsd: number; problem: unknown }[]; problems: unknown[] }[];
}

describe('feature list', () => {
  it('lists every project with active and merged features, the scanner rules applied', async () => {
    const r = await fd('feature', 'list', '--json');
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out) as ListJson;
    expect(out.projects.map((p) => p.repoRoot).sort()).toEqual([a.path, b.path].sort());
    const pa = out.projects.find((p) => p.repoRoot === a.path)!;
    // Sorted by slug; `plain` (no state) and the inherited `.trees/newer/.flightdeck/old-feature` are not features.
    expect(pa.features.map((f) => [f.slug, f.source, f.status])).toEqual([
      ['add-user-auth', 'active', 'in_progress'],
      ['both', 'active', 'failed'],
      ['fix-login-bug', 'active', 'completed'],
      ['newer', 'active', 'planned'],
      ['old-feature', 'merged', 'merged'],
    ]);
    const auth = pa.features[0]!;
    expect(auth).toMatchObject({ branch: 'feature/add-user-auth', turns: 17, problem: null });
    expect(auth.costUsd).toBeCloseTo(2.27, 5);
    expect(pa.features.find((f) => f.slug === 'both')!.turns).toBe(9);
    const pb = out.projects.find((p) => p.repoRoot === b.path)!;
    expect(pb.features.map((f) => f.slug)).toEqual(['b-feature']);
  });

  it('prints the table with active above merged and the totals line', async () => {
    const r = await fd('feature', 'list', '--repo', a.path);
    expect(r.code, r.err).toBe(0);
    const lines = r.lines;
    const auth = lines.findIndex((l) => l.startsWith('add-user-auth'));
    const old = lines.findIndex((l) => l.startsWith('old-feature'));
    expect(auth).toBeGreaterThan(0);
    expect(old).toBeGreaterThan(auth);
    expect(lines[auth]).toMatch(/◐ in progress\s+feature\/add-user-auth\s+17\s+\$2\.27/);
    expect(lines[old]).toContain('✔ merged');
    expect(r.out).toContain('4 active, 1 merged — 5 feature(s) total');
    // --repo names one repository: no other project appears.
    expect(r.out).not.toContain('b-feature');
  });

  it('shows every project with its name when no --repo is given', async () => {
    const r = await fd('feature', 'list');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`(${a.path})`);
    expect(r.out).toContain(`(${b.path})`);
    expect(r.out).toContain('b-feature');
  });
});

describe('feature status', () => {
  it('shows git, the phases table, totals and tokens', async () => {
    writeFileSync(join(a.path, '.trees', 'add-user-auth', 'scratch.txt'), 'dirty\n');
    const r = await fd('feature', 'status', 'add-user-auth', '--repo', a.path, '--json');
    expect(r.code, r.err).toBe(0);
    const d = JSON.parse(r.out);
    expect(d.feature).toMatchObject({ slug: 'add-user-auth', status: 'in_progress', source: 'active' });
    expect(d.git).toMatchObject({ branch: 'feature/add-user-auth', base: 'main', aheadOfBase: 1, behindBase: 1, dirty: true, untracked: ['scratch.txt'], missing: false });
    expect(d.git.lastCommit.subject).toBe('feat(add-user-auth): initialize planning artifacts');
    expect(d.git.diskBytes).toBeGreaterThan(0);
    expect(d.state.phases.map((p: { name: string }) => p.name)).toEqual(['type-defs', 'transport', 'review', 'verify']);
    expect(d.tokens).toEqual({ input_tokens: 7000, output_tokens: 3000 });

    const text = await fd('feature', 'status', 'add-user-auth', '--repo', join(a.path, '.trees', 'add-user-auth'));
    expect(text.code, text.err).toBe(0);
    expect(text.out).toContain('Feature: add-user-auth');
    expect(text.out).toContain('Branch:     feature/add-user-auth');
    expect(text.out).toMatch(/type-defs\s+● completed\s+5\s+\$0\.42\s+2m 13s/);
    expect(text.out).toMatch(/review\s+○ pending\s+0\s+\$0\.00\s+0s/);
    expect(text.out).toContain('Total turns:    17');
    expect(text.out).toContain('Total cost:     $2.27 USD');
    expect(text.out).toContain('Total duration: 7m 43s');
    expect(text.out).toContain('Tokens:         7000 in / 3000 out');
    expect(text.out).toContain('dirty (0 changed, 1 untracked)');
    rmSync(join(a.path, '.trees', 'add-user-auth', 'scratch.txt'));
  });

  it('shows a merged feature from its record on the main checkout', async () => {
    const r = await fd('feature', 'status', 'old-feature', '--repo', a.path, '--json');
    expect(r.code, r.err).toBe(0);
    const d = JSON.parse(r.out);
    expect(d.feature).toMatchObject({ source: 'merged', status: 'merged', statePath: mergedStatePath(a.path, 'old-feature') });
    expect(d.git).toBeNull();
  });

  it('answers an unknown slug with exit 1 and usage mistakes with exit 2', async () => {
    const none = await fd('feature', 'status', 'nope', '--repo', a.path);
    expect(none.code).toBe(1);
    expect(none.err).toContain('There is no feature "nope"');
    expect((await fd('feature', 'status', '--repo', a.path)).code).toBe(2);
    expect((await fd('feature', 'frobnicate')).code).toBe(2);
    expect((await fd('feature')).code).toBe(2);
    expect((await fd('feature', 'list', '--yes')).code).toBe(2);
    expect((await fd('feature', 'list', 'extra')).code).toBe(2);
  });
});

describe('the index follows the files', () => {
  it('keeps the last good state of a broken file with the problem, and drops it once fixed', async () => {
    const path = activeStatePath(b.path, 'b-feature');
    const good = readFileSync(path);
    const broken = 'feature:\n  slug: b-feature\nstatus: [unclosed\n';
    writeFileSync(path, broken);
    const r = await fd('feature', 'list', '--repo', b.path, '--json');
    expect(r.code).toBe(0);
    const f = (JSON.parse(r.out) as ListJson).projects[0]!.features[0]!;
    expect(f).toMatchObject({ slug: 'b-feature', status: 'planned', source: 'active' });
    expect(f.problem).toMatchObject({ kind: 'yaml', path });
    expect((f.problem as { message: string }).message).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: invalid YAML`));
    expect(readFileSync(path, 'utf8')).toBe(broken);
    const text = await fd('feature', 'list', '--repo', b.path);
    expect(text.out).toContain('! b-feature: yaml error:');

    writeState(path, stateFor('b-feature', { status: 'completed', phases: [{ name: 'only', turns: 4, cost: 0.4 }] }));
    const fixed = (JSON.parse((await fd('feature', 'list', '--repo', b.path, '--json')).out) as ListJson).projects[0]!.features[0]!;
    expect(fixed).toMatchObject({ status: 'completed', turns: 4, problem: null });
    writeFileSync(path, good);
  });

  it('a feature whose state file disappears leaves the list; a new one appears', async () => {
    commitFile(a.path, 'later.txt', 'x\n', 'main moves');
    makeActiveFeature(b.path, 'b-second', { status: 'planned' });
    let out = JSON.parse((await fd('feature', 'list', '--repo', b.path, '--json')).out) as ListJson;
    expect(out.projects[0]!.features.map((f) => f.slug)).toEqual(['b-feature', 'b-second']);
    rmSync(activeStatePath(b.path, 'b-second'));
    out = JSON.parse((await fd('feature', 'list', '--repo', b.path, '--json')).out) as ListJson;
    expect(out.projects[0]!.features.map((f) => f.slug)).toEqual(['b-feature']);
  });
});
