/**
 * A restarted app trusts the index's rows whose state files kept the identity they had when read
 * (feature_index.state_identity, migration 014) and parses only the files that changed: same
 * size with other content, a new inode, a file only touched (read, its text the same: not parsed
 * again). A file or a folder on its way swapped for a symlink while the app was closed is not
 * trusted: it is refused as a read would refuse it. An index written before migration 014 is
 * upgraded and keeps working.
 *
 * A restart is a new FeatureIndex on the same database after forgetParsedStates (the process's
 * memory gone). Files changed within their file system's racy window have no identity
 * (scanner.ts, git's "racy" rule): to see files trusted the clock is moved past it (only Date
 * is faked), and to see one untrusted it is put 10 ms after the file's change.
 */
import { copyFileSync, mkdirSync, readFileSync, realpathSync, renameSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FeatureIndex } from '../../../src-main/features/feature-index';
import type { FeatureRow } from '../../../src-main/features/feature-repo';
import { activeStatePath, forgetParsedStates, mergedStatePath, scanFeatures } from '../../../src-main/features/scanner';
import * as stateModule from '../../../src-main/features/state';
import { newFeatureState, serializeState, writeState } from '../../../src-main/features/state';
import { stateParser } from '../../../src-main/features/state-parser';
import { silentLogger } from '../../../src-main/platform/logger';
import { migrate, openDatabase, schemaVersion, type Database } from '../../../src-main/store/db';
import { MIGRATIONS } from '../../../src-main/store/migrations';
import { tempDir } from '../../support/temp';

vi.mock('../../../src-main/features/state', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../src-main/features/state')>();
  return { ...actual, readStateTextSync: vi.fn(actual.readStateTextSync) };
});
const reads = vi.mocked(stateModule.readStateTextSync);
const parses = vi.spyOn(stateParser, 'parse');
const Sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

let repo: { path: string; cleanup(): void };
let outside: { path: string; cleanup(): void };
let data: { path: string; cleanup(): void };
let root: string;
const indexes: FeatureIndex[] = [];
const dbs: Database[] = [];

beforeEach(() => {
  repo = tempDir('fd-restart-');
  outside = tempDir('fd-restart-outside-');
  data = tempDir('fd-restart-data-');
  // Repository roots are real paths (WorktreeManager.repoRoot).
  root = realpathSync(repo.path);
  forgetParsedStates();
});

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(indexes.splice(0).map((i) => i.dispose()));
  dbs.splice(0).forEach((d) => d.close());
  repo.cleanup();
  outside.cleanup();
  data.cleanup();
});

/** Moves the clock past the racy window: every file written so far has an identity. */
function moveClock(): void {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + 5_000);
}

function put(slug: string, o: { merged?: boolean; branch?: string } = {}): string {
  const path = o.merged ? mergedStatePath(root, slug) : activeStatePath(root, slug);
  const state = newFeatureState({ slug, now: new Date('2026-02-10T10:30:00Z'), worktreePath: `.trees/${slug}`, branch: o.branch ?? `feature/${slug}`, baseBranch: 'main', devPhases: ['one'] });
  writeState(path, o.merged ? { ...state, status: 'completed' } : state);
  return path;
}

/** An app started on the database at `file` (its first index, after a restart when one ran before). */
function start(file: string): FeatureIndex {
  forgetParsedStates();
  const db = openDatabase(file);
  dbs.push(db);
  const idx = new FeatureIndex({ db, log: silentLogger });
  indexes.push(idx);
  return idx;
}

async function stop(idx: FeatureIndex): Promise<void> {
  await idx.dispose();
  dbs.splice(0).forEach((d) => d.close());
}

const view = (rows: readonly FeatureRow[]) => rows.map((r) => ({ slug: r.slug, source: r.source, branch: r.state?.git.branch ?? null, status: r.state?.status ?? null, problem: r.problem?.message ?? null }));
const pathsOf = (m: { mock: { calls: unknown[][] } }, at: number) => m.mock.calls.map((c) => c[at] as string).sort();

describe('the feature index after a restart', () => {
  it('trusts unchanged files without reading them and reads again only what changed', async () => {
    const dbFile = join(data.path, 'fd.db');
    const alpha = put('alpha');
    const beta = put('beta');
    const gamma = put('gamma', { merged: true });
    const delta = put('delta');
    const eps = put('eps');
    moveClock();
    const first = start(dbFile);
    const before = await first.reconcile(root);
    expect(view(before.rows).map((r) => [r.slug, r.status])).toEqual([
      ['alpha', 'planned'],
      ['beta', 'planned'],
      ['delta', 'planned'],
      ['eps', 'planned'],
      ['gamma', 'merged'],
    ]);
    // Each row records what its file was.
    expect(before.rows.every((r) => r.stateFile?.identity && r.stateFile.sha256.length === 64)).toBe(true);
    await stop(first);

    // Restarted with nothing changed: no file read, none parsed, the same rows.
    reads.mockClear();
    parses.mockClear();
    const second = start(dbFile);
    expect(view((await second.reconcile(root)).rows)).toEqual(view(before.rows));
    expect(reads).not.toHaveBeenCalled();
    expect(parses).not.toHaveBeenCalled();
    await stop(second);

    // While the app is closed:
    // alpha is edited in place, same size, other content, its modification time bumped;
    const text = readFileSync(alpha, 'utf8');
    writeFileSync(alpha, text.replace('feature/alpha', 'feature/alphz'));
    expect(readFileSync(alpha).length).toBe(text.length);
    utimesSync(alpha, new Date(), new Date(Date.now() + 60_000));
    // beta is replaced by a new file (a new inode) with other content;
    writeFileSync(`${beta}.new`, serializeState({ ...newFeatureState({ slug: 'beta', now: new Date('2026-02-10T10:30:00Z'), worktreePath: '.trees/beta', branch: 'feature/beta', baseBranch: 'main', devPhases: ['one'] }), status: 'failed' }));
    renameSync(`${beta}.new`, beta);
    // delta is only touched (its text the same);
    utimesSync(delta, new Date(), new Date(Date.now() + 60_000));
    // gamma's record is swapped for a symlink to a copy of itself outside the repository;
    copyFileSync(gamma, join(outside.path, 'gamma.yml'));
    renameSync(gamma, join(outside.path, 'gamma-old.yml'));
    symlinkSync(join(outside.path, 'gamma.yml'), gamma);
    // eps's worktree has its .flightdeck folder moved out and a symlink put in its place: the state
    // file is the very same inode, reached through a link.
    const epsFolder = dirname(dirname(eps));
    renameSync(epsFolder, join(outside.path, 'eps-flightdeck'));
    symlinkSync(join(outside.path, 'eps-flightdeck'), epsFolder);
    moveClock();

    reads.mockClear();
    parses.mockClear();
    const third = start(dbFile);
    const after = await third.reconcile(root);
    expect(view(after.rows)).toEqual([
      { slug: 'alpha', source: 'active', branch: 'feature/alphz', status: 'planned', problem: null },
      { slug: 'beta', source: 'active', branch: 'feature/beta', status: 'failed', problem: null },
      { slug: 'delta', source: 'active', branch: 'feature/delta', status: 'planned', problem: null },
      // Refused as any read refuses a link, the last good state kept with the problem.
      { slug: 'eps', source: 'active', branch: 'feature/eps', status: 'planned', problem: expect.stringContaining('is a symbolic link') as string },
      { slug: 'gamma', source: 'merged', branch: 'feature/gamma', status: 'merged', problem: expect.stringContaining('is a symbolic link') as string },
    ]);
    // Parsed: the two with new content. Read: those and the touched one (its text the same); the
    // two behind links were tried and refused.
    expect(pathsOf(parses, 1)).toEqual([alpha, beta].sort());
    expect(pathsOf(reads, 0)).toEqual([alpha, beta, delta, eps, gamma].sort());
    // The new identities are written down; rows kept from an earlier read carry none.
    const stored = third.repo.forRepo(root);
    expect(stored.find((r) => r.slug === 'alpha')!.stateFile!.identity).not.toBe(before.rows.find((r) => r.slug === 'alpha')!.stateFile!.identity);
    expect(stored.filter((r) => r.stateFile === undefined).map((r) => r.slug)).toEqual(['eps', 'gamma']);
  }, 30_000);

  it('rememberAll at a host\'s start spares any first scan the parse, not only the index\'s own', async () => {
    const dbFile = join(data.path, 'fd.db');
    put('alpha');
    put('beta', { merged: true });
    moveClock();
    const first = start(dbFile);
    await first.reconcile(root);
    await stop(first);

    reads.mockClear();
    parses.mockClear();
    const second = start(dbFile);
    second.rememberAll();
    // What resuming interrupted runs does at a host's start, before the index's first reconcile.
    expect((await scanFeatures(root)).features.map((f) => [f.slug, f.state.status])).toEqual([
      ['alpha', 'planned'],
      ['beta', 'merged'],
    ]);
    expect(reads).not.toHaveBeenCalled();
    expect(parses).not.toHaveBeenCalled();
  }, 30_000);

  it('upgrades an index written before migration 014: its rows keep working, then gain their files', async () => {
    const dbFile = join(data.path, 'old.db');
    const alpha = put('alpha');
    const old = new Sqlite(dbFile);
    migrate(old, MIGRATIONS.slice(0, 13));
    const state = JSON.parse(JSON.stringify(stateModule.parseState(readFileSync(alpha, 'utf8'), alpha))) as stateModule.FeatureState;
    old
      .prepare(
        `INSERT INTO feature_index (repo_root, slug, source, state_path, state, status, branch, turns, cost_usd, updated_at, indexed_at)
         VALUES (?, 'alpha', 'active', ?, ?, 'planned', 'feature/alpha', 0, 0, ?, 1)`,
      )
      .run(root, alpha, JSON.stringify(state), state.feature.updated_at);
    old.close();

    moveClock();
    const idx = start(dbFile);
    expect(schemaVersion(dbs[0]!)).toBe(MIGRATIONS.length);
    const [row] = idx.repo.forRepo(root);
    expect(row).toMatchObject({ slug: 'alpha', source: 'active', statePath: alpha, problem: null });
    expect(row!.state?.git.branch).toBe('feature/alpha');
    expect(row!.stateFile).toBeUndefined();
    expect(idx.cached(root).rows.map((r) => r.slug)).toEqual(['alpha']);

    // Nothing known of its file: read and parsed once, and from then on known.
    parses.mockClear();
    expect(view((await idx.reconcile(root)).rows)).toEqual([{ slug: 'alpha', source: 'active', branch: 'feature/alpha', status: 'planned', problem: null }]);
    expect(pathsOf(parses, 1)).toEqual([alpha]);
    expect(idx.repo.forRepo(root)[0]!.stateFile?.identity).toBeTruthy();
  }, 30_000);

  it('a row another app version parsed is not trusted: this version parses its file again', async () => {
    const dbFile = join(data.path, 'fd.db');
    const alpha = put('alpha');
    put('beta');
    moveClock();
    const first = start(dbFile);
    await first.reconcile(root);
    await stop(first);
    // alpha's row as an older release would have written it (its file unchanged since).
    const other = new Sqlite(dbFile);
    const { n } = other.prepare("SELECT count(*) AS n FROM feature_index WHERE slug = 'alpha' AND state_sha256 LIKE '%@%'").get() as { n: number };
    expect(n).toBe(1);
    other.prepare("UPDATE feature_index SET state_sha256 = substr(state_sha256, 1, 64) || '@0.0.1-older' WHERE slug = 'alpha'").run();
    other.close();

    reads.mockClear();
    parses.mockClear();
    const second = start(dbFile);
    expect(second.repo.forRepo(root).find((r) => r.slug === 'alpha')!.stateFile).toBeUndefined();
    expect(view((await second.reconcile(root)).rows).map((r) => [r.slug, r.status, r.problem])).toEqual([
      ['alpha', 'planned', null],
      ['beta', 'planned', null],
    ]);
    // Only alpha is read, and parsed although its text is the one indexed; beta is trusted.
    expect(pathsOf(reads, 0)).toEqual([alpha]);
    expect(pathsOf(parses, 1)).toEqual([alpha]);
    // Written down again, now as this version's.
    expect(second.repo.forRepo(root).find((r) => r.slug === 'alpha')!.stateFile?.identity).toBeTruthy();
  }, 30_000);

  it('a file changed within the racy window is not written down as trusted', async () => {
    const dbFile = join(data.path, 'fd.db');
    mkdirSync(root, { recursive: true });
    const alphaPath = put('alpha');
    const idx = start(dbFile);
    // Looked at 10 ms after it was written, whatever the machine's speed: inside the racy window.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Math.max(statSync(alphaPath).mtimeMs, statSync(alphaPath).ctimeMs) + 10);
    await idx.reconcile(root);
    // Just written: no identity to trust, only its text's hash (a restart reads it again).
    const [row] = idx.repo.forRepo(root);
    expect(row!.stateFile?.identity).toBeNull();
    expect(row!.stateFile?.sha256).toHaveLength(64);
    await stop(idx);
    reads.mockClear();
    parses.mockClear();
    moveClock();
    const again = start(dbFile);
    await again.reconcile(root);
    // Read (its identity unknown), not parsed (its text the one indexed).
    expect(reads).toHaveBeenCalledTimes(1);
    expect(parses).not.toHaveBeenCalled();
  }, 30_000);
});
