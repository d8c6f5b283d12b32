/**
 * The `feature_index` table (migration 004): one row per feature of a repository, the last good
 * state read from its `state.yml`, and the problem of the file when the last read failed; and
 * (migration 014) the identity and hash of the file that state was read from.
 */
import { appVersion } from '../app/version';
import type { Database } from '../store/db';
import type { FeatureErrorKind } from './errors';
import type { FeatureSource, StateFileMark } from './scanner';
import type { FeatureState } from './state';

export interface IndexProblem {
  kind: FeatureErrorKind;
  /** The message with its location in front (`path:line: …`). */
  message: string;
  path: string | null;
  line: number | null;
}

export interface FeatureRow {
  repoRoot: string;
  slug: string;
  /** Null while no good copy was ever read: only the problem is known. */
  source: FeatureSource | null;
  statePath: string | null;
  state: FeatureState | null;
  problem: IndexProblem | null;
  indexedAt: number;
  /** What `state` was read from at `statePath` (absent: not known, or the row is kept from an earlier read while the file is broken). */
  stateFile?: StateFileMark;
}

interface RawRow {
  repo_root: string;
  slug: string;
  source: string | null;
  state_path: string | null;
  state: string | null;
  problem_kind: string | null;
  problem: string | null;
  problem_path: string | null;
  problem_line: number | null;
  indexed_at: number;
  state_identity: string | null;
  state_sha256: string | null;
}

/**
 * What follows a row's state_sha256: the app version that parsed its state. A restarted app
 * trusts a row's state in place of parsing its file (scanner.ts, rememberStates), and acts on it
 * (a run resumed, a branch diffed); a row another version parsed is read as one with no file
 * known, so that this version's parser and schema (stricter bounds, other defaults) decide.
 */
const markTag = () => `@${appVersion()}`;

/** A row's file mark if this app version wrote it (see markTag); undefined otherwise. */
function markOf(r: RawRow): StateFileMark | undefined {
  const tag = markTag();
  if (r.state_sha256 === null || r.state === null || r.problem || !r.state_sha256.endsWith(tag)) return undefined;
  return { identity: r.state_identity, sha256: r.state_sha256.slice(0, -tag.length) };
}

function toRow(r: RawRow): FeatureRow {
  const stateFile = markOf(r);
  return {
    repoRoot: r.repo_root,
    slug: r.slug,
    source: r.source === 'active' || r.source === 'merged' ? r.source : null,
    statePath: r.state_path,
    // Written by upsert from a validated state only, so it parses back to one.
    state: r.state ? (JSON.parse(r.state) as FeatureState) : null,
    problem: r.problem ? { kind: (r.problem_kind ?? 'state') as FeatureErrorKind, message: r.problem, path: r.problem_path, line: r.problem_line } : null,
    indexedAt: r.indexed_at,
    ...(stateFile ? { stateFile } : {}),
  };
}

export class FeatureRepo {
  constructor(private readonly db: Database) {}

  forRepo(repoRoot: string): FeatureRow[] {
    return (this.db.prepare('SELECT * FROM feature_index WHERE repo_root = ? ORDER BY slug').all(repoRoot) as RawRow[]).map(toRow);
  }

  get(repoRoot: string, slug: string): FeatureRow | undefined {
    const r = this.db.prepare('SELECT * FROM feature_index WHERE repo_root = ? AND slug = ?').get(repoRoot, slug) as RawRow | undefined;
    return r ? toRow(r) : undefined;
  }

  /** Replaces a repository's rows by `rows` in one transaction (rows of other slugs are deleted). */
  replaceRepo(repoRoot: string, rows: readonly FeatureRow[]): void {
    const del = this.db.prepare('DELETE FROM feature_index WHERE repo_root = ?');
    const ins = this.db.prepare(
      `INSERT INTO feature_index (repo_root, slug, source, state_path, state, status, branch, turns, cost_usd, updated_at, problem_kind, problem, problem_path, problem_line, indexed_at, state_identity, state_sha256)
       VALUES (@repo_root, @slug, @source, @state_path, @state, @status, @branch, @turns, @cost_usd, @updated_at, @problem_kind, @problem, @problem_path, @problem_line, @indexed_at, @state_identity, @state_sha256)`,
    );
    this.db.transaction(() => {
      del.run(repoRoot);
      for (const r of rows) {
        ins.run({
          repo_root: repoRoot,
          slug: r.slug,
          source: r.source,
          state_path: r.statePath,
          state: r.state ? JSON.stringify(r.state) : null,
          status: r.state?.status ?? null,
          branch: r.state?.git.branch ?? null,
          turns: r.state?.total.turns ?? 0,
          cost_usd: r.state?.total.cost_usd ?? 0,
          updated_at: r.state?.feature.updated_at ?? null,
          problem_kind: r.problem?.kind ?? null,
          problem: r.problem?.message ?? null,
          problem_path: r.problem?.path ?? null,
          problem_line: r.problem?.line ?? null,
          indexed_at: r.indexedAt,
          state_identity: r.stateFile?.identity ?? null,
          state_sha256: r.stateFile ? `${r.stateFile.sha256}${markTag()}` : null,
        });
      }
    })();
  }

  /** Repositories with rows (to drop those no longer registered nor asked for). */
  repoRoots(): string[] {
    return (this.db.prepare('SELECT DISTINCT repo_root AS r FROM feature_index').all() as { r: string }[]).map((x) => x.r);
  }
}
