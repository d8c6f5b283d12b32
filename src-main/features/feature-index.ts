/**
 * The feature index: the `feature_index` table kept equal to the repositories' `state.yml` files.
 * The files are the record and always win; the table is what lists and the board read, and what
 * remembers the last good state of a file someone broke.
 *
 * Reconciled at start, after a watched state file changes (`.trees/<slug>/.flightdeck/<slug>/state.yml`,
 * `.flightdeck/<slug>/state.yml`, or the `issue.yml` beside it), debounced, and whenever `current`
 * finds that a file the last reconcile read is no longer what it was. A list asks `current`:
 * it answers from the last reconcile kept in memory after one stat per feature folder and state
 * file (no read, no parse), and reconciles only when something moved or a watched change is
 * still waiting for its debounce.
 * A state file that fails to parse keeps its last good row, marked with the problem (path and
 * line); neither the file nor that row's state is overwritten. `reconcileRows` is the pure rule.
 */
import { basename, relative, sep } from 'node:path';
import type { FeatureIssueRef } from '../../src-preload/contract/issues';
import type { Logger } from '../platform/logger';
import { KeyedLock } from '../platform/keyed-lock';
import type { Database } from '../store/db';
import { FEATURES_DIR } from './config';
import { FeatureError } from './errors';
import { FeatureRepo, type FeatureRow, type IndexProblem } from './feature-repo';
import { ISSUE_FILE } from './issue-input';
import { IssueLinks } from './issue-links';
import { identityNow, probesHold, rememberStates, scanFeatures, TREES_DIR, type FeatureSource, type ScanResult } from './scanner';
import { STATE_FILE } from './state';
import { StateWatcher } from './state-watcher';

/**
 * Editors and git write a file in several steps (temp file, rename, chmod) and a checkout
 * touches many state files at once: one reconcile per burst, soon enough to feel live.
 */
export const WATCH_DEBOUNCE_MS = 200;

/** Which feature a state file belongs to, from its place in the repository; null for any other file. */
export function locateStatePath(repoRoot: string, path: string): { slug: string; source: FeatureSource } | null {
  const parts = relative(repoRoot, path).split(sep);
  if (parts.length === 3 && parts[0] === FEATURES_DIR && parts[2] === STATE_FILE) return { slug: parts[1]!, source: 'merged' };
  if (parts.length === 5 && parts[0] === TREES_DIR && parts[2] === FEATURES_DIR && parts[1] === parts[3] && parts[4] === STATE_FILE) return { slug: parts[1]!, source: 'active' };
  return null;
}

/** The files beside a state file that the index reads: the state itself and the issue it was planned from. */
const isFeatureFile = (name: string | undefined) => name === STATE_FILE || name === ISSUE_FILE;

/** Whether the watcher should look at `path`: the state and issue files and the folders leading to them, nothing inside a worktree's sources. */
export function isWatchedPath(repoRoot: string, path: string): boolean {
  const rel = relative(repoRoot, path);
  if (rel === '') return true;
  const p = rel.split(sep);
  if (p[0] === FEATURES_DIR) return p.length === 1 || p.length === 2 || (p.length === 3 && isFeatureFile(p[2]));
  if (p[0] === TREES_DIR) {
    if (p.length <= 2) return true;
    if (p[2] !== FEATURES_DIR) return false;
    if (p.length === 3) return true;
    if (p[3] !== p[1]) return false; // inherited `.flightdeck/<other>` folders are not this worktree's feature
    return p.length === 4 || (p.length === 5 && isFeatureFile(p[4]));
  }
  return false;
}

export function toIndexProblem(e: FeatureError): IndexProblem {
  return { kind: e.kind, message: e.message, path: e.path ?? null, line: e.line ?? null };
}

/**
 * The rows a repository's index must hold after a scan, given the rows it held before:
 * - a feature read well is its row, without problem (the file wins over the old row);
 * - a feature whose shown copy failed (the active copy, or the merged one when there is no
 *   worktree copy) keeps its previous good state, else the scanned merged copy, else none,
 *   with the problem attached;
 * - a feature with neither a file nor a problem is gone.
 * Problems not about one feature's state file (an unreadable `.trees` folder) are returned apart.
 */
export function reconcileRows(repoRoot: string, previous: readonly FeatureRow[], scan: Pick<ScanResult, 'features' | 'problems'>, now: number): { rows: FeatureRow[]; repoProblems: IndexProblem[] } {
  const before = new Map(previous.map((r) => [r.slug, r]));
  const problems = new Map<string, { active?: FeatureError; merged?: FeatureError }>();
  const repoProblems: IndexProblem[] = [];
  for (const p of scan.problems) {
    const at = p.path ? locateStatePath(repoRoot, p.path) : null;
    if (!at) {
      repoProblems.push(toIndexProblem(p));
      continue;
    }
    const entry = problems.get(at.slug) ?? {};
    entry[at.source] = p;
    problems.set(at.slug, entry);
  }
  const scanned = new Map(scan.features.map((f) => [f.slug, f]));
  const slugs = [...new Set([...scanned.keys(), ...problems.keys()])].sort();
  const rows: FeatureRow[] = [];
  for (const slug of slugs) {
    const found = scanned.get(slug);
    const trouble = problems.get(slug);
    // The shown copy failed: the active one, or the merged one when no active copy was read.
    const failed = trouble?.active ?? (found?.source === 'active' ? undefined : trouble?.merged);
    if (!failed) {
      rows.push({ repoRoot, slug, source: found!.source, statePath: found!.statePath, state: found!.state, problem: null, indexedAt: now, ...(found!.stateFile ? { stateFile: found!.stateFile } : {}) });
      continue;
    }
    const last = before.get(slug);
    const keep = last?.state ? { source: last.source, statePath: last.statePath, state: last.state } : found ? { source: found.source, statePath: found.statePath, state: found.state } : { source: null, statePath: null, state: null };
    rows.push({ repoRoot, slug, ...keep, problem: toIndexProblem(failed), indexedAt: now });
  }
  return { rows, repoProblems };
}

function sameIssues(a: ReadonlyMap<string, FeatureIssueRef>, b: ReadonlyMap<string, FeatureIssueRef>): boolean {
  if (a.size !== b.size) return false;
  for (const [slug, ref] of b) {
    const was = a.get(slug);
    if (!was || was.number !== ref.number || was.url !== ref.url || was.title !== ref.title) return false;
  }
  return true;
}

/** Rows compared by what a reader sees (the indexing time and the files' identities left out). */
function sameRows(a: readonly FeatureRow[], b: readonly FeatureRow[]): boolean {
  // Row by row, and not at all when the counts differ (a first index: none before, a thousand now).
  if (a.length !== b.length) return false;
  const strip = (r: FeatureRow) => JSON.stringify({ ...r, indexedAt: 0, stateFile: undefined });
  return a.every((r, i) => strip(r) === strip(b[i]!));
}

/** Whether the rows were read from the same files (what a restarted app trusts: see rememberStates). */
function sameFiles(a: readonly FeatureRow[], b: readonly FeatureRow[]): boolean {
  return a.length === b.length && a.every((r, i) => r.stateFile?.identity === b[i]!.stateFile?.identity && r.stateFile?.sha256 === b[i]!.stateFile?.sha256);
}

/**
 * Whether a path a scan probed with an identity now has another (one stat each). Paths probed
 * without one (changed within the racy window) are left out: they cannot show a change, and
 * `current` reads them again anyway.
 */
function probesMoved(probes: ReadonlyMap<string, string | null>): boolean {
  for (const [path, was] of probes) {
    if (was !== null && identityNow(path) !== was) return true;
  }
  return false;
}

/** The lock key scans take turns on (repository roots are absolute paths, so never this). */
const SCAN_TURN = 'scan turn';

export interface FeatureIndexOptions {
  db: Database;
  log: Logger;
  /** Called after a reconcile changed a repository's rows (the service publishes `features.changed`). */
  onChanged?: (repoRoot: string) => void;
  debounceMs?: number;
  now?: () => number;
}

export interface RepoIndex {
  /** Shared with later callers until the next reconcile: read, never change. */
  rows: FeatureRow[];
  /** Problems of the repository's feature folders themselves (not of one state file). */
  problems: IndexProblem[];
  /** The issue each feature was planned from (`issue.yml` beside its state file), by slug; absent: none. */
  issues: ReadonlyMap<string, FeatureIssueRef>;
}

/** A repository's index as the last reconcile left it, and what that reconcile read (see probesHold). */
interface Snapshot {
  index: RepoIndex;
  probes: ReadonlyMap<string, string | null>;
  /** Which scan made it (FeatureIndex.scans when it began). */
  seq: number;
}

export class FeatureIndex {
  readonly repo: FeatureRepo;
  private readonly lock = new KeyedLock();
  private readonly watchers = new Map<string, StateWatcher>();
  /** Repositories whose watcher is not ready yet, and the calls of ready() waiting for it. */
  private readonly readiness = new Map<string, { done: Promise<void>; resolve: () => void }>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly snapshots = new Map<string, Snapshot>();
  /** The latest reconcile asked for each repository, while it runs. */
  private readonly inflight = new Map<string, Promise<RepoIndex>>();
  /** A reconcile asked for each repository that has not begun its scan yet. */
  private readonly waiting = new Map<string, Promise<RepoIndex>>();
  /** Scans begun so far (a snapshot from a scan begun after a call began is as fresh as that call needs). */
  private scans = 0;
  /** Repositories whose watcher reported ready: until then a change may go unseen by it. */
  private readonly watchReady = new Set<string>();
  /** Repositories with an issue file changed since their last reconcile (their issue links are stale). */
  private readonly issuesChanged = new Set<string>();
  private readonly issueLinks = new IssueLinks();
  /** Repositories that stopped being projects: a scan that ends after that writes nothing. */
  private readonly forgotten = new Set<string>();
  /** Repositories whose rows from the last run were handed to the scanner (rememberStates). */
  private readonly remembered = new Set<string>();
  private disposed = false;

  constructor(private readonly o: FeatureIndexOptions) {
    this.repo = new FeatureRepo(o.db);
  }

  /** Scans one repository's state files and makes its rows equal to them (see reconcileRows). */
  reconcile(repoRoot: string): Promise<RepoIndex> {
    // One asked for while another still waits its turn joins that one: it reads the files after this call anyway.
    const queued = this.waiting.get(repoRoot);
    if (queued) return queued;
    const run: Promise<RepoIndex> = this.reconcileNow(repoRoot, () => {
      if (this.waiting.get(repoRoot) === run) this.waiting.delete(repoRoot);
    });
    this.waiting.set(repoRoot, run);
    this.inflight.set(repoRoot, run);
    const clear = () => {
      if (this.inflight.get(repoRoot) === run) this.inflight.delete(repoRoot);
      if (this.waiting.get(repoRoot) === run) this.waiting.delete(repoRoot);
    };
    run.then(clear, clear);
    return run;
  }

  private reconcileNow(repoRoot: string, started: () => void): Promise<RepoIndex> {
    // Serialized per repository: two overlapping scans must not write their rows in the wrong order.
    return this.lock.run(repoRoot, async () => {
      started();
      const seq = ++this.scans;
      // The first scan of this repository in this process: what the last run read is known by its
      // files' identities, so only the files changed since are parsed again.
      if (!this.snapshots.has(repoRoot)) this.remember(repoRoot);
      // Changes from here on are this scan's to see: the issue files are looked at below.
      this.issuesChanged.delete(repoRoot);
      // One repository scanned at a time: parsing is CPU work on this one thread either way, and in
      // turn the first repository asked for is done first (the board shows it while the rest follow).
      const scan = await this.lock.run(SCAN_TURN, () => scanFeatures(repoRoot));
      if (this.disposed) return { rows: this.repo.forRepo(repoRoot), problems: [], issues: new Map() };
      // The project left Flightdeck while this scan ran (or a watcher's late timer fired): its rows stay dropped.
      if (this.forgotten.has(repoRoot)) return { rows: [], problems: [], issues: new Map() };
      const previous = this.snapshots.get(repoRoot)?.index.rows ?? this.repo.forRepo(repoRoot);
      const { rows, repoProblems } = reconcileRows(repoRoot, previous, scan, (this.o.now ?? Date.now)());
      // The folders this scan found are watched before the issue files are looked at, so that a
      // change of one after that look is reported; a state file changed between its read and its
      // folder's watch is caught by its identity.
      const watched = this.watchFolders(repoRoot, scan.probes);
      const issues = await this.issuesOf(rows);
      const changed = !sameRows(previous, rows);
      // Files rewritten with the same content (or old enough now to have an identity) are written
      // down too, so that a restart trusts them; readers see nothing new (no onChanged).
      if (changed || !sameFiles(previous, rows)) this.repo.replaceRepo(repoRoot, rows);
      // The first reconcile has nothing to compare issues with: its rows decide (the board read them at start).
      const before = this.snapshots.get(repoRoot)?.index.issues;
      const issuesMoved = before !== undefined && !sameIssues(before, issues);
      const index = { rows, problems: repoProblems, issues };
      this.snapshots.set(repoRoot, { index, probes: scan.probes, seq });
      if (watched) this.markReady(repoRoot, watched);
      if (changed || issuesMoved) this.o.onChanged?.(repoRoot);
      return index;
    });
  }

  /**
   * Hands what the last run read of every indexed repository to the scanner (rememberStates), for
   * the hosts to call as they start: then any first scan (this index's, the resume of interrupted
   * runs, a feature's page) parses only the files changed since, whichever comes first.
   */
  rememberAll(): void {
    for (const root of this.repo.repoRoots()) this.remember(root);
  }

  private remember(repoRoot: string): void {
    if (this.remembered.has(repoRoot)) return;
    this.remembered.add(repoRoot);
    rememberStates(this.repo.forRepo(repoRoot).flatMap((r) => (r.stateFile && r.statePath && r.state ? [{ path: r.statePath, state: r.state, stateFile: r.stateFile }] : [])));
  }

  /** The issue record beside each feature's state file (IssueLinks reads only the records whose file changed). */
  private async issuesOf(rows: readonly FeatureRow[]): Promise<Map<string, FeatureIssueRef>> {
    const out = new Map<string, FeatureIssueRef>();
    await Promise.all(
      rows.map(async (r) => {
        const ref = await this.issueLinks.of(r.statePath);
        if (ref) out.set(r.slug, ref);
      }),
    );
    return out;
  }

  /**
   * The repository's index as its files are now: the last reconcile's, when every folder and
   * state file it read is still what it was (one stat each) and no watched change waits for its
   * debounce; else a reconcile. Issue links are trusted while the repository's watcher runs (it
   * sees their files); without one they are looked at again (an lstat each, read only if changed).
   */
  async current(repoRoot: string): Promise<RepoIndex> {
    const asked = this.scans;
    // A reconcile under way (the one at start, one a watched change began) is waited for, not
    // repeated: what it read is verified below like any other, unless it began after this call.
    const running = this.inflight.get(repoRoot);
    if (running) {
      await running.catch(() => {
        // It failed: the check below finds no snapshot (or a stale one) and reconciles again, reporting why.
      });
    }
    const snap = this.snapshots.get(repoRoot);
    if (snap && snap.seq > asked) return snap.index;
    const pending = this.timers.get(repoRoot);
    if (!snap || pending || this.issuesChanged.has(repoRoot) || !probesHold(snap.probes)) {
      if (pending) {
        clearTimeout(pending);
        this.timers.delete(repoRoot);
      }
      return this.reconcile(repoRoot);
    }
    return this.fromSnapshot(repoRoot, snap);
  }

  /**
   * What current() answers when it needs no reconcile and waits for none; null when it would
   * (the repository is being indexed, or a change waits to be): a list that must answer at once
   * says so instead of waiting.
   */
  async currentIfIndexed(repoRoot: string): Promise<RepoIndex | null> {
    if (this.inflight.has(repoRoot) || this.timers.has(repoRoot) || this.issuesChanged.has(repoRoot)) return null;
    const snap = this.snapshots.get(repoRoot);
    if (!snap || !probesHold(snap.probes)) return null;
    return this.fromSnapshot(repoRoot, snap);
  }

  /** A snapshot whose files still hold: its issue links trusted while the watcher runs, else looked at again. */
  private async fromSnapshot(repoRoot: string, snap: Snapshot): Promise<RepoIndex> {
    if (this.watchReady.has(repoRoot)) return snap.index;
    const issues = await this.issuesOf(snap.index.rows);
    // The same index while its links hold (a list made from it is given again, see FeatureService.projectFeatures).
    if (sameIssues(snap.index.issues, issues)) return snap.index;
    const index = { ...snap.index, issues };
    this.snapshots.set(repoRoot, { ...snap, index });
    return index;
  }

  /** The rows as last reconciled, without reading the files. */
  cached(repoRoot: string): RepoIndex {
    return this.snapshots.get(repoRoot)?.index ?? { rows: this.repo.forRepo(repoRoot), problems: [], issues: new Map() };
  }

  /** Forgets repositories that are no longer projects (their files are left alone). */
  forgetExcept(keep: readonly string[]): void {
    const wanted = new Set(keep);
    for (const root of wanted) this.forgotten.delete(root);
    // Those with rows, and those being watched (a first scan may still be running).
    for (const root of new Set([...this.repo.repoRoots(), ...this.watchers.keys()])) {
      if (wanted.has(root)) continue;
      this.forgotten.add(root);
      this.snapshots.delete(root);
      this.repo.replaceRepo(root, []);
    }
  }

  /**
   * Watches exactly these repositories' state files (starting and stopping watchers to match).
   * A change is reconciled after WATCH_DEBOUNCE_MS of quiet. A repository's folders are known
   * from its scans (StateWatcher): one with no reconcile yet is reconciled now, one already
   * indexed is watched at once and its issue links looked at once more (a change before the
   * watch would otherwise go unseen).
   */
  watch(repoRoots: readonly string[]): void {
    if (this.disposed) return;
    const wanted = new Set(repoRoots);
    for (const [root, w] of this.watchers) {
      if (wanted.has(root)) continue;
      this.watchers.delete(root);
      this.watchReady.delete(root);
      this.settleReadiness(root);
      w.close();
    }
    for (const root of wanted) {
      if (this.watchers.has(root)) continue;
      const w = new StateWatcher(root, {
        isWatched: (path) => isWatchedPath(root, path),
        onChange: (path) => {
          // A state or issue file, or a folder on the way to one (a worktree or a merged record added or removed).
          if (path === null || basename(path) === ISSUE_FILE) this.issuesChanged.add(root);
          this.schedule(root);
        },
        onError: (folder, e, failed) => {
          // The watcher may not see every change (too many watches): issue links are looked at on each list again.
          this.watchReady.delete(root);
          this.o.log.warn('feature state watcher failed', { repoRoot: root, folder, failedFolders: failed, error: e });
        },
      });
      this.watchers.set(root, w);
      let resolve!: () => void;
      const done = new Promise<void>((r) => (resolve = r));
      this.readiness.set(root, { done, resolve });
      const snap = this.snapshots.get(root);
      if (!snap) {
        // Its first reconcile (already under way, or this one) watches the folders it finds.
        (this.inflight.get(root) ?? this.reconcile(root))
          .catch((e: unknown) => {
            // Unreadable now: the next list reconciles again and reports why.
            this.o.log.warn('feature index reconcile failed', { repoRoot: root, error: e });
          })
          .finally(() => this.settleReadiness(root));
        continue;
      }
      this.watchFolders(root, snap.probes);
      this.issuesOf(snap.index.rows)
        .then((issues) => {
          const now = this.snapshots.get(root);
          if (now && !sameIssues(now.index.issues, issues)) {
            this.issuesChanged.add(root);
            this.schedule(root);
          }
          this.markReady(root, w);
        })
        .catch((e: unknown) => this.o.log.warn('feature issue links could not be read', { repoRoot: root, error: e }))
        .finally(() => this.settleReadiness(root));
    }
  }

  /**
   * Watches the folders a scan of `root` found (when the repository is watched) and, for the
   * watches just added, whether a state file the scan read changed before its folder was watched.
   * The watcher when it now covers every folder the scan found (markReady once the issue links
   * are looked at), else null.
   */
  private watchFolders(root: string, probes: ReadonlyMap<string, string | null>): StateWatcher | null {
    const w = this.watchers.get(root);
    if (!w) return null;
    const { added, complete } = w.sync(probes.keys());
    if (added > 0 && probesMoved(probes)) this.schedule(root);
    if (!complete) {
      this.watchReady.delete(root);
      this.settleReadiness(root);
      return null;
    }
    return w;
  }

  private markReady(root: string, w: StateWatcher): void {
    if (this.watchers.get(root) !== w) return;
    this.watchReady.add(root);
    this.settleReadiness(root);
  }

  /** ready() stops waiting for `root` (its watcher ready, or failed: then lists look at the issue links themselves). */
  private settleReadiness(root: string): void {
    this.readiness.get(root)?.resolve();
    this.readiness.delete(root);
  }

  private schedule(root: string): void {
    if (this.disposed) return;
    const t = this.timers.get(root);
    if (t) clearTimeout(t);
    this.timers.set(
      root,
      setTimeout(() => {
        this.timers.delete(root);
        this.reconcile(root).catch((e: unknown) => {
          // The repository vanished or the database closed: the next list reconciles again.
          this.o.log.warn('feature index reconcile failed', { repoRoot: root, error: e });
        });
      }, this.o.debounceMs ?? WATCH_DEBOUNCE_MS),
    );
  }

  /** Resolves once every watcher is ready (tests wait for it before changing files). */
  async ready(): Promise<void> {
    await Promise.all([...this.readiness.values()].map((r) => r.done));
  }

  /** The folders watched in a repository (tests check that a worktree's sources are not among them). */
  watchedFolders(repoRoot: string): string[] {
    return this.watchers.get(repoRoot)?.watched() ?? [];
  }

  dispose(): Promise<void> {
    this.disposed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    for (const r of this.readiness.values()) r.resolve();
    this.readiness.clear();
    this.watchReady.clear();
    this.snapshots.clear();
    return Promise.resolve();
  }
}
