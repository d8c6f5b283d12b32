import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configPath } from '../../../src-main/features/config';
import { FeatureError } from '../../../src-main/features/errors';
import { FeatureService } from '../../../src-main/features/feature-service';
import { DefaultGhOps } from '../../../src-main/features/git-ops';
import { activeStatePath, mergedStatePath } from '../../../src-main/features/scanner';
import { writeState } from '../../../src-main/features/state';
import { createLogger } from '../../../src-main/platform/logger';
import { openDatabase, type Database } from '../../../src-main/store/db';
import { WorktreeManager } from '../../../src-main/worktrees/worktree-manager';
import { cli } from '../../support/cli';
import { tempDir } from '../../support/temp';
import { makeActiveFeature, repoWithOrigin, stateFor, type RepoWithOrigin } from './support/feature-repos';

/**
 * The malformed corpus (test/fixtures/features/malformed) driven through list, status and clean:
 * every file gives its message with path and line, nothing crashes, no file is rewritten, and a
 * state file that breaks keeps its last good row in the index.
 */
const CORPUS = join(__dirname, '../../fixtures/features/malformed');
const expected = JSON.parse(readFileSync(join(CORPUS, 'expected.json'), 'utf8')) as Record<string, { kind: string; line: number | null; contains: string }>;
const stateFiles = readdirSync(CORPUS).filter((f) => f.endsWith('.state.yml')).sort();
const configFiles = readdirSync(CORPUS).filter((f) => f.endsWith('.config.yml')).sort();
const slugOf = (file: string) => file.replace(/\.state\.yml$/, '');
/** Odd ones as a worktree's state, even ones as a merged record on the main checkout. */
const placeOf = (root: string, file: string, i: number) => (i % 2 === 0 ? activeStatePath(root, slugOf(file)) : mergedStatePath(root, slugOf(file)));

let repo: RepoWithOrigin;
let data: { path: string; cleanup(): void };
let db: Database;
let features: FeatureService;

beforeAll(async () => {
  repo = repoWithOrigin('fd-corpus-');
  data = tempDir('fd-corpus-data-');
  db = openDatabase(join(data.path, 'fd.db'));
  const empty = tempDir('fd-corpus-nogh-');
  features = new FeatureService({ db, log: createLogger({ level: 'error' }), projects: { list: () => [] }, worktrees: new WorktreeManager({ settleMs: 20 }), gh: new DefaultGhOps({ ...process.env, PATH: empty.path }) });
  // One healthy, merged feature: clean must still see it while the others are broken.
  makeActiveFeature(repo.path, 'healthy');
  // First every feature is good, so the index holds a good row for each…
  stateFiles.forEach((f, i) => writeState(placeOf(repo.path, f, i), stateFor(slugOf(f), { phases: [{ name: 'p', turns: i + 1, cost: 0.1 }] })));
  const first = await features.list({ repo: repo.path });
  expect(first[0]!.features.filter((x) => x.problem === null)).toHaveLength(stateFiles.length + 1);
  // …then each is replaced by its malformed twin.
  stateFiles.forEach((f, i) => {
    const target = placeOf(repo.path, f, i);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(CORPUS, f), target);
  });
}, 60_000);

afterAll(async () => {
  await features.dispose();
  db.close();
  data.cleanup();
  repo.cleanup();
});

function checkProblem(p: { kind: string; message: string; path: string | null; line: number | null } | null, path: string, file: string): void {
  const exp = expected[file]!;
  expect(p, file).not.toBeNull();
  expect(p!.kind, file).toBe(exp.kind);
  expect(p!.path, file).toBe(path);
  expect(p!.line, file).toBeGreaterThanOrEqual(1);
  if (exp.line !== null) expect(p!.line, `${file}: ${p!.message}`).toBe(exp.line);
  expect(p!.message.startsWith(`${path}:${p!.line}: `), p!.message).toBe(true);
  expect(p!.message, file).toContain(exp.contains);
}

describe('malformed state files through list, status and clean', () => {
  it(`list: ${stateFiles.length} problems with path and line, last good rows kept, files untouched`, async () => {
    const [project] = await features.list({ repo: repo.path });
    expect(project!.error).toBeNull();
    stateFiles.forEach((f, i) => {
      const row = project!.features.find((x) => x.slug === slugOf(f));
      const path = placeOf(repo.path, f, i);
      checkProblem(row?.problem ?? null, path, f);
      // The last good content is still what the index shows.
      expect(row!.turns, f).toBe(i + 1);
      expect(row!.status, f).toBe(i % 2 === 0 ? 'in_progress' : 'merged');
      expect(readFileSync(path).equals(readFileSync(join(CORPUS, f))), f).toBe(true);
    });
    expect(project!.features.find((x) => x.slug === 'healthy')!.problem).toBeNull();
  });

  it('status: each broken feature is shown with its problem', async () => {
    for (const [i, f] of stateFiles.entries()) {
      const d = await features.status(repo.path, slugOf(f));
      checkProblem(d.feature.problem, placeOf(repo.path, f, i), f);
      expect(d.state?.feature.slug).toBe(slugOf(f));
    }
  });

  it('clean: broken features are skipped with their problem; nothing is removed or written', async () => {
    const r = await features.clean(repo.path, { dryRun: false });
    expect(r.removed).toEqual([]);
    expect(r.failed).toEqual([]);
    for (const [i, f] of stateFiles.entries()) {
      const s = r.skipped.find((x) => x.slug === slugOf(f));
      expect(s?.why, f).toContain(`its state file has a problem: ${placeOf(repo.path, f, i)}:`);
      expect(readFileSync(placeOf(repo.path, f, i)).equals(readFileSync(join(CORPUS, f))), f).toBe(true);
    }
    expect(r.skipped.find((x) => x.slug === 'healthy')?.why).toBe('branch not merged into the base');
  });

  it('the CLI list prints each problem with its path and exits 0', async () => {
    const r = await cli('feature', 'list', '--repo', repo.path, `--data-dir=${data.path}-cli`);
    expect(r.code, r.err).toBe(0);
    for (const [i, f] of stateFiles.entries()) expect(r.out).toContain(`! ${slugOf(f)}: ${expected[f]!.kind} error: ${placeOf(repo.path, f, i)}:`);
  });
});

describe('a state file that is not a file', () => {
  it('a FIFO named state.yml is reported, never waited on', async () => {
    const path = activeStatePath(repo.path, 'fifo-state');
    mkdirSync(dirname(path), { recursive: true });
    execFileSync('mkfifo', [path]);
    try {
      const [project] = await features.list({ repo: repo.path });
      const row = project!.features.find((x) => x.slug === 'fifo-state');
      expect(row?.problem).toMatchObject({ kind: 'io', path });
      expect(row?.problem?.message.startsWith(`${path}: `)).toBe(true);
      const r = await features.clean(repo.path, { dryRun: true });
      expect(r.skipped.find((x) => x.slug === 'fifo-state')?.why).toContain(path);
    } finally {
      rmSync(dirname(dirname(dirname(path))), { recursive: true, force: true });
    }
  });
});

describe('malformed config.yml through list and clean', () => {
  it(`${configFiles.length} configs: list reports each with path and line, clean refuses, the file is never rewritten`, async () => {
    const target = configPath(repo.path);
    mkdirSync(dirname(target), { recursive: true });
    for (const f of configFiles) {
      copyFileSync(join(CORPUS, f), target);
      const [project] = await features.list({ repo: repo.path });
      const problem = project!.problems.find((p) => p.path === target) ?? null;
      checkProblem(problem, target, f);
      const err = await features.clean(repo.path, { dryRun: true }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, f).toBeInstanceOf(FeatureError);
      expect((err as FeatureError).message, f).toBe(problem!.message);
      expect(readFileSync(target).equals(readFileSync(join(CORPUS, f))), f).toBe(true);
    }
    const r = await cli('feature', 'clean', '--dry-run', '--repo', repo.path, `--data-dir=${data.path}-cli`);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`^error: (config|yaml) error: ${target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: `));
    const j = await cli('feature', 'clean', '--dry-run', '--json', '--repo', repo.path, `--data-dir=${data.path}-cli`);
    expect(j.code).toBe(1);
    const shape = JSON.parse(j.err) as { error: { code: string; details: { kind: string; path: string; line: number } } };
    expect(shape.error.code).toBe('invalid_input');
    expect(shape.error.details.path).toBe(target);
    expect(shape.error.details.line).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
