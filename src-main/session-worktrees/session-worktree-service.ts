/**
 * Sessions in worktrees: a new session works in its own worktree (`.trees/<slug>` on branch
 * `<branch_prefix>/<slug>` from the base, made by the WorktreeManager) or in the checkout; from
 * the session the user commits, merges into the base locally, pushes and opens a pull request,
 * or discards the worktree (archived first).
 *
 * Merging never leaves a checkout mid-merge: the merge is computed without any working tree
 * (`git merge-tree --write-tree`), refused when it conflicts, and the base moves only by a
 * fast-forward of the checkout that holds it (or a ref update with its old value checked when no
 * checkout holds it). Every write to a repository holds the manager's lock for that repository.
 */
import { worktreeSetupStatus } from '../worktrees/setup-service';
import { existsSync } from 'node:fs';
import { AppError, LISTED_FILES_MAX, type MergeStrategy, type PlacementProbe, type SandboxMode, type Session, type SessionPlacement, type SessionWorktreeRef, type SessionWorktreeStatus, type AgentMode } from '../../src-preload/contract';
import type { AgentService } from '../agents/agent-service';
import type { EventHub } from '../bridge/event-hub';
import { DEFAULT_TITLE } from '../agents/agent-service';
import { git, gitBufferWithExit, GitError } from '../git/git';
import type { Logger } from '../platform/logger';
import type { ProjectService } from '../projects/project-service';
import type { Database } from '../store/db';
import { configPath, defaultConfig, loadConfig, type FeaturesConfig } from '../features/config';
import { FeatureError } from '../features/errors';
import { DefaultGhOps, DefaultGitOps, type GhOps, type GitOps } from '../features/git-ops';
import { TREES_DIR, type RemoveResult, type WorktreeManager } from '../worktrees/worktree-manager';
import { parseStatusZ, parseWorktreeList, slugProblem, validateSlug } from '../worktrees/worktree-model';
import { compareUrl } from '../git/forge';
import { isMissingIdentity, listNames, mergeMessage, pullRequestText, squashMessage, suggestSessionSlug } from './session-worktree-model';
import { SessionWorktreeRepo } from './session-worktree-repo';
import { forkSession } from './session-fork';

/** The remote a session's branch is pushed to (the one `git clone` sets up). */
export const PUSH_REMOTE = 'origin';
/** Conflicted files named in a refused merge; the rest are counted. */
const LISTED_CONFLICTS = 20;

export interface SessionWorktreeServiceOptions {
  db: Database;
  agents: AgentService;
  hub: EventHub;
  projects: ProjectService;
  worktrees: WorktreeManager;
  logger: Logger;
  now?: () => Date;
}

export interface StartSessionInput {
  /** The project, or (command line) any folder of a repository or a plain folder. */
  projectId?: string;
  root?: string;
  placement: SessionPlacement;
  slug?: string;
  title?: string;
  mode?: AgentMode;
  profile?: string;
  sandbox?: SandboxMode;
}

interface Settings {
  branchPrefix: string;
  base: string | null;
  problem: string | null;
}

export class SessionWorktreeService {
  readonly repo: SessionWorktreeRepo;
  /** Git writes that are not worktree management (commit, push); plug another for tests. */
  gitOps: GitOps = new DefaultGitOps();
  /** The GitHub CLI; tests put a scripted one on PATH or plug another. */
  gh: GhOps = new DefaultGhOps();
  private readonly now: () => Date;
  private disposed = false;
  private offHub: (() => void) | null = null;

  constructor(private readonly o: SessionWorktreeServiceOptions) {
    this.repo = new SessionWorktreeRepo(o.db);
    this.now = o.now ?? (() => new Date());
  }

  start(): void {
    this.disposed = false;
    // Every session the agent service describes carries its worktree (sidebar, header).
    this.o.agents.worktreeOf = (sessionId) => this.repo.get(sessionId);
    // A session started in a session's worktree folder another way (`/new`, `chat --cwd .trees/x`) works in that worktree too.
    this.offHub = this.o.hub.subscribe((e) => {
      if (e.topic !== 'agents.sessions.changed') return;
      const s = (e.payload as { session: Session | null }).session;
      if (!s || s.worktree) return;
      const w = this.repo.findByPath(s.root);
      if (!w || w.archiveRef) return;
      this.repo.put(s.id, w);
      this.o.agents.republish(s.id);
    });
  }

  dispose(): void {
    this.disposed = true;
    this.offHub?.();
    this.offHub = null;
    this.o.agents.worktreeOf = null;
  }

  // ---- starting a session ---------------------------------------------------------------------

  /** Where a new session in `folder` can work, for the new-session dialog. */
  async probe(folder: string): Promise<PlacementProbe> {
    let root: string;
    try {
      root = await this.o.worktrees.repoRoot(folder);
    } catch (e) {
      if (e instanceof AppError && (e.code === 'not_a_git_repo' || e.code === 'invalid_input')) {
        return { kind: 'folder', root: folder, reason: `${folder} is not a git repository, so the session cannot get a worktree of its own: it works in the folder itself, and its changes cannot be reviewed or undone with git.` };
      }
      throw e;
    }
    const [settings, currentBranch, status, taken] = await Promise.all([this.settings(root), this.currentBranch(root), this.statusOf(root), this.takenNames(root)]);
    const dirty = [...status.changed, ...status.untracked];
    return {
      kind: 'git',
      root,
      currentBranch,
      base: settings.base,
      branchPrefix: settings.branchPrefix,
      suggestedSlug: suggestSessionSlug(this.now(), taken),
      dirtyCount: dirty.length,
      dirtyFiles: dirty.slice(0, LISTED_FILES_MAX),
      worktreeProblem: settings.problem,
    };
  }

  /**
   * Starts a session: in a new worktree (created first; removed again if the session cannot be
   * recorded, since it holds nothing yet) or in the checkout/folder itself.
   */
  async startSession(input: StartSessionInput): Promise<{ session: Session; worktree: SessionWorktreeRef | null }> {
    this.alive();
    const projectId = input.projectId ?? null;
    const folder = projectId ? this.o.projects.get(projectId).path : (input.root ?? '');
    const opts = { ...(input.title ? { title: input.title } : {}), ...(input.mode ? { mode: input.mode } : {}), ...(input.profile ? { profile: input.profile } : {}), ...(input.sandbox ? { sandbox: input.sandbox } : {}) };
    if (input.placement === 'checkout') {
      const session = projectId ? this.o.agents.createSession({ projectId, ...opts }) : this.o.agents.createSession({ root: folder, ...opts });
      return { session, worktree: null };
    }
    if (input.profile && !this.o.agents.profiles.get(input.profile)) throw new AppError('not_found', `There is no provider profile "${input.profile}".`);
    const root = await this.o.worktrees.repoRoot(folder).catch((e: unknown) => {
      if (e instanceof AppError && e.code === 'not_a_git_repo') throw new AppError('not_a_git_repo', `${folder} is not a git repository: a session can get its own worktree only in a git repository. Start it in the folder instead.`, { path: folder });
      throw e;
    });
    const settings = await this.settings(root);
    if (settings.problem || settings.base === null) throw new AppError('invalid_input', settings.problem ?? `No base branch was found in ${root}.`);
    const base = settings.base;
    let slug = input.slug ? validateSlug(input.slug) : suggestSessionSlug(this.now(), await this.takenNames(root));
    const create = () => this.o.worktrees.create(root, slug, { base, branchPrefix: settings.branchPrefix, ignoreIn: 'exclude' });
    let created: Awaited<ReturnType<typeof create>>;
    try {
      created = await create();
    } catch (e) {
      // Two sessions started in the same minute can race for one proposed name: the later one takes the next.
      if (input.slug || !(e instanceof AppError) || e.code !== 'conflict') throw e;
      slug = suggestSessionSlug(this.now(), await this.takenNames(root));
      created = await create();
    }
    const ref: Omit<SessionWorktreeRef, 'archiveRef'> = { slug, branch: created.entry.branch ?? `${settings.branchPrefix}/${slug}`, base: created.base, path: created.entry.path, repo: root };
    // The session belongs to the project whose checkout this is (listed under it), wherever it works.
    const owner = projectId ?? this.o.projects.list().find((p) => p.path === root)?.id ?? null;
    let session: Session;
    try {
      session = owner ? this.o.agents.createSession({ projectId: owner, worktreeRoot: ref.path, ...opts }) : this.o.agents.createSession({ root: ref.path, ...opts });
      this.repo.put(session.id, { ...ref, archiveRef: null });
    } catch (e) {
      // Nothing was written in the fresh worktree yet: removing it (archived anyway) loses nothing.
      await this.o.worktrees.remove(root, slug, { force: true, branchPrefix: settings.branchPrefix, base: ref.base }).catch((err: unknown) => this.o.logger.warn('could not remove the worktree of a session that failed to start', { slug, error: err }));
      throw e;
    }
    this.o.agents.republish(session.id);
    return { session: this.o.agents.getSession(session.id), worktree: { ...ref, archiveRef: null } };
  }

  /**
   * Forks a session at a chat turn (0 = before the first): a new session in a new worktree with
   * that turn's files and the conversation up to it; the original is not touched (session-fork.ts).
   */
  async fork(sessionId: string, turn: number): Promise<{ session: Session; turn: number; messages: number; files: string[] }> {
    this.alive();
    return forkSession(
      {
        agents: this.o.agents,
        startInWorktree: async (i) => {
          const r = await this.startSession({ ...(i.projectId ? { projectId: i.projectId } : { root: i.root }), placement: 'worktree', title: i.title, mode: i.mode, profile: i.profile, ...(i.sandbox ? { sandbox: i.sandbox } : {}) });
          if (!r.worktree) throw new AppError('internal', 'The fork got no worktree.');
          return { session: r.session, path: r.worktree.path };
        },
      },
      sessionId,
      turn,
    );
  }

  // ---- the session's worktree -----------------------------------------------------------------

  async status(sessionId: string): Promise<SessionWorktreeStatus | null> {
    const w = this.worktreeOrNull(sessionId);
    if (!w) return null;
    const remote = await this.remoteUrl(w.repo);
    const ghAvailable = this.gh.available();
    const empty = { aheadOfBase: 0, behindBase: 0, changed: 0, untracked: 0, files: [], upstream: null, aheadOfUpstream: null, behindUpstream: null, lastCommit: null, remote, ghAvailable };
    if (w.archiveRef) return { worktree: w, state: 'discarded', ...empty };
    if (!existsSync(w.path)) return { worktree: w, state: 'missing', ...empty };
    const [status, upstream, last] = await Promise.all([
      this.statusOf(w.path),
      git(['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{u}'], { cwd: w.path }).then(
        (s) => s.trim() || null,
        () => null, // Never pushed: no upstream to compare with.
      ),
      git(['log', '-1', '--format=%H%x00%s'], { cwd: w.path }).then(
        (s) => {
          const [sha, subject] = s.trim().split('\0');
          return sha ? { sha, subject: subject ?? '' } : null;
        },
        () => null, // An unborn branch has no commit.
      ),
    ]);
    const [behindBase, aheadOfBase] = await this.leftRight(w.path, await this.baseRef(w.repo, w.base));
    const [behindUpstream, aheadOfUpstream] = upstream ? await this.leftRight(w.path, upstream) : [null, null];
    const files = [...status.changed, ...status.untracked];
    return {
      worktree: w,
      state: 'active',
      setup: worktreeSetupStatus(w.path),
      aheadOfBase: aheadOfBase ?? 0,
      behindBase: behindBase ?? 0,
      changed: status.changed.length,
      untracked: status.untracked.length,
      files: files.slice(0, LISTED_FILES_MAX),
      upstream,
      aheadOfUpstream,
      behindUpstream,
      lastCommit: last,
      remote,
      ghAvailable,
    };
  }

  /** Commits every change in the worktree (untracked files included). */
  async commit(sessionId: string, message: string): Promise<{ sha: string; subject: string; files: number }> {
    const w = this.activeWorktree(sessionId);
    this.refuseWhileRunning(sessionId, 'commit');
    return this.o.worktrees.withRepoLock(w.repo, async () => {
      const { changed, untracked } = await this.statusOf(w.path);
      const files = changed.length + untracked.length;
      if (files === 0) throw new AppError('conflict', `Nothing to commit: the worktree ${w.slug} has no changes.`);
      // Into the recorded repository: a worktree whose .git file now leads elsewhere is refused.
      const committed = await this.gitOps.commit(w.path, message, undefined, { repository: w.repo }).catch((e: unknown) => {
        throw gitFailure(e, 'commit');
      });
      if (!committed) throw new AppError('conflict', `Nothing to commit: the worktree ${w.slug} has no changes.`);
      const [sha, subject] = (await git(['log', '-1', '--format=%H%x00%s'], { cwd: w.path })).trim().split('\0');
      return { sha: sha!, subject: subject ?? '', files };
    });
  }

  /**
   * Merges (or squashes) the session's branch into its base, locally. Refused with nothing
   * changed when: the worktree has uncommitted changes, there is nothing to merge, the base has
   * no local branch, the checkout holding the base is dirty or mid-merge, or the merge conflicts.
   */
  async merge(sessionId: string, strategy: MergeStrategy): Promise<{ commit: string; base: string; strategy: MergeStrategy; commits: number; updatedCheckout: string | null }> {
    const w = this.activeWorktree(sessionId);
    const session = this.o.agents.getSession(sessionId);
    return this.o.worktrees.withRepoLock(w.repo, async (root) => {
      const own = await this.statusOf(w.path);
      const pending = [...own.changed, ...own.untracked];
      if (pending.length) {
        throw new AppError('conflict', `The worktree ${w.slug} has ${pending.length} uncommitted ${pending.length === 1 ? 'file' : 'files'} (${listNames(pending, LISTED_CONFLICTS)}): commit them first, then merge.`, { files: pending });
      }
      const baseSha = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${w.base}^{commit}`], { cwd: root }).then(
        (s) => s.trim(),
        () => null, // No local branch of that name.
      );
      if (!baseSha) throw new AppError('not_found', `The base branch ${w.base} has no local branch in ${root} to merge into: create it (git branch ${w.base} origin/${w.base}), or push and open a pull request instead.`, { base: w.base });
      const branchSha = (await git(['rev-parse', '--verify', `refs/heads/${w.branch}^{commit}`], { cwd: root })).trim();
      const subjects = (await git(['log', '--reverse', '--format=%s', `${baseSha}..${branchSha}`], { cwd: root })).split('\n').filter((l) => l !== '');
      if (subjects.length === 0) throw new AppError('conflict', `Nothing to merge: ${w.branch} has no commits that are not on ${w.base}.`);

      const holder = parseWorktreeList(await git(['worktree', 'list', '--porcelain', '-z'], { cwd: root })).find((e) => e.branch === w.base && !e.bare) ?? null;
      if (holder) await this.refuseBusyCheckout(holder.path, w.base);

      const merged = await gitBufferWithExit(['merge-tree', '--write-tree', '--name-only', '--no-messages', baseSha, branchSha], { cwd: root });
      const lines = merged.stdout.toString('utf8').split('\n').filter((l) => l !== '');
      if (merged.exitCode === 1) {
        const conflicts = lines.slice(1);
        throw new AppError('conflict', `Merging ${w.branch} into ${w.base} would conflict in ${conflicts.length} ${conflicts.length === 1 ? 'file' : 'files'}: ${listNames(conflicts, LISTED_CONFLICTS)}. Nothing was changed. Bring ${w.base} into the worktree and resolve there (git merge ${w.base} in ${w.path}), or open a pull request.`, { conflicts });
      }
      if (merged.exitCode !== 0 || !lines[0]) throw new AppError('internal', `git merge-tree failed (exit ${merged.exitCode}); git 2.38 or newer is needed to merge from a session.`);
      const tree = lines[0].trim();
      const message = strategy === 'merge' ? mergeMessage(w.branch, w.base) : squashMessage(session.title !== DEFAULT_TITLE ? session.title : subjects.length === 1 ? subjects[0]! : `Squashed ${w.branch}`, w.branch, subjects);
      const parents = strategy === 'merge' ? ['-p', baseSha, '-p', branchSha] : ['-p', baseSha];
      const commit = (
        await git(['commit-tree', tree, ...parents, '-m', message], { cwd: root }).catch((e: unknown) => {
          throw gitFailure(e, 'merge');
        })
      ).trim();
      if (holder) {
        // The new commit's first parent is the base's tip: a fast-forward that cannot conflict in a
        // clean checkout. It updates the checkout's files and the branch together, or nothing.
        await git(['merge', '--ff-only', '--no-edit', commit], { cwd: holder.path }).catch((e: unknown) => {
          throw new AppError('conflict', `Could not bring the merge into ${holder.path}: ${reasonOf(e)}. Nothing was changed.`, { path: holder.path });
        });
      } else {
        // No checkout holds the base: move the branch, only if it still points where the merge started.
        await git(['update-ref', '-m', `flightdeck: ${strategy} ${w.branch}`, `refs/heads/${w.base}`, commit, baseSha], { cwd: root });
      }
      return { commit, base: w.base, strategy, commits: subjects.length, updatedCheckout: holder?.path ?? null };
    });
  }

  /** Pushes the branch to origin; opens (or finds) the pull request with gh, else gives the compare URL. */
  async push(sessionId: string): Promise<{ remote: string; branch: string; pr: { url: string; number: number | null; existing: boolean } | null; compareUrl: string | null; note: string | null }> {
    const w = this.activeWorktree(sessionId);
    const session = this.o.agents.getSession(sessionId);
    const remote = await this.remoteUrl(w.repo);
    if (!remote) throw new AppError('not_found', `This repository has no remote "${PUSH_REMOTE}", so there is nowhere to push ${w.branch}: add one (git remote add ${PUSH_REMOTE} URL), or merge into ${w.base} locally.`);
    await this.o.worktrees.withRepoLock(w.repo, async () => {
      await this.gitOps.push(w.path, PUSH_REMOTE, w.branch, { repository: w.repo }).catch((e: unknown) => {
        throw new AppError('unavailable', `Could not push ${w.branch} to ${PUSH_REMOTE} (${remote}): ${reasonOf(e)}`);
      });
      // Tracking origin's copy makes "ahead/behind upstream" meaningful, and pushed commits are no longer "at risk" on discard.
      await git(['branch', `--set-upstream-to=${PUSH_REMOTE}/${w.branch}`, w.branch], { cwd: w.path }).catch((e: unknown) => this.o.logger.warn('could not set the upstream of a pushed session branch', { branch: w.branch, error: e }));
    });
    const compare = compareUrl(remote, w.base, w.branch);
    const noPage = compare ? null : `${PUSH_REMOTE} (${remote}) has no known web page: open the pull request on the hosting service.`;
    if (!this.gh.available()) return { remote, branch: w.branch, pr: null, compareUrl: compare, note: `The GitHub CLI (gh) is not installed, so no pull request was opened${compare ? ': open it at the compare page' : ''}.${noPage ? ` ${noPage}` : ''}` };
    const existing = await this.gh.prList(w.path, w.branch);
    const open = existing.ok ? existing.value.find((p) => p.state === 'OPEN') : undefined;
    if (open) return { remote, branch: w.branch, pr: { url: open.url, number: open.number, existing: true }, compareUrl: compare, note: null };
    const subjects = (await git(['log', '--reverse', '--format=%s', `${await this.baseRef(w.repo, w.base)}..${w.branch}`], { cwd: w.path }).catch(() => '')).split('\n').filter((l) => l !== ''); // Without a base ref the title falls back to the session's.
    const text = pullRequestText(session.title, w.branch, subjects);
    const created = await this.gh.prCreate(w.path, { ...text, base: w.base, head: w.branch });
    if (!created.ok) return { remote, branch: w.branch, pr: null, compareUrl: compare, note: created.message };
    return { remote, branch: w.branch, pr: { url: created.value.url, number: created.value.number, existing: false }, compareUrl: compare, note: null };
  }

  /** What discarding would lose, one line per kind (empty: nothing beyond what the base or origin has). */
  async discardPreview(sessionId: string): Promise<{ lines: string[] }> {
    const w = this.activeWorktree(sessionId, { allowMissing: true });
    const { lines } = await this.o.worktrees.lossReport(w.repo, w.slug, { base: w.base });
    return { lines };
  }

  /** Archives the worktree under refs/flightdeck/archive/… and removes it with its branch. */
  async discard(sessionId: string, force: boolean): Promise<RemoveResult> {
    const w = this.activeWorktree(sessionId, { allowMissing: true });
    this.refuseWhileRunning(sessionId, 'discard its worktree');
    const r = await this.o.worktrees.remove(w.repo, w.slug, { force, branchPrefix: prefixOf(w), base: w.base }).catch(async (e: unknown) => {
      // Removed elsewhere (the project's worktree list, the CLI): it was archived there; the session takes that archive.
      if (!(e instanceof AppError) || e.code !== 'not_found' || existsSync(w.path)) throw e;
      const archive = (await this.o.worktrees.archives(w.repo, w.slug)).find((a) => a.branch === w.branch);
      if (!archive) throw new AppError('not_found', `The worktree ${w.slug} is gone and no archive of it was found (git for-each-ref refs/flightdeck/archive/${w.slug}/).`, { slug: w.slug });
      return { slug: w.slug, path: w.path, archive, branchDeleted: false, saved: [] } satisfies RemoveResult;
    });
    for (const id of this.repo.setArchiveRef(w, r.archive.ref)) this.o.agents.republish(id);
    return r;
  }

  /** Brings a discarded worktree back from its newest archive. */
  async restore(sessionId: string): Promise<{ path: string; branch: string | null; archiveRef: string; reappliedDirty: boolean }> {
    const w = this.worktreeOrNull(sessionId);
    if (!w) throw new AppError('not_found', 'This session does not work in a worktree.');
    if (!w.archiveRef) throw new AppError('conflict', `The worktree ${w.slug} was not discarded: there is nothing to restore.`);
    const r = await this.o.worktrees.restore(w.repo, w.slug, { ref: w.archiveRef });
    for (const id of this.repo.setArchiveRef(w, null)) this.o.agents.republish(id);
    return { path: r.entry.path, branch: r.entry.branch, archiveRef: r.archive.ref, reappliedDirty: r.reappliedDirty };
  }

  // ---- helpers --------------------------------------------------------------------------------

  private alive(): void {
    if (this.disposed) throw new AppError('unavailable', 'Flightdeck is shutting down.');
  }

  /** The session's own worktree, refused when it has none or it was discarded or is missing. */
  worktreeOf(sessionId: string): SessionWorktreeRef {
    return this.activeWorktree(sessionId);
  }

  private worktreeOrNull(sessionId: string): SessionWorktreeRef | null {
    this.o.agents.getSession(sessionId); // not_found for an unknown session
    return this.repo.get(sessionId);
  }

  private activeWorktree(sessionId: string, o: { allowMissing?: boolean } = {}): SessionWorktreeRef {
    this.alive();
    const w = this.worktreeOrNull(sessionId);
    if (!w) throw new AppError('conflict', 'This session works in the checkout, not in a worktree of its own: commit, merge and push there with git.');
    if (w.archiveRef) throw new AppError('conflict', `The worktree ${w.slug} was discarded (archived as ${w.archiveRef}); restore it first.`, { archiveRef: w.archiveRef });
    if (!o.allowMissing && !existsSync(w.path)) throw new AppError('path_not_found', `The worktree folder ${w.path} is missing (deleted outside Flightdeck). Discard the worktree to archive its branch and forget it.`, { path: w.path });
    return w;
  }

  private refuseWhileRunning(sessionId: string, what: string): void {
    if (this.o.agents.isRunning(sessionId)) throw new AppError('conflict', `The agent is working in this session: wait for its turn to end (or stop it) before you ${what}.`);
  }

  /** A checkout that holds the base must be clean and not in the middle of a merge, rebase or cherry-pick. */
  private async refuseBusyCheckout(path: string, base: string): Promise<void> {
    const tracked = parseStatusZ(await git(['status', '--porcelain=v1', '-z', '--untracked-files=no'], { cwd: path }));
    if (tracked.length > 0) {
      const names = tracked.map((t) => t.path);
      throw new AppError('conflict', `${path} has ${base} checked out with ${names.length} uncommitted ${names.length === 1 ? 'change' : 'changes'} (${listNames(names, LISTED_CONFLICTS)}): commit or stash them there first. Nothing was changed.`, { path, files: names });
    }
    for (const marker of ['MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD', 'rebase-merge', 'rebase-apply']) {
      const p = (await git(['rev-parse', '--path-format=absolute', '--git-path', marker], { cwd: path })).trim();
      if (existsSync(p)) throw new AppError('conflict', `${path} is in the middle of a ${marker.startsWith('rebase') ? 'rebase' : marker === 'MERGE_HEAD' ? 'merge' : 'cherry-pick or revert'}: finish or abort it first. Nothing was changed.`, { path });
    }
  }

  /** The project's `git.branch_prefix` and `git.base_branch` (`auto` resolved); the defaults without a config file. */
  private async settings(root: string): Promise<Settings> {
    let config: FeaturesConfig;
    if (!existsSync(configPath(root))) config = defaultConfig();
    else {
      try {
        config = await loadConfig(root);
      } catch (e) {
        const branchPrefix = defaultConfig().git.branch_prefix;
        if (e instanceof FeatureError) return { branchPrefix, base: null, problem: `The project config cannot be read, so the new worktree's branch and base are unknown: ${e.message}` };
        throw e;
      }
    }
    const branchPrefix = config.git.branch_prefix;
    const setting = config.git.base_branch;
    try {
      const base = setting === 'auto' ? await this.o.worktrees.detectBase(root) : setting;
      if (!(await this.baseRefOrNull(root, base))) return { branchPrefix, base: null, problem: `The base branch "${base}" does not exist in ${root} (neither locally nor on ${PUSH_REMOTE}). Set git.base_branch in .flightdeck/config.yml.` };
      return { branchPrefix, base, problem: null };
    } catch (e) {
      if (e instanceof AppError) return { branchPrefix, base: null, problem: e.message };
      throw e;
    }
  }

  /** Names a new session worktree must not take: existing worktrees, folders under .trees/, branches and archives. */
  private async takenNames(root: string): Promise<(slug: string) => boolean> {
    const [list, refs] = await Promise.all([this.o.worktrees.list(root), git(['for-each-ref', '--format=%(refname)', 'refs/heads/', 'refs/flightdeck/archive/'], { cwd: root })]);
    const names = new Set(list.map((e) => e.slug));
    for (const ref of refs.split('\n')) {
      const m = /^refs\/(?:heads\/(?:.*\/)?|flightdeck\/archive\/)([^/]+)(?:\/[^/]+)?$/.exec(ref.trim());
      if (m) names.add(m[1]!);
    }
    return (slug) => names.has(slug) || existsSync(`${root}/${TREES_DIR}/${slug}`) || slugProblem(slug) !== null;
  }

  private async statusOf(path: string): Promise<{ changed: string[]; untracked: string[] }> {
    const entries = parseStatusZ(await git(['status', '--porcelain=v1', '-z', '--untracked-files=all'], { cwd: path }));
    return { changed: entries.filter((s) => s.code !== '??' && s.code !== '!!').map((s) => s.path), untracked: entries.filter((s) => s.code === '??').map((s) => s.path) };
  }

  private currentBranch(root: string): Promise<string | null> {
    return git(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: root }).then(
      (s) => s.trim() || null,
      () => null, // Detached HEAD: no branch.
    );
  }

  private remoteUrl(root: string): Promise<string | null> {
    return git(['remote', 'get-url', PUSH_REMOTE], { cwd: root }).then(
      (s) => s.trim() || null,
      () => null, // No such remote.
    );
  }

  private async baseRefOrNull(root: string, base: string): Promise<string | null> {
    for (const ref of [`refs/heads/${base}`, `refs/remotes/${PUSH_REMOTE}/${base}`]) {
      const ok = await git(['show-ref', '--verify', '--quiet', ref], { cwd: root }).then(
        () => true,
        () => false, // Not there: try the next.
      );
      if (ok) return ref;
    }
    return null;
  }

  private async baseRef(root: string, base: string): Promise<string> {
    return (await this.baseRefOrNull(root, base)) ?? base;
  }

  private async leftRight(cwd: string, other: string): Promise<[number | null, number | null]> {
    const out = await git(['rev-list', '--left-right', '--count', `${other}...HEAD`], { cwd }).catch(() => null); // A base that vanished or an unborn branch: no counts.
    if (!out) return [null, null];
    const [left, right] = out.trim().split(/\s+/).map(Number);
    return [left ?? null, right ?? null];
  }
}

/** The prefix a session branch was made with (`feature` of `feature/session-…`). */
function prefixOf(w: SessionWorktreeRef): string | undefined {
  return w.branch.endsWith(`/${w.slug}`) ? w.branch.slice(0, -(w.slug.length + 1)) : undefined;
}

function reasonOf(e: unknown): string {
  if (e instanceof GitError) return e.stderr.split('\n').find((l) => /^(fatal|error): /.test(l))?.replace(/^(fatal|error): /, '') ?? e.message;
  return e instanceof Error ? e.message : String(e);
}

function gitFailure(e: unknown, what: 'commit' | 'merge'): unknown {
  if (e instanceof GitError && isMissingIdentity(e.stderr)) {
    return new AppError('invalid_input', `git needs your name and email to ${what}: run git config --global user.name "Your Name" and git config --global user.email you@example.com, then try again.`);
  }
  if (e instanceof GitError) return new AppError('conflict', `git could not ${what}: ${reasonOf(e)}`);
  return e;
}
