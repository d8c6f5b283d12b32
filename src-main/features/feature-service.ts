/**
 * list, status and clean of features (the board, the CLI's `feature list|status|clean`): reads
 * through the feature index (reconciled with the state files first, so what is shown is what the
 * files say), git details through the worktree manager, and clean's removals through it too, so a
 * removed worktree is always archived first and never loses work.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../src-preload/contract';
import type { FeatureIssueRef } from '../../src-preload/contract/issues';
import type { EventHub } from '../bridge/event-hub';
import { git } from '../git/git';
import type { Logger } from '../platform/logger';
import type { ProjectService } from '../projects/project-service';
import type { Database } from '../store/db';
import type { WorktreeManager } from '../worktrees/worktree-manager';
import { setupArtifacts } from '../worktrees/setup-artifacts';
import { findCleanCandidates, type CleanDecision, type CleanFeature } from './clean-candidates';
import { FeatureIndex, type RepoIndex } from './feature-index';
import type { FeatureRow, IndexProblem } from './feature-repo';
import { DefaultGhOps, DefaultGitOps, type GhOps, type GitOps, type PrInfo } from './git-ops';
import type { MergeMethod, MergeVerdict } from './merge-detect';
import { activeStatePath, identityNow, mergedStatePath, type FeatureSource } from './scanner';
import { writeState, type FeatureState, type FeatureStatus, type TokenCost } from './state';
import { configPath, FEATURES_DIR, loadConfig } from './config';
import { isFeatureError } from './errors';
import { toIndexProblem } from './feature-index';
import { validateSlug } from '../worktrees/worktree-model';

export interface FeatureSummary {
  projectId: string | null;
  repoRoot: string;
  slug: string;
  /** Null when no good copy of the state file was ever read (see `problem`). */
  source: FeatureSource | null;
  status: FeatureStatus | null;
  branch: string | null;
  baseBranch: string | null;
  worktreePath: string | null;
  turns: number;
  costUsd: number;
  /** The phase current_phase points at (running, next, or the failed one); null when all are done. */
  currentPhase: CurrentPhase | null;
  createdAt: string | null;
  updatedAt: string | null;
  statePath: string | null;
  /** The state file failed to parse: what is shown is its last good content. */
  problem: IndexProblem | null;
  /** The issue it was planned from (`issue.yml` beside its state file), in lists. */
  issue?: FeatureIssueRef | null;
}

export interface ProjectFeatures {
  projectId: string | null;
  name: string;
  repoRoot: string;
  features: FeatureSummary[];
  /** Problems of the feature folders themselves (a state file's problem is on its feature). */
  problems: IndexProblem[];
  /** The project could not be read at all (its folder moved, not a repository any more). */
  error: string | null;
  /** Listed with `indexedOnly` while the index cannot answer for it without a reconcile (or it failed): no features; ask for it alone. */
  indexing?: true;
}

export interface FeatureGitInfo {
  worktreePath: string;
  /** The worktree is registered but its folder is gone. */
  missing: boolean;
  branch: string | null;
  base: string;
  aheadOfBase: number;
  behindBase: number;
  upstream: string | null;
  aheadOfUpstream: number | null;
  behindUpstream: number | null;
  dirty: boolean;
  changed: string[];
  untracked: string[];
  lastCommit: { sha: string; subject: string; date: string } | null;
  diskBytes: number;
}

export interface FeatureDetail {
  feature: FeatureSummary;
  state: FeatureState | null;
  git: FeatureGitInfo | null;
  /** Why there is no git info for an active feature (its worktree is not registered with git). */
  gitProblem: string | null;
  tokens: TokenCost;
}

export type CleanReason = 'pr_merged' | 'pr_closed' | 'merged_locally';

export interface CleanCandidateView {
  slug: string;
  branch: string;
  reason: CleanReason;
  pr: PrInfo | null;
  method: MergeMethod | null;
  diskBytes: number;
}

export interface CleanReport {
  repoRoot: string;
  /** Judged by PR state through gh; false: by local merge detection. */
  usedGh: boolean;
  dryRun: boolean;
  candidates: CleanCandidateView[];
  /** Active features left alone, and why (PR open, not merged, a problem). */
  skipped: { slug: string; why: string }[];
  removed: { slug: string; archiveRef: string; branchDeleted: boolean; reclaimedBytes: number; historyPath: string | null }[];
  /** Candidates that could not be removed (work would be lost, a lock, git failed), with the reason. */
  failed: { slug: string; message: string }[];
  reclaimedBytes: number;
  /** What clean could not do but went on without (origin did not answer the fetch). */
  notes?: string[];
}

export interface FeatureServiceOptions {
  db: Database;
  log: Logger;
  hub?: EventHub;
  projects: Pick<ProjectService, 'list'>;
  worktrees: WorktreeManager;
  gh?: GhOps;
  git?: GitOps;
  now?: () => Date;
  debounceMs?: number;
}

/** Files a run writes next to the state and that the archive keeps: they do not make a worktree "dirty" for clean. */
function isRunLog(slug: string, file: string): boolean {
  return file.startsWith(`${FEATURES_DIR}/${slug}/logs/`);
}

/** Whether `file` is (or is inside) one of the worktree's recorded setup artifacts (`node_modules/`, `package-lock.json`). */
function isSetupArtifact(artifacts: readonly string[], file: string): boolean {
  return artifacts.some((a) => (a.endsWith('/') ? file === a || file.startsWith(a) : file === a));
}

/** Clean fetches first so a merge done on origin is seen; a remote that does not answer in this long is skipped. */
const CLEAN_FETCH_TIMEOUT_MS = 60_000;

/** `refs/heads/<base>`, else origin's copy of it, else null: which form of the base this repository has. */
async function baseRef(root: string, base: string): Promise<string | null> {
  for (const ref of [`refs/heads/${base}`, `refs/remotes/origin/${base}`]) {
    const ok = await git(['show-ref', '--verify', '--quiet', ref], { cwd: root }).then(
      () => true,
      () => false, // That form does not exist here: try the next.
    );
    if (ok) return ref;
  }
  return null;
}

export class FeatureService {
  readonly index: FeatureIndex;
  private readonly gh: GhOps;
  private readonly gitOps: GitOps;
  private offProjects: (() => void) | null = null;
  /** Each project folder's repository root, while that folder and the root's `.git` stay the same entries (see rootOf). */
  private readonly roots = new Map<string, { root: string; seal: string }>();
  /** Each repository's config problem, while its config file keeps its identity (see configProblem). */
  private readonly configProblems = new Map<string, { identity: string; problem: IndexProblem | null }>();
  /** Each repository's last list entry (per project id and name it was listed under) and what it was made from (see projectFeatures). */
  private readonly listed = new Map<string, { idx: RepoIndex; configProblem: IndexProblem | null; entry: Readonly<ProjectFeatures> }>();
  private disposed = false;
  private watching = false;

  constructor(private readonly o: FeatureServiceOptions) {
    this.gh = o.gh ?? new DefaultGhOps();
    this.gitOps = o.git ?? new DefaultGitOps();
    this.index = new FeatureIndex({
      db: o.db,
      log: o.log,
      ...(o.debounceMs !== undefined ? { debounceMs: o.debounceMs } : {}),
      onChanged: (repoRoot) => this.publishChanged(repoRoot),
    });
  }

  start(): void {}

  /**
   * For the long-lived hosts: reconciles every project now and then whenever its state files
   * change; follows the project list as projects are added and removed.
   */
  async startWatching(): Promise<void> {
    if (this.watching) return;
    this.watching = true;
    // At once, before the hosts' next step (resuming interrupted runs) scans the same files.
    try {
      this.index.rememberAll();
    } catch (e) {
      // The index could not be read: every state file is then parsed, as on a first start.
      this.o.log.warn('feature index rows could not be read', { error: e });
    }
    this.offProjects = this.o.hub?.subscribe((e) => {
      if (e.topic === 'projects.changed') {
        this.roots.clear();
        this.syncWatchers().catch((err: unknown) => {
          // The app is closing (the database is gone) or git failed: the next list reconciles anyway.
          if (!this.disposed) this.o.log.warn('feature index refresh failed', { error: err });
        });
      }
    }) ?? null;
    await this.syncWatchers();
  }

  /** startWatching for the long-lived hosts at start, without waiting (git on large repositories is slow). */
  startInBackground(): void {
    this.startWatching().catch((e: unknown) => {
      // The app may close before the first reconcile ends; the next list reconciles anyway.
      this.o.log.debug('feature index start did not finish', { error: e });
    });
  }

  private async syncWatchers(): Promise<void> {
    const roots = (await this.projectRoots()).filter((p) => p.root !== null).map((p) => p.root!);
    // Disposed while git answered: the database may be closed already.
    if (this.disposed) return;
    // A project removed from Flightdeck leaves no rows behind (its files are not touched).
    this.index.forgetExcept(roots);
    // Watched at once: a repository's watcher crawls nothing (it watches the folders its scans
    // find), and one not indexed yet is reconciled by it, in this order (one scan at a time).
    this.index.watch(roots);
    for (const root of roots) {
      // Each projects.changed comes here: a repository already indexed and unchanged costs its stats only.
      await this.index.current(root).catch((e: unknown) => {
        // One unreadable project must not stop the others; its list call reports the problem.
        this.o.log.warn('feature index reconcile failed', { repoRoot: root, error: e });
      });
    }
    if (this.disposed) return;
    // The project list may have changed while the scans ran: watch what it is now.
    this.index.watch((await this.projectRoots()).filter((p) => p.root !== null).map((p) => p.root!));
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.offProjects?.();
    this.offProjects = null;
    await this.index.dispose();
  }

  private publishChanged(repoRoot: string): void {
    if (!this.o.hub) return;
    const projectId = this.projectIdOf(repoRoot);
    this.o.hub.publish('features.changed', { projectId, repoRoot });
  }

  private realRoots = new Map<string, string>();

  private projectIdOf(repoRoot: string): string | null {
    for (const p of this.o.projects.list()) if (p.path === repoRoot || this.realRoots.get(p.path) === repoRoot) return p.id;
    return null;
  }

  private async projectRoots(): Promise<{ id: string; name: string; path: string; root: string | null; error: string | null }[]> {
    const out = [];
    for (const p of this.o.projects.list()) {
      try {
        const root = await this.rootOf(p.path);
        this.realRoots.set(p.path, root);
        out.push({ id: p.id, name: p.name, path: p.path, root, error: null });
      } catch (e) {
        out.push({ id: p.id, name: p.name, path: p.path, root: null, error: e instanceof Error ? e.message : String(e) });
      }
    }
    return out;
  }

  /**
   * A project folder's repository root, asked of git (two calls) only when the folder, its `.git`
   * entry or the root's `.git` entry is not the one seen last time: a list every few seconds of a
   * handful of projects would otherwise spend most of its time starting git.
   */
  private async rootOf(path: string): Promise<string> {
    const seal = (root: string) => {
      const entries = [path, join(path, '.git'), join(root, '.git')].map(entryOf);
      return entries.includes(null) ? null : entries.join(' ');
    };
    const kept = this.roots.get(path);
    if (kept && seal(kept.root) === kept.seal) return kept.root;
    const root = await this.o.worktrees.repoRoot(path);
    const sealed = seal(root);
    if (sealed !== null) this.roots.set(path, { root, seal: sealed });
    else this.roots.delete(path);
    return root;
  }

  /** The main checkout of `dir` (any folder of the repository or one of its worktrees). */
  repoRoot(dir: string): Promise<string> {
    return this.o.worktrees.repoRoot(dir);
  }

  // ---- list -----------------------------------------------------------------------------------

  /**
   * Features of one repository (`repo`), one project, or every registered project.
   *
   * `indexedOnly`: a project the index cannot answer for without a reconcile (its first, one
   * under way, or a change waiting for one) is answered at once as `indexing`, without features,
   * instead of waited for, and so is one that fails (asked alone, it reports why): the app's first
   * list shows every project already indexed while it asks for the others one by one.
   */
  async list(o: { repo?: string; projectId?: string; indexedOnly?: boolean } = {}): Promise<Array<Readonly<ProjectFeatures>>> {
    if (o.repo !== undefined) {
      const root = await this.repoRoot(o.repo);
      return [await this.projectFeatures(this.projectIdOf(root), nameOf(root), root, await this.index.current(root))];
    }
    const projects = (await this.projectRoots()).filter((p) => o.projectId === undefined || p.id === o.projectId);
    if (o.projectId !== undefined && projects.length === 0) throw new AppError('not_found', 'That project is no longer in Flightdeck.', { id: o.projectId });
    const out: Array<Readonly<ProjectFeatures>> = [];
    for (const p of projects) {
      if (!p.root) {
        out.push({ projectId: p.id, name: p.name, repoRoot: p.path, features: [], problems: [], error: p.error });
        continue;
      }
      if (o.indexedOnly) {
        // Not waited for: one being indexed, or one that fails (asked alone, it reports why), comes back marked.
        const ready = await this.index
          .currentIfIndexed(p.root)
          .then((idx) => (idx ? this.projectFeatures(p.id, p.name, p.root!, idx) : null))
          .catch(() => null);
        out.push(ready ?? { projectId: p.id, name: p.name, repoRoot: p.root, features: [], problems: [], error: null, indexing: true });
        continue;
      }
      out.push(await this.projectFeatures(p.id, p.name, p.root, await this.index.current(p.root)));
    }
    // Every project listed: the entries kept for repositories no longer among them go (a removed project, a renamed one's old name).
    if (o.projectId === undefined) {
      const kept = new Set(out.map((p) => listedKey(p.repoRoot, p.projectId, p.name)));
      for (const key of this.listed.keys()) if (!kept.has(key)) this.listed.delete(key);
    }
    return out;
  }

  /**
   * A repository's list entry. The same entry (frozen) while nothing it is made from changed: the
   * index's snapshot (a new one after any change to a state file or an issue link), the config's
   * problem (kept while the config file keeps its identity), the project's id and name. The list's
   * answer is then the same too, which the bridge checks against the contract once and the host
   * writes out once (bridge/reusable.ts): a board loaded again pays neither for a thousand features.
   */
  private async projectFeatures(projectId: string | null, name: string, root: string, idx: RepoIndex): Promise<Readonly<ProjectFeatures>> {
    const configProblem = await this.configProblem(root);
    const key = listedKey(root, projectId, name);
    const kept = this.listed.get(key);
    if (kept && kept.idx === idx && kept.configProblem === configProblem) return kept.entry;
    const features = Object.freeze(idx.rows.map((r) => Object.freeze({ ...summaryOf(projectId, r), issue: idx.issues.get(r.slug) ?? null })));
    const problems = Object.freeze(configProblem ? [configProblem, ...idx.problems] : [...idx.problems]);
    const entry: Readonly<ProjectFeatures> = Object.freeze({ projectId, name, repoRoot: root, features: features as FeatureSummary[], problems: problems as IndexProblem[], error: null });
    this.listed.set(key, { idx, configProblem, entry });
    return entry;
  }

  /**
   * The project's config problem, if it has a config that does not load (none: not initialized,
   * which is fine here). Loaded again only when the file's identity changed (or it has none yet).
   */
  private async configProblem(root: string): Promise<IndexProblem | null> {
    const path = configPath(root);
    const identity = identityNow(path);
    const kept = this.configProblems.get(root);
    if (identity !== null && kept?.identity === identity) return kept.problem;
    let problem: IndexProblem | null = null;
    if (existsSync(path)) {
      try {
        await loadConfig(root);
      } catch (e) {
        if (!isFeatureError(e)) throw e;
        problem = toIndexProblem(e);
      }
    }
    if (identity !== null) this.configProblems.set(root, { identity, problem });
    return problem;
  }

  // ---- status ---------------------------------------------------------------------------------

  async status(repo: string, slug: string): Promise<FeatureDetail> {
    // A slug names folders: `../x` must never reach a path (the bridge refuses it too).
    validateSlug(slug);
    const root = await this.repoRoot(repo);
    const idx = await this.index.current(root);
    const row = idx.rows.find((r) => r.slug === slug);
    if (!row) {
      throw new AppError('not_found', `There is no feature "${slug}" in ${root} (looked for ${activeStatePath(root, slug)} and ${mergedStatePath(root, slug)}).`, { slug });
    }
    const feature = summaryOf(this.projectIdOf(root), row);
    let gitInfo: FeatureGitInfo | null = null;
    let gitProblem: string | null = null;
    if (row.source === 'active') {
      try {
        const d = await this.o.worktrees.inspect(root, slug);
        gitInfo = {
          worktreePath: d.path,
          missing: d.missing,
          branch: d.branch,
          base: row.state?.git.base_branch ?? d.base,
          aheadOfBase: d.aheadOfBase,
          behindBase: d.behindBase,
          upstream: d.upstream,
          aheadOfUpstream: d.aheadOfUpstream,
          behindUpstream: d.behindUpstream,
          dirty: d.changed.length + d.untracked.length > 0,
          changed: d.changed,
          untracked: d.untracked,
          lastCommit: d.lastCommit,
          diskBytes: d.diskBytes,
        };
      } catch (e) {
        // The state file is there but git knows no such worktree (a copied folder): shown, not fatal.
        gitProblem = e instanceof Error ? e.message : String(e);
      }
    }
    const tokens = row.state?.total.cost ?? { input_tokens: 0, output_tokens: 0 };
    return { feature, state: row.state, git: gitInfo, gitProblem, tokens };
  }

  // ---- clean ----------------------------------------------------------------------------------

  /**
   * Which active features are done (PR merged or closed, or merged into the base locally) and,
   * unless `dryRun`, removes their worktrees (archived first) and branches. A merged feature's
   * state is kept on the main checkout at `.flightdeck/<slug>/state.yml`, so it stays listed.
   * `only` restricts removal to the slugs the user saw in the dry run.
   */
  async clean(repo: string, o: { dryRun: boolean; only?: readonly string[] }): Promise<CleanReport> {
    const root = await this.repoRoot(repo);
    // A config that does not load is being edited, or broken: clean acts on nothing until it loads.
    if (existsSync(configPath(root))) await loadConfig(root);
    const notes: string[] = [];
    const fetchProblem = await this.fetchOrigin(root);
    if (fetchProblem) notes.push(fetchProblem);
    const idx = await this.index.reconcile(root);
    const report: CleanReport = { repoRoot: root, usedGh: this.gh.available(), dryRun: o.dryRun, candidates: [], skipped: [], removed: [], failed: [], reclaimedBytes: 0, notes };
    const active: { row: FeatureRow; state: FeatureState }[] = [];
    for (const row of idx.rows) {
      // A broken state file is never acted on, merged or not: it is listed with its problem.
      if (row.problem) {
        report.skipped.push({ slug: row.slug, why: `its state file has a problem: ${row.problem.message}` });
        continue;
      }
      if (row.source !== 'active' || !row.state) continue;
      active.push({ row, state: row.state });
    }
    // Features are judged against their own base (they may have been planned on different ones).
    const byBase = new Map<string, typeof active>();
    for (const a of active) byBase.set(a.state.git.base_branch, [...(byBase.get(a.state.git.base_branch) ?? []), a]);
    const decisions = new Map<string, CleanDecision>();
    for (const [base, group] of byBase) {
      // A base that exists nowhere here is named, not left to fail as `git merge-base … (exit 128)`.
      if ((await baseRef(root, base)) === null) {
        const why = `its base branch "${base}" does not exist in this repository (neither locally nor as origin/${base}): create it (git fetch origin ${base}:${base}) or correct git.base_branch in .flightdeck/config.yml`;
        for (const a of group) decisions.set(a.row.slug, { candidate: false, why });
        continue;
      }
      const features: CleanFeature[] = group.map((a) => ({ slug: a.row.slug, branch: a.state.git.branch, ...(a.state.pr ? { prNumber: a.state.pr.number } : {}) }));
      const found = await findCleanCandidates(features, { repo: root, base, gh: this.gh, isMerged: (r, b, base2) => this.mergedLocally(r, b, base2) });
      for (const e of found.entries) decisions.set(e.feature.slug, e.decision);
    }
    const chosen: { row: FeatureRow; state: FeatureState; view: CleanCandidateView }[] = [];
    for (const a of active) {
      const d = decisions.get(a.row.slug)!;
      if (!d.candidate) {
        report.skipped.push({ slug: a.row.slug, why: d.why });
        continue;
      }
      const diskBytes = await this.o.worktrees.inspect(root, a.row.slug).then(
        (x) => x.diskBytes,
        () => 0, // Not a registered worktree (removed by hand): nothing on disk to reclaim.
      );
      const view: CleanCandidateView = { slug: a.row.slug, branch: a.state.git.branch, reason: d.reason, pr: 'pr' in d ? d.pr : null, method: 'method' in d ? d.method : null, diskBytes };
      report.candidates.push(view);
      if (!o.only || o.only.includes(a.row.slug)) chosen.push({ ...a, view });
    }
    if (o.dryRun) return report;
    for (const c of chosen) {
      try {
        const removed = await this.removeOne(root, c.row, c.state, c.view);
        report.removed.push(removed);
        report.reclaimedBytes += removed.reclaimedBytes;
      } catch (e) {
        report.failed.push({ slug: c.row.slug, message: e instanceof Error ? e.message : String(e) });
      }
    }
    await this.index.reconcile(root);
    return report;
  }

  /** `git fetch origin` with a deadline; a problem is returned as a note (clean goes on with what it has). */
  private async fetchOrigin(root: string): Promise<string | null> {
    const remotes = (await git(['remote'], { cwd: root }).catch(() => '')).split('\n').map((s) => s.trim());
    if (!remotes.includes('origin')) return null;
    try {
      await git(['fetch', '--quiet', '--no-tags', 'origin'], { cwd: root, timeoutMs: CLEAN_FETCH_TIMEOUT_MS });
      return null;
    } catch (e) {
      return `could not fetch origin (${e instanceof Error ? e.message.split('\n')[0] : String(e)}): merges done there since the last fetch are not seen`;
    }
  }

  /** Merged into the base, or into origin's copy of it (a merge done on the host, not pulled yet). */
  private async mergedLocally(repo: string, branch: string, base: string): Promise<MergeVerdict> {
    const localRef = await baseRef(repo, base);
    // Only origin has the base: its copy is the one to judge by.
    if (localRef !== null && localRef.startsWith('refs/remotes/')) return this.gitOps.isMerged(repo, branch, localRef);
    const local = await this.gitOps.isMerged(repo, branch, base);
    if (local.merged) return local;
    const remoteBase = `refs/remotes/origin/${base}`;
    const hasRemote = await git(['show-ref', '--verify', '--quiet', remoteBase], { cwd: repo }).then(
      () => true,
      () => false, // No origin copy of the base: the local verdict stands.
    );
    return hasRemote ? this.gitOps.isMerged(repo, branch, remoteBase) : local;
  }

  private async removeOne(root: string, row: FeatureRow, state: FeatureState, view: CleanCandidateView): Promise<CleanReport['removed'][number]> {
    const slug = row.slug;
    const details = await this.o.worktrees.inspect(root, slug);
    // Files the run or the worktree's setup wrote (run logs, node_modules, an untracked lockfile): archived with the rest and removed.
    let onlyOurs = false;
    if (!details.missing) {
      const artifacts = await setupArtifacts(details.path);
      const touched = [...details.changed, ...details.untracked];
      // New work after the merge (or the PR's rejection) is not clean's to throw away, archive or not.
      const dirty = [...details.changed, ...details.untracked.filter((f) => !isSetupArtifact(artifacts, f))].filter((f) => !isRunLog(slug, f));
      if (dirty.length > 0) {
        throw new AppError('conflict', `The worktree "${slug}" has uncommitted changes or untracked files (${dirty.slice(0, 10).join(', ')}${dirty.length > 10 ? ` and ${dirty.length - 10} more` : ''}); commit or remove them, or remove it yourself with: worktree remove ${slug} --force`, { slug, files: dirty });
      }
      onlyOurs = touched.length > 0;
    }
    const reclaimedBytes = details.diskBytes;
    let result;
    try {
      // The manager would refuse the untracked files clean recognised; its archive keeps them (restore brings them back).
      // keepIgnored: git-ignored files found only in the worktree are archived, or named and the removal refused; never lost.
      result = await this.o.worktrees.remove(root, slug, { base: state.git.base_branch, keepIgnored: true, ...(onlyOurs && (await this.tipIsSafe(root, state, view)) ? { force: true } : {}) });
    } catch (e) {
      // The manager refuses commits that are neither on the base nor upstream. The commits of a
      // squash or rebase merge are exactly that: they are safe when the branch is merged (by
      // content) or its tip is on a remote; anything else is reported with the manager's list.
      if (!(e instanceof AppError) || e.code !== 'conflict' || !Array.isArray(e.details?.unpushed) || (e.details?.changed as unknown[] | undefined)?.length || (e.details?.untracked as unknown[] | undefined)?.length) throw e;
      if (!(await this.tipIsSafe(root, state, view))) throw e;
      result = await this.o.worktrees.remove(root, slug, { force: true, keepIgnored: true, base: state.git.base_branch });
    }
    let branchDeleted = result.branchDeleted;
    if (!branchDeleted && (await this.gitOps.branchExists(root, state.git.branch))) {
      // Another branch prefix than the manager's: the tip is in the archive, so -D loses nothing.
      await this.gitOps.deleteBranch(root, state.git.branch, { force: true });
      branchDeleted = true;
    }
    const historyPath = view.reason === 'pr_closed' ? null : await this.keepHistory(root, slug, state);
    return { slug, archiveRef: result.archive.ref, branchDeleted, reclaimedBytes, historyPath };
  }

  private async tipIsSafe(root: string, state: FeatureState, view: CleanCandidateView): Promise<boolean> {
    if (view.reason === 'merged_locally') return true;
    if ((await this.mergedLocally(root, state.git.branch, state.git.base_branch).catch(() => ({ merged: false }))).merged) return true;
    // The PR's commits were pushed: the tip on any remote-tracking branch means nothing is only here.
    const remotes = await git(['branch', '-r', '--contains', `refs/heads/${state.git.branch}`, '--format=%(refname)'], { cwd: root }).catch(() => '');
    return remotes.trim() !== '';
  }

  /**
   * The merged feature's record on the main checkout, so list and status still show it. An
   * existing file (brought by the merge, or a hand-edited one) is left as it is.
   */
  private async keepHistory(root: string, slug: string, state: FeatureState): Promise<string | null> {
    const path = mergedStatePath(root, slug);
    if (existsSync(path)) return path;
    // The merge on origin brings the record itself: an untracked copy here would make the next `git pull` abort.
    const upstream = await baseRef(root, state.git.base_branch).then((r) => (r?.startsWith('refs/heads/') ? `refs/remotes/origin/${state.git.base_branch}` : r));
    const rel = `${FEATURES_DIR}/${slug}/state.yml`;
    for (const ref of [upstream, `refs/heads/${state.git.base_branch}`]) {
      if (ref === null) continue;
      const brought = await git(['cat-file', '-e', `${ref}:${rel}`], { cwd: root }).then(
        () => true,
        () => false, // Not in that commit (or no such ref): nothing to collide with.
      );
      if (brought) return null;
    }
    try {
      writeState(path, { ...state, status: 'merged', feature: { ...state.feature, updated_at: (this.o.now ?? (() => new Date()))().toISOString() } });
      return path;
    } catch (e) {
      // The worktree is gone and archived; losing only the listed record is reported, not fatal.
      this.o.log.warn('could not keep the merged feature record', { path, error: e });
      return null;
    }
  }
}

function nameOf(root: string): string {
  return root.split(/[\\/]/).filter(Boolean).pop() ?? root;
}

export interface CurrentPhase {
  name: string;
  index: number;
  count: number;
  status: FeatureState['phases'][number]['status'];
  startedAt: string | null;
}

/** The phase state.yml's current_phase points at, for the board; null once every phase is done. */
export function currentPhaseOf(s: FeatureState): CurrentPhase | null {
  const p = s.phases[s.current_phase];
  if (!p) return null;
  return { name: p.name, index: s.current_phase, count: s.phases.length, status: p.status, startedAt: p.started_at };
}

/** Which entry `path` is (device and inode), '' when there is none, null when it cannot be told: a folder replaced or a repository re-made is another entry. */
function entryOf(path: string): string | null {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st ? `${st.dev}:${st.ino}` : '';
  } catch {
    // Unreadable: nothing to compare with, so git is asked each time.
    return null;
  }
}

/** A kept list entry's key: the repository and the project it is listed under (see FeatureService.projectFeatures). */
function listedKey(root: string, projectId: string | null, name: string): string {
  return `${root}\0${projectId ?? ''}\0${name}`;
}

export function summaryOf(projectId: string | null, r: FeatureRow): FeatureSummary {
  const s = r.state;
  return {
    projectId,
    repoRoot: r.repoRoot,
    slug: r.slug,
    source: r.source,
    status: s?.status ?? null,
    branch: s?.git.branch ?? null,
    baseBranch: s?.git.base_branch ?? null,
    worktreePath: s?.git.worktree_path ?? null,
    turns: s?.total.turns ?? 0,
    costUsd: s?.total.cost_usd ?? 0,
    currentPhase: s ? currentPhaseOf(s) : null,
    createdAt: s?.feature.created_at ?? null,
    updatedAt: s?.feature.updated_at ?? null,
    statePath: r.statePath,
    problem: r.problem,
  };
}
