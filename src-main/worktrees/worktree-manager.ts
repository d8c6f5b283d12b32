/**
 * The worktree manager: feature worktrees under `.trees/<slug>` on branch `<prefix>/<slug>`,
 * listed (including ones made outside Flightdeck), inspected, removed without ever losing work
 * (everything is archived under `refs/flightdeck/archive/<slug>/<timestamp>` first) and restored.
 *
 * Every git call goes through the hardened helper (argument arrays, allow-listed environment,
 * GIT_TERMINAL_PROMPT=0). Writes to one repository are serialized by a lock keyed by its real path.
 */
import { existsSync, lstatSync } from 'node:fs';
import { appendFile, lstat, mkdir, mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, sep } from 'node:path';
import { AppError, formatBytes, type WorktreeSetup } from '../../src-preload/contract';
import { git, GitError } from '../git/git';
import { readFileNoWait, readFileNoWaitAsync } from '../platform/read-no-wait';
import { appendFileInside, FileTooLargeError, mkdirInside, readFileInsideAsync, UnsafePathError } from '../platform/contained-path';
import { readHead, readRef } from '../git/ref-read';
import { locateRepository, type RepoLocation } from '../git/repo-location';
import { KeyedLock } from '../platform/keyed-lock';
import { span } from '../platform/spans';
import { ignoredOnlyHere } from './ignored-files';
import { topIgnoreLines } from './ignore-rules';
import type { EarlyPrepare, PrepareResult } from './worktree-prepare';
import {
  ARCHIVE_REF_PREFIX,
  archiveMessage,
  archiveSlugFor,
  archiveRef,
  archiveTimestamp,
  isLossless,
  lockFileInMessage,
  parseArchiveMessage,
  parseArchiveRef,
  parseStatusZ,
  parseWorktreeList,
  summarizeLoss,
  validateSlug,
  type ArchiveMeta,
  type CommitLine,
  type LossReport,
  type PorcelainWorktree,
} from './worktree-model';

/** The folder, relative to the main checkout, that holds Flightdeck's worktrees. */
export const TREES_DIR = '.trees';
/** A .gitignore larger than this is not read to append to (the line goes to info/exclude). */
const GITIGNORE_MAX_BYTES = 1024 * 1024;
/** The default `git.branch_prefix`. */
export const DEFAULT_BRANCH_PREFIX = 'feature';
/**
 * Retries of a git write that found a lock file (another git is writing): a user's commit or an
 * IDE's background git holds it for well under a second, so ~3 s of backoff covers them, while a
 * stale lock (a crashed git) is reported after that instead of hanging.
 */
const DEFAULT_LOCK_RETRY = { attempts: 6, firstDelayMs: 100 };
/**
 * Before removal the working tree is snapshotted twice this far apart: a process still writing
 * in it (an agent) changes the second snapshot, and removal is refused instead of deleting files
 * written after the archive was taken.
 */
const DEFAULT_SETTLE_MS = 250;
/** The archive commits are Flightdeck's own bookkeeping: a fixed identity works without user config. */
const ARCHIVE_IDENTITY = {
  GIT_AUTHOR_NAME: 'Flightdeck',
  GIT_AUTHOR_EMAIL: 'flightdeck@localhost',
  GIT_COMMITTER_NAME: 'Flightdeck',
  GIT_COMMITTER_EMAIL: 'flightdeck@localhost',
};

export interface WorktreeManagerOptions {
  branchPrefix?: string;
  /** A branch name, or `auto` (origin's HEAD, else main/master, else the current branch). */
  baseBranch?: string;
  now?: () => Date;
  lockRetry?: { attempts: number; firstDelayMs: number };
  settleMs?: number;
  /**
   * Runs after each create, outside the repository's lock: the project's `worktree.copy` /
   * `ports`, and the start of its `setup` (see worktree-prepare.ts), which runs on after create
   * returns (setup-service.ts). Its result is returned by create as `prepared`; its failure fails
   * create, with the worktree left in place.
   */
  prepare?: (root: string, entry: WorktreeEntry, early: Promise<EarlyPrepare> | null) => Promise<PrepareResult | null>;
  /**
   * Started by create just before `git worktree add` and handed to `prepare`: what preparing
   * reads from the main checkout alone (the config, the copy's check-ignore), read meanwhile.
   */
  prepareEarly?: (root: string) => Promise<EarlyPrepare>;
  /** Waits for a worktree's setup started by `prepare` to end (setup-service.ts); absent: setup never outlives create. */
  setupDone?: (path: string, signal?: AbortSignal) => Promise<WorktreeSetup | null>;
  /** Stops a worktree's running setup and waits for it to end: before the worktree is removed. */
  stopSetup?: (path: string) => Promise<void>;
}

export interface WorktreeEntry {
  /** The folder name: the slug for Flightdeck's own worktrees. */
  slug: string;
  path: string;
  branch: string | null;
  head: string | null;
  /** Under `.trees/` (made by Flightdeck or following its layout). */
  managed: boolean;
  /** Its folder vanished (deleted by hand); `remove` or `prune` reconciles it. */
  missing: boolean;
  locked: boolean;
  lockReason: string | null;
  detached: boolean;
}

export interface WorktreeDetails extends WorktreeEntry {
  base: string;
  changed: string[];
  untracked: string[];
  aheadOfBase: number;
  behindBase: number;
  upstream: string | null;
  aheadOfUpstream: number | null;
  behindUpstream: number | null;
  lastCommit: { sha: string; subject: string; date: string } | null;
  /** Bytes of the working tree (the `.git` link file excluded). */
  diskBytes: number;
}

export interface ArchiveEntry extends ArchiveMeta {
  ref: string;
  timestamp: string;
  commit: string;
}

export interface RemoveResult {
  slug: string;
  path: string;
  archive: ArchiveEntry;
  branchDeleted: boolean;
  /** What the archive holds that is nowhere else (empty when nothing was at risk). */
  saved: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Ignored files added to a snapshot per git call: well under any command-line length limit. */
const IGNORED_ADD_BATCH = 200;

/** Git's words for a file that shrank or failed while it hashed it (object-file.c, index_core: "short read while indexing", "read error while indexing"). */
const CHANGED_WHILE_READ = /(?:short read|read error) while indexing/;

export class WorktreeManager {
  private readonly lock = new KeyedLock();
  private readonly prefix: string;
  private readonly baseSetting: string;
  private readonly now: () => Date;
  private readonly retry: { attempts: number; firstDelayMs: number };
  private readonly settleMs: number;
  private readonly prepare: WorktreeManagerOptions['prepare'] | null;
  private readonly setupWait: WorktreeManagerOptions['setupDone'] | null;
  private readonly prepareEarly: WorktreeManagerOptions['prepareEarly'] | null;
  private readonly stopSetup: WorktreeManagerOptions['stopSetup'] | null;
  private disposed = false;

  constructor(o: WorktreeManagerOptions = {}) {
    this.prefix = o.branchPrefix ?? DEFAULT_BRANCH_PREFIX;
    this.baseSetting = o.baseBranch ?? 'auto';
    this.now = o.now ?? (() => new Date());
    this.retry = o.lockRetry ?? DEFAULT_LOCK_RETRY;
    this.settleMs = o.settleMs ?? DEFAULT_SETTLE_MS;
    this.prepare = o.prepare ?? null;
    this.setupWait = o.setupDone ?? null;
    this.prepareEarly = o.prepareEarly ?? null;
    this.stopSetup = o.stopSetup ?? null;
  }

  /**
   * Waits for the setup create started in the worktree at `path` to end: for callers that need
   * it finished (an agent's run, checks). Null when none ran; `signal` ends the wait only.
   */
  async setupDone(path: string, signal?: AbortSignal): Promise<WorktreeSetup | null> {
    return this.setupWait ? this.setupWait(path, signal) : null;
  }

  start(): void {
    this.disposed = false;
  }

  dispose(): void {
    this.disposed = true;
  }

  branchFor(slug: string, prefix: string = this.prefix): string {
    return `${prefix}/${slug}`;
  }

  /**
   * Runs `fn` holding the repository's lock, so other writes to the repository made through this
   * manager (create, remove, restore) wait for it: for callers that write to a repository with
   * their own git commands (a session's commit or merge).
   */
  async withRepoLock<T>(dir: string, fn: (root: string) => Promise<T>): Promise<T> {
    const root = await this.repoRoot(dir);
    return this.locked(root, () => fn(root));
  }

  /** Adds `.trees/` to the repository's `.gitignore` unless git already ignores it (project init); true when added. */
  async ignoreTrees(dir: string): Promise<boolean> {
    const root = await this.repoRoot(dir);
    return this.locked(root, () => this.ensureIgnored(root));
  }

  /** What removing the worktree now would lose (uncommitted and untracked files, unpushed commits), one line per kind; empty when nothing. */
  async lossReport(dir: string, slug: string, o: { base?: string } = {}): Promise<{ report: LossReport; lines: string[] }> {
    const root = await this.repoRoot(dir);
    const e = await this.find(root, slug);
    const base = o.base ?? (await this.detectBase(root));
    if (e.missing) return { report: { changed: [], untracked: [], unpushed: [] }, lines: [] };
    const report = await this.lossOf(root, e, base);
    return { report, lines: summarizeLoss(report, base) };
  }

  // ---- reading --------------------------------------------------------------------------------

  /** The main checkout's real path, from any folder inside the repository or one of its worktrees. */
  async repoRoot(dir: string): Promise<string> {
    if (!existsSync(dir)) throw new AppError('path_not_found', `The folder ${dir} does not exist.`, { path: dir });
    // Inside a work tree whose git data is `<root>/.git` (the usual case): read from the files, as
    // the app's git itself would be pinned there, without starting two gits.
    const loc = locateRepository(dir);
    if (loc && basename(loc.commonDir) === '.git') return realpath(dirname(loc.commonDir));
    let common: string;
    try {
      common = (await git(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: dir })).trim();
    } catch (e) {
      if (e instanceof GitError) throw new AppError('not_a_git_repo', `${dir} is not inside a git repository.`, { path: dir });
      throw e;
    }
    // A bare repository has no main checkout to put `.trees/` in.
    if ((await git(['rev-parse', '--is-bare-repository'], { cwd: dir })).trim() === 'true' && basename(common) !== '.git') {
      throw new AppError('invalid_input', `${dir} is a bare repository: worktrees are made from a repository with a checkout.`, { path: dir });
    }
    return realpath(basename(common) === '.git' ? dirname(common) : common);
  }

  /** `base_branch: auto`: origin's HEAD, else main, else master, else the current branch. */
  async detectBase(root: string): Promise<string> {
    if (this.baseSetting !== 'auto') return this.baseSetting;
    const originHead = await git(['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD'], { cwd: root }).then(
      (s) => s.trim().replace(/^origin\//, ''),
      () => null, // origin has no HEAD recorded (a remote added by hand): fall through to the names.
    );
    if (originHead) return originHead;
    for (const name of ['main', 'master']) {
      if (await this.refExists(root, `refs/heads/${name}`)) return name;
      if (await this.refExists(root, `refs/remotes/origin/${name}`)) return name;
    }
    const current = await git(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: root }).then(
      (s) => s.trim(),
      () => null, // detached HEAD: there is no current branch to use.
    );
    if (current) return current;
    throw new AppError('not_found', `Could not find a base branch in ${root}: there is no origin HEAD, no main or master, and HEAD is detached. Set git.base_branch.`);
  }

  async list(dir: string): Promise<WorktreeEntry[]> {
    const root = await this.repoRoot(dir);
    return this.entries(root);
  }

  private async entries(root: string): Promise<WorktreeEntry[]> {
    const raw = parseWorktreeList(await this.porcelainList(root));
    return this.entriesOf(root, raw, await realPaths(raw));
  }

  private entriesOf(root: string, raw: readonly PorcelainWorktree[], reals: readonly string[]): WorktreeEntry[] {
    const trees = join(root, TREES_DIR) + sep;
    const out: WorktreeEntry[] = [];
    raw.forEach((w, i) => {
      if (w.bare || reals[i] === root) return; // The main checkout is the project itself.
      out.push(this.entryOf(w, reals[i]!, trees));
    });
    return out;
  }

  private entryOf(w: PorcelainWorktree, path: string, trees: string): WorktreeEntry {
    return {
      slug: basename(path),
      path,
      branch: w.branch,
      head: w.head,
      managed: path.startsWith(trees),
      missing: w.prunable !== null || !existsSync(path),
      locked: w.locked !== null,
      lockReason: w.locked || null,
      detached: w.detached,
    };
  }

  private async find(root: string, slug: string): Promise<WorktreeEntry> {
    const all = await this.entries(root);
    const managed = all.find((e) => e.managed && e.slug === slug);
    const match = managed ?? all.filter((e) => e.slug === slug)[0];
    if (!match) throw new AppError('not_found', `There is no worktree "${slug}" in ${root} (see: worktree list).`, { slug });
    if (!managed && all.filter((e) => e.slug === slug).length > 1) {
      throw new AppError('conflict', `Several worktrees are named "${slug}": ${all.filter((e) => e.slug === slug).map((e) => e.path).join(', ')}. Remove the one you mean with git worktree remove.`);
    }
    return match;
  }

  async inspect(dir: string, slug: string): Promise<WorktreeDetails> {
    const root = await this.repoRoot(dir);
    const e = await this.find(root, slug);
    const base = await this.detectBase(root);
    if (e.missing) {
      return { ...e, base, changed: [], untracked: [], aheadOfBase: 0, behindBase: 0, upstream: null, aheadOfUpstream: null, behindUpstream: null, lastCommit: null, diskBytes: 0 };
    }
    const [status, upstream, last, diskBytes] = await Promise.all([
      this.status(e.path),
      this.upstreamOf(e.path),
      git(['log', '-1', '--format=%H%x00%s%x00%cI'], { cwd: e.path }).then(
        (s) => {
          const [sha, subject, date] = s.trim().split('\0');
          return sha ? { sha, subject: subject ?? '', date: date ?? '' } : null;
        },
        () => null, // An unborn branch has no commit yet.
      ),
      diskUse(e.path),
    ]);
    const baseRef = (await this.baseRef(root, base)) ?? base;
    const [behindBase, aheadOfBase] = await this.leftRight(e.path, baseRef);
    const [behindUp, aheadUp] = upstream ? await this.leftRight(e.path, upstream) : [null, null];
    return { ...e, base, ...status, aheadOfBase: aheadOfBase ?? 0, behindBase: behindBase ?? 0, upstream, aheadOfUpstream: aheadUp, behindUpstream: behindUp, lastCommit: last, diskBytes };
  }

  /** Archives of one slug (or all), newest first. */
  async archives(dir: string, slug?: string): Promise<ArchiveEntry[]> {
    const root = await this.repoRoot(dir);
    const pattern = slug ? `${ARCHIVE_REF_PREFIX}${validateSlug(slug)}/` : ARCHIVE_REF_PREFIX;
    const out = await git(['for-each-ref', '--format=%(refname)%00%(objectname)%00%(contents)%00%00', pattern], { cwd: root });
    const list: ArchiveEntry[] = [];
    for (const rec of out.split('\0\0')) {
      const [ref, commit, body] = rec.replace(/^\n/, '').split('\0');
      const name = ref ? parseArchiveRef(ref) : null;
      const meta = body ? parseArchiveMessage(body) : null;
      if (!name || !meta || !commit) continue;
      list.push({ ...meta, ref: ref!, commit, timestamp: name.timestamp });
    }
    return list.sort((a, b) => b.timestamp.localeCompare(a.timestamp));
  }

  // ---- writing --------------------------------------------------------------------------------

  /**
   * `branchPrefix` overrides the manager's (a project's own `git.branch_prefix`). `ignoreIn`:
   * where `.trees/` is ignored when it is not yet — the repository's `.gitignore` (default, said
   * in the result) or `.git/info/exclude`, which leaves the user's checkout untouched.
   */
  async create(dir: string, slug: string, o: { base?: string; branchPrefix?: string; ignoreIn?: 'gitignore' | 'exclude' } = {}): Promise<{ entry: WorktreeEntry; base: string; gitignoreUpdated: boolean; prepared: PrepareResult | null }> {
    validateSlug(slug);
    const root = await span('worktree: repo root', () => this.repoRoot(dir));
    let early: Promise<EarlyPrepare> | null = null;
    const created = await this.locked(root, async () => {
      const path = join(root, TREES_DIR, slug);
      const branch = this.branchFor(slug, o.branchPrefix);
      // Everything the checks need, read at once: the refs (branch, base candidates) and whether
      // .trees/ is ignored, from git's files where they are plain (no git started then).
      const [refs, ignored] = await span('worktree: checks', () => Promise.all([this.refsOf(root, [`refs/heads/${branch}`, ...baseCandidates(o.base ?? this.baseSetting)]), this.treesIgnored(root)]));
      const existing = refs.get(`refs/heads/${branch}`);
      const missingRegistered = new AppError('conflict', `The worktree "${slug}" is registered but its folder is missing: remove it first (worktree remove ${slug}).`, { slug });
      // The worktrees are listed only when one could be in the way: a branch that exists may be
      // checked out elsewhere, a folder that exists may be one. A new branch at a free path needs
      // no listing (no worktree holds a branch that does not exist; a registered worktree whose
      // folder vanished is refused by git itself, and said below as here).
      if (existing || existsSync(path)) {
        const listed = await span('worktree: list', () => this.porcelainList(root));
        const all = this.entriesOf(root, parseWorktreeList(listed), await realPaths(parseWorktreeList(listed)));
        const same = all.find((e) => e.path === path);
        if (same) throw same.missing ? missingRegistered : new AppError('conflict', `The worktree "${slug}" already exists at ${path}.`, { slug });
        if (existsSync(path)) throw new AppError('conflict', `${path} already exists and is not a worktree: move it away or choose another name.`, { path });
        const holder = parseWorktreeList(listed).find((w) => w.branch === branch);
        if (holder) throw checkedOutElsewhere(branch, holder.path);
      }
      const base = o.base ?? (await this.baseFrom(root, refs));
      treesFolder(root);
      const gitignoreUpdated = ignored ? false : await this.ensureIgnored(root, o.ignoreIn);
      // Read while git checks the worktree out: it needs only the main checkout.
      early = this.prepare && this.prepareEarly ? this.prepareEarly(root) : null;
      const add = async (args: string[]) => {
        try {
          await this.write(root, args);
        } catch (e) {
          if (e instanceof AppError && /is a missing but (already registered|locked) worktree/.test(e.message)) throw missingRegistered;
          throw e;
        }
      };
      if (existing) {
        // The branch survives from earlier work: check it out as it is rather than reset it.
        await this.whileHalfMade(() => add(['worktree', 'add', '-q', path, branch]));
      } else {
        const baseRef = [`refs/heads/${base}`, `refs/remotes/origin/${base}`].find((r) => refs.has(r)) ?? (await this.baseRef(root, base));
        if (!baseRef) throw new AppError('not_found', `The base branch "${base}" does not exist in ${root} (neither locally nor on origin).`, { base });
        await this.addNewBranch(root, path, branch, baseRef, add);
      }
      return { entry: await span('worktree: entry', () => this.createdEntry(root, path)), base, gitignoreUpdated };
    });
    return { ...created, prepared: this.prepare ? await span('worktree: prepare', () => this.prepare!(root, created.entry, early)) : null };
  }

  /**
   * Removes a worktree, never losing work: with changes, untracked files or commits found neither
   * on the base nor upstream it refuses unless `force`, naming them. Either way the branch tip and
   * a snapshot of the working tree (untracked files included, and git-ignored files found only in
   * this worktree, see ignored-files.ts) are archived first; Flightdeck's own branch
   * (`<prefix>/<slug>`) is then deleted, another branch is left alone. Ignored files too large to
   * archive are named and the removal refused — unless `force` (the user's own choice) and not
   * `keepIgnored` (a caller that must never lose them, such as feature clean).
   */
  async remove(dir: string, slug: string, o: { force?: boolean; keepIgnored?: boolean; branchPrefix?: string; base?: string } = {}): Promise<RemoveResult> {
    const root = await this.repoRoot(dir);
    return this.locked(root, async () => {
      const e = await this.find(root, slug);
      if (e.locked) {
        throw new AppError('conflict', `The worktree "${slug}" is locked${e.lockReason ? ` (${e.lockReason})` : ''}: unlock it first with: git worktree unlock ${e.path}`, { slug, path: e.path });
      }
      const base = o.base ?? (await this.detectBase(root));
      if (e.missing) return this.removeMissing(root, e, base, o.branchPrefix);
      // A setup still running there would go on in a deleted folder (or keep writing into it): stopped first.
      await this.stopSetup?.(e.path);
      await this.waitForIndex(e.path);
      const loss = await this.lossOf(root, e, base);
      const lines = summarizeLoss(loss, base);
      if (!isLossless(loss) && !o.force) {
        throw new AppError(
          'conflict',
          [`Removing the worktree "${slug}" would lose work:`, ...lines.map((l) => `  - ${l}`), `It is archived before removal either way: confirm the removal to go ahead (on the command line: --force); it can be restored later (worktree restore ${slug}).`].join('\n'),
          { slug, path: e.path, changed: loss.changed, untracked: loss.untracked, unpushed: loss.unpushed },
        );
      }
      const ignored = await ignoredOnlyHere(root, e.path);
      if (ignored.tooLarge && (!o.force || o.keepIgnored)) {
        const t = ignored.tooLarge;
        throw new AppError(
          'conflict',
          [
            `The worktree "${slug}" holds files git ignores that exist nowhere else, too many or too large to archive (over ${t.files} files, ${formatBytes(t.bytes)}):`,
            ...t.entries.slice(0, 10).map((f) => `  - ${f}`),
            ...(t.entries.length > 10 ? [`  … and ${t.entries.length - 10} more`] : []),
            `Move what you want to keep out of ${e.path} (or delete it), then remove the worktree again${o.keepIgnored ? '' : ' — or confirm to remove it with them (on the command line: --force); they are then lost'}.`,
          ].join('\n'),
          { slug, path: e.path, ignored: t.entries },
        );
      }
      if (ignored.files.length > 0) lines.push(`${ignored.files.length} git-ignored file(s) found only in this worktree (${ignored.files.slice(0, 5).join(', ')}${ignored.files.length > 5 ? ', …' : ''}), archived with it`);
      const head = e.head ?? (await git(['rev-parse', 'HEAD'], { cwd: e.path })).trim();
      const stillChanging = () => new AppError('conflict', `Files in the worktree "${slug}" are still changing (a process is writing in ${e.path}): stop it, then remove the worktree again.`, { slug, path: e.path });
      // Git reading a file while a process rewrites it says so ("short read while indexing"): the same finding as two snapshots that differ.
      const snapshot = () =>
        this.snapshotTree(e.path, ignored.files).catch((err: unknown) => {
          throw err instanceof GitError && CHANGED_WHILE_READ.test(err.stderr) ? stillChanging() : err;
        });
      const first = await snapshot();
      await sleep(this.settleMs);
      const second = await snapshot();
      if (first !== second) throw stillChanging();
      const archive = await this.archive(root, { slug: archiveSlugFor(e.slug), branch: e.branch, base, head }, second);
      // --force: the checks above (and the archive) replace git's own refusal of a dirty tree.
      await this.write(root, ['worktree', 'remove', '--force', e.path]);
      const branchDeleted = await this.deleteOwnBranch(root, slug, e.branch, o.branchPrefix);
      return { slug, path: e.path, archive, branchDeleted, saved: lines };
    });
  }

  /** A worktree whose folder vanished: its uncommitted work went with the folder; the branch tip is archived, then git forgets it. */
  private async removeMissing(root: string, e: WorktreeEntry, base: string, branchPrefix?: string): Promise<RemoveResult> {
    const head = e.head ?? '';
    if (!/^[0-9a-f]{40,64}$/.test(head)) throw new AppError('conflict', `The worktree "${e.slug}" has no commit to archive; remove it with: git worktree prune`);
    const tree = (await git(['rev-parse', `${head}^{tree}`], { cwd: root })).trim();
    const archive = await this.archive(root, { slug: archiveSlugFor(e.slug), branch: e.branch, base, head }, tree);
    await this.write(root, ['worktree', 'remove', '--force', e.path]);
    const branchDeleted = await this.deleteOwnBranch(root, e.slug, e.branch, branchPrefix);
    return { slug: e.slug, path: e.path, archive, branchDeleted, saved: [] };
  }

  /**
   * Worktrees whose folder vanished. Without `confirm` nothing changes (a dry run); with it each
   * one's branch tip is archived and git forgets it. Locked ones are left alone and reported.
   */
  async prune(dir: string, o: { confirm?: boolean } = {}): Promise<{ missing: WorktreeEntry[]; pruned: RemoveResult[]; skippedLocked: WorktreeEntry[] }> {
    const root = await this.repoRoot(dir);
    const missing = (await this.entries(root)).filter((e) => e.missing);
    const skippedLocked = missing.filter((e) => e.locked);
    if (!o.confirm) return { missing, pruned: [], skippedLocked };
    const pruned: RemoveResult[] = [];
    for (const e of missing.filter((m) => !m.locked)) {
      pruned.push(await this.locked(root, async () => this.removeMissing(root, e, await this.detectBase(root))));
    }
    return { missing, pruned, skippedLocked };
  }

  /**
   * Recreates the worktree and its branch from an archive (the newest of the slug unless `ref`),
   * with the archived uncommitted work back as uncommitted changes.
   */
  async restore(dir: string, slug: string, o: { ref?: string } = {}): Promise<{ entry: WorktreeEntry; archive: ArchiveEntry; reappliedDirty: boolean }> {
    validateSlug(slug);
    const root = await this.repoRoot(dir);
    return this.locked(root, async () => {
      const list = await this.archives(root, slug);
      const archive = o.ref ? list.find((a) => a.ref === o.ref) : list[0];
      if (!archive) throw new AppError('not_found', o.ref ? `There is no archive ${o.ref}.` : `There is no archive of the worktree "${slug}" in ${root}.`, { slug });
      const path = join(root, TREES_DIR, slug);
      if (existsSync(path)) throw new AppError('conflict', `${path} already exists: remove it before restoring "${slug}".`, { path });
      const branch = archive.branch ?? this.branchFor(slug);
      await this.refuseCheckedOut(root, branch);
      treesFolder(root);
      await this.ensureIgnored(root);
      const existing = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: root }).then(
        (s) => s.trim(),
        () => null, // The branch was deleted on removal (the usual case): it is recreated below.
      );
      if (existing && existing !== archive.head) {
        throw new AppError('conflict', `The branch ${branch} exists and points to ${existing.slice(0, 7)}, not the archived ${archive.head.slice(0, 7)}: rename or delete it before restoring.`, { branch });
      }
      const add = (args: string[]) => this.write(root, args);
      if (existing) await this.whileHalfMade(() => add(['worktree', 'add', '-q', path, branch]));
      else await this.addNewBranch(root, path, branch, archive.head, add);
      if (archive.dirty) {
        // Writes the snapshot's files into the working tree only: they come back as uncommitted
        // changes and untracked files, the index stays at the branch tip.
        await this.write(path, ['restore', `--source=${archive.commit}`, '--worktree', '--', ':/']);
      }
      const entry = (await this.entries(root)).find((e) => e.path === path);
      if (!entry) throw new AppError('internal', `git created no worktree at ${path}.`);
      return { entry, archive, reappliedDirty: archive.dirty };
    });
  }

  // ---- helpers --------------------------------------------------------------------------------

  /** The refs among `names` that exist, with their object id and (for a symbolic ref) its target: one git for all. */
  private async refsOf(root: string, names: readonly string[]): Promise<Map<string, { id: string; symref: string }>> {
    const wanted = new Set(names);
    const fromFiles = refsFromFiles(root, [...wanted]);
    if (fromFiles) return fromFiles;
    // for-each-ref matches a pattern as a prefix up to a slash too (refs/heads/a matches refs/heads/a/b): only exact names count.
    const out = await git(['for-each-ref', '--format=%(refname)%00%(objectname)%00%(symref)', '--', ...wanted], { cwd: root });
    const found = new Map<string, { id: string; symref: string }>();
    for (const line of out.split('\n')) {
      const [name, id, symref] = line.split('\0');
      if (name && id && wanted.has(name)) found.set(name, { id, symref: symref ?? '' });
    }
    return found;
  }

  /** `base_branch: auto` decided from refs read by refsOf (baseCandidates named them); detectBase's order. */
  private async baseFrom(root: string, refs: Map<string, { id: string; symref: string }>): Promise<string> {
    if (this.baseSetting !== 'auto') return this.baseSetting;
    // As `symbolic-ref --short` names it, without origin/ (detectBase's answer).
    const originHead = refs.get('refs/remotes/origin/HEAD')?.symref.replace(/^refs\/remotes\//, '').replace(/^origin\//, '');
    if (originHead) return originHead;
    for (const name of ['main', 'master']) if (refs.has(`refs/heads/${name}`) || refs.has(`refs/remotes/origin/${name}`)) return name;
    return this.detectBase(root);
  }

  /** Whether git ignores `.trees/` in the main checkout already. */
  private treesIgnored(root: string): Promise<boolean> {
    if (treesIgnoredByFiles(root)) return Promise.resolve(true);
    return git(['check-ignore', '-q', '--no-index', `${TREES_DIR}/x`], { cwd: root }).then(
      () => true,
      () => false, // Exit 1: not ignored.
    );
  }

  /** Prepares a worktree made outside create() (a best-of-N candidate's, ../features/run/candidates-service.ts) as create() prepares its own. */
  async prepareMade(root: string, path: string): Promise<PrepareResult | null> {
    return this.prepare ? this.prepare(root, await this.createdEntry(root, path), null) : null;
  }

  /**
   * The entry of a worktree `git worktree add` just made, from its files rather than another
   * listing: its .git file must lead (as git's records confirm) to this repository's git data.
   */
  private async createdEntry(root: string, path: string): Promise<WorktreeEntry> {
    const real = await realpath(path).catch(() => null); // Not there: git made nothing.
    const loc = real ? locateRepository(real) : null;
    const rootLoc = locateRepository(root);
    if (!real || !loc || loc.workTree !== real || !rootLoc || loc.commonDir !== rootLoc.commonDir) {
      const entry = (await this.entries(root)).find((e) => e.path === path);
      if (!entry) throw new AppError('internal', `git created no worktree at ${path}.`);
      return entry;
    }
    let head = readHead(loc);
    if (head === undefined) head = (await git(['rev-parse', '--verify', '--quiet', 'HEAD'], { cwd: real }).catch(() => '')).trim() || null; // Unborn: no commit.
    const branchLine = readHeadRef(loc);
    return { slug: basename(real), path: real, branch: branchLine, head, managed: real.startsWith(join(root, TREES_DIR) + sep), missing: false, locked: false, lockReason: null, detached: branchLine === null };
  }

  /** A branch can be checked out in one worktree only, the main checkout included. */
  private async refuseCheckedOut(root: string, branch: string): Promise<void> {
    const all = parseWorktreeList(await this.porcelainList(root));
    const holder = all.find((w) => w.branch === branch);
    if (holder) throw checkedOutElsewhere(branch, holder.path);
  }

  /**
   * `git worktree list`, retried while another process is creating a worktree: git reads every
   * `.git/worktrees/<name>/` and fails on one whose files are not written yet ("failed to read
   * …/commondir"). The in-process lock cannot prevent it (the CLI and the app are two processes).
   */
  private porcelainList(root: string): Promise<string> {
    return this.whileHalfMade(() => git(['worktree', 'list', '--porcelain', '-z'], { cwd: root }));
  }

  /**
   * `git worktree add -b` of a new branch at `startPoint`. git makes the branch first and then
   * reads the other worktrees: stopped there by another process's half-made one, it leaves the
   * branch made, and the next try checks that branch out instead of making it again.
   */
  private addNewBranch(root: string, path: string, branch: string, startPoint: string, add: (args: string[]) => Promise<unknown>): Promise<unknown> {
    let made = false;
    return this.whileHalfMade(() => {
      const loc = locateRepository(root);
      made ||= loc !== null && readRef(loc, `refs/heads/${branch}`) != null;
      // --no-track: the start point is where the branch starts, not where it is pushed.
      return add(made ? ['worktree', 'add', '-q', path, branch] : ['worktree', 'add', '-q', '--no-track', '-b', branch, path, startPoint]);
    });
  }

  /**
   * Runs a git command that reads every worktree again, with backoff, while it stops on another
   * process's half-made worktree (`.git/worktrees/<id>/` whose `commondir` is not written yet:
   * "failed to read …/commondir"); git dies there before it writes anything of its own.
   */
  private async whileHalfMade<T>(run: () => Promise<T>): Promise<T> {
    let delay = this.retry.firstDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (e) {
        if (!halfMadeWorktree(e) || attempt >= this.retry.attempts) throw e;
        await sleep(delay);
        delay *= 2;
      }
    }
  }

  private locked<T>(root: string, fn: () => Promise<T>): Promise<T> {
    if (this.disposed) return Promise.reject(new AppError('unavailable', 'The worktree manager has stopped.'));
    return this.lock.run(root, fn);
  }

  /** A git write, retried with backoff while another git holds a lock file, then reported. */
  private async write(cwd: string, args: string[], env?: Record<string, string>): Promise<string> {
    let delay = this.retry.firstDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await git(args, env ? { cwd, env } : { cwd });
      } catch (e) {
        const lockFile = e instanceof GitError ? lockFileInMessage(e.stderr) : null;
        if (!lockFile) throw toAppError(e);
        if (attempt >= this.retry.attempts) throw lockHeld(lockFile);
        await sleep(delay);
        delay *= 2;
      }
    }
  }

  /** A worktree's index.lock means a git command is running in it right now: wait for it (with backoff), then report. */
  private async waitForIndex(worktree: string): Promise<void> {
    const gitDir = (await git(['rev-parse', '--absolute-git-dir'], { cwd: worktree })).trim();
    const lockFile = join(gitDir, 'index.lock');
    let delay = this.retry.firstDelayMs;
    for (let attempt = 1; existsSync(lockFile); attempt++) {
      if (attempt >= this.retry.attempts) throw lockHeld(lockFile);
      await sleep(delay);
      delay *= 2;
    }
  }

  private async lossOf(root: string, e: WorktreeEntry, base: string): Promise<LossReport> {
    const { changed, untracked } = await this.status(e.path);
    const exclude: string[] = [];
    const baseRef = await this.baseRef(root, base);
    if (baseRef) exclude.push(baseRef);
    if (await this.refExists(root, `refs/remotes/origin/${base}`)) exclude.push(`refs/remotes/origin/${base}`);
    const upstream = await this.upstreamOf(e.path);
    if (upstream) exclude.push(upstream);
    const log = await git(['log', '--format=%H%x00%s%x00', 'HEAD', '--not', ...exclude, '--'], { cwd: e.path }).catch((err: unknown) => {
      // An unborn branch has no commits to lose.
      if (err instanceof GitError) return '';
      throw err;
    });
    const unpushed: CommitLine[] = [];
    const parts = log.split('\0');
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const sha = parts[i]!.trim();
      if (sha) unpushed.push({ sha, subject: parts[i + 1]! });
    }
    return { changed, untracked, unpushed };
  }

  private async status(path: string): Promise<{ changed: string[]; untracked: string[] }> {
    const entries = parseStatusZ(await git(['status', '--porcelain=v1', '-z', '--untracked-files=all'], { cwd: path }));
    return {
      changed: entries.filter((s) => s.code !== '??' && s.code !== '!!').map((s) => s.path),
      untracked: entries.filter((s) => s.code === '??').map((s) => s.path),
    };
  }

  /**
   * The tree of the working tree as it is, untracked files included (ignored ones only when listed
   * in `ignored`), via a temporary index.
   */
  private async snapshotTree(worktree: string, ignored: readonly string[] = []): Promise<string> {
    const tmp = await mkdtemp(join(tmpdir(), 'fd-snap-'));
    try {
      const env = { GIT_INDEX_FILE: join(tmp, 'index') };
      // Start from the branch tip so `add -A` only hashes what changed.
      await git(['read-tree', 'HEAD'], { cwd: worktree, env }).catch((e: unknown) => {
        // An unborn branch has no HEAD tree: the snapshot starts empty.
        if (!(e instanceof GitError)) throw e;
      });
      await git(['add', '-A', '--', ':/'], { cwd: worktree, env });
      // Literal, from the top: a name with glob characters or a leading colon is only itself.
      for (let i = 0; i < ignored.length; i += IGNORED_ADD_BATCH) {
        await git(['add', '--force', '--', ...ignored.slice(i, i + IGNORED_ADD_BATCH).map((f) => `:(literal,top)${f}`)], { cwd: worktree, env });
      }
      return (await git(['write-tree'], { cwd: worktree, env })).trim();
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }

  private async archive(root: string, m: Omit<ArchiveMeta, 'dirty'>, tree: string): Promise<ArchiveEntry> {
    const headTree = (await git(['rev-parse', `${m.head}^{tree}`], { cwd: root })).trim();
    const meta: ArchiveMeta = { ...m, dirty: tree !== headTree };
    const commit = (await git(['commit-tree', tree, '-p', m.head, '-m', archiveMessage(meta)], { cwd: root, env: ARCHIVE_IDENTITY })).trim();
    let timestamp = archiveTimestamp(this.now());
    // Two removals of one slug within a second: a suffix keeps both.
    for (let n = 2; await this.refExists(root, archiveRef(m.slug, timestamp)); n++) timestamp = `${archiveTimestamp(this.now())}-${n}`;
    const ref = archiveRef(m.slug, timestamp);
    // The empty old value: create only, never overwrite an archive.
    await this.write(root, ['update-ref', '-m', `flightdeck: archive ${m.slug}`, ref, commit, '']);
    return { ...meta, ref, commit, timestamp };
  }

  private async deleteOwnBranch(root: string, slug: string, branch: string | null, prefix?: string): Promise<boolean> {
    if (branch !== this.branchFor(slug, prefix)) return false;
    // -D: the tip is in the archive, so the branch being unmerged loses nothing.
    await this.write(root, ['branch', '-D', branch]);
    return true;
  }

  /**
   * Makes `.trees/` ignored when it is not: a line in the repository's `.gitignore` (`where`
   * 'gitignore') or in git's own `info/exclude` (`where` 'exclude'); true when it went where asked. A
   * `.gitignore` that is a symbolic link (→ ~/.bashrc) is never written through: the line goes to
   * `info/exclude` instead, which leaves the checkout as it is.
   */
  private async ensureIgnored(root: string, where: 'gitignore' | 'exclude' = 'gitignore'): Promise<boolean> {
    const ignored = await git(['check-ignore', '-q', '--no-index', `${TREES_DIR}/x`], { cwd: root }).then(
      () => true,
      () => false, // Exit 1: not ignored.
    );
    if (ignored) return false;
    // The line, after what the file already holds ('' when it is not there yet: it is created).
    const line = (text: string) => `${text && !text.endsWith('\n') ? '\n' : ''}${TREES_DIR}/\n`;
    const missing = (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return '';
      throw e;
    };
    if (where === 'gitignore') {
      try {
        // The repository's file, by the contained-path rules: a link, a FIFO or a huge file is not read.
        const text = await readFileInsideAsync(root, '.gitignore', { maxBytes: GITIGNORE_MAX_BYTES, what: 'the .gitignore' }).then((b) => b.toString('utf8'), missing);
        appendFileInside(root, '.gitignore', line(text));
        return true;
      } catch (e) {
        if (!(e instanceof UnsafePathError || e instanceof FileTooLargeError)) throw e;
      }
    }
    const exclude = (await git(['rev-parse', '--path-format=absolute', '--git-path', 'info/exclude'], { cwd: root })).trim();
    await mkdir(dirname(exclude), { recursive: true });
    // Not waiting on a FIFO planted in its place.
    await appendFile(exclude, line(await readFileNoWaitAsync(exclude, 'utf8').catch(missing)));
    // As asked (true), or in place of a linked .gitignore, which was not updated (false).
    return where === 'exclude';
  }


  private async upstreamOf(path: string): Promise<string | null> {
    return git(['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{u}'], { cwd: path }).then(
      (s) => s.trim() || null,
      () => null, // No upstream configured (a branch never pushed): nothing to compare with.
    );
  }

  private async leftRight(cwd: string, other: string): Promise<[number | null, number | null]> {
    const out = await git(['rev-list', '--left-right', '--count', `${other}...HEAD`], { cwd }).catch(() => null); // Unborn branch: no counts.
    if (!out) return [null, null];
    const [left, right] = out.trim().split(/\s+/).map(Number);
    return [left ?? null, right ?? null];
  }

  private async baseRef(root: string, base: string): Promise<string | null> {
    if (await this.refExists(root, `refs/heads/${base}`)) return `refs/heads/${base}`;
    if (await this.refExists(root, `refs/remotes/origin/${base}`)) return `refs/remotes/origin/${base}`;
    return null;
  }

  private refExists(root: string, ref: string): Promise<boolean> {
    return git(['show-ref', '--verify', '--quiet', ref], { cwd: root }).then(
      () => true,
      () => false,
    );
  }
}

/**
 * refsOf's answer read from git's files (ref-read.ts), or null when any of them needs git: a
 * symbolic ref is only ever a loose file (`ref: <target>`), whose target is read the same way.
 */
function refsFromFiles(root: string, names: readonly string[]): Map<string, { id: string; symref: string }> | null {
  let loc: RepoLocation | null;
  try {
    loc = locateRepository(root);
  } catch {
    // A .git git's records do not confirm: git refuses it with the reason.
    return null;
  }
  if (!loc) return null;
  const found = new Map<string, { id: string; symref: string }>();
  for (const name of names) {
    let symref = '';
    let target = name;
    if (name.endsWith('/HEAD')) {
      const text = (() => {
        try {
          const st = lstatSync(join(loc.commonDir, name));
          return st.isFile() && st.size <= 4096 ? readFileNoWait(join(loc.commonDir, name), 'utf8') : undefined;
        } catch (e) {
          return (e as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
        }
      })();
      if (text === undefined) return null;
      if (text === null) continue;
      const m = /^ref: (refs\/\S+)\s*$/.exec(text);
      if (!m) return null;
      symref = target = m[1]!;
    }
    const id = readRef(loc, target);
    if (id === undefined) return null;
    if (id !== null) found.set(name, { id, symref });
  }
  return found;
}

/**
 * Makes sure `<root>/.trees` is a real folder of the repository before git checks a worktree out
 * under it: a `.trees` committed (or made by an agent working in the checkout) as a symbolic link
 * (→ `~/.vim/pack`, anywhere) would put the new worktree, the files copied into it (`.env`) and
 * the agent's writable sandbox outside the repository. Created when missing.
 */
export function treesFolder(root: string): void {
  try {
    mkdirInside(root, join(root, TREES_DIR));
  } catch (e) {
    if (e instanceof UnsafePathError) {
      throw new AppError('invalid_input', `${join(root, TREES_DIR)} is not a folder of the repository (${e.message}): worktrees are made only in a real ${TREES_DIR} folder. Remove or rename it, then try again.`, { path: join(root, TREES_DIR) });
    }
    throw e;
  }
}

/**
 * True when the repository's own `.gitignore` or `info/exclude` names `.trees/` outright and no
 * rule of either negates anything (`!…`), so git would ignore `.trees/x` for sure: what project
 * init and create write. Anything else (no such line, a negation, `.trees` not a folder, a file
 * that is not a plain one) is git's to answer. Only ever says "ignored"; a wrong "no" costs a git.
 */
function treesIgnoredByFiles(root: string): boolean {
  let loc: RepoLocation | null;
  try {
    loc = locateRepository(root);
    const st = lstatSync(join(root, TREES_DIR), { throwIfNoEntry: false });
    if (st && !st.isDirectory()) return false;
  } catch {
    // A layout git's records do not confirm, or an unreadable folder: git decides.
    return false;
  }
  if (!loc) return false;
  return topIgnoreLines(root, loc.commonDir)?.some((line) => /^\/?\.trees\/?$/.test(line)) ?? false;
}

/** Each listed worktree's real path (a vanished folder has none: git's is kept). */
function realPaths(raw: readonly PorcelainWorktree[]): Promise<string[]> {
  return Promise.all(raw.map((w) => realpath(w.path).catch(() => w.path)));
}

/** The refs `base_branch` (a name, or `auto`) may be read from, for one for-each-ref. */
function baseCandidates(base: string): string[] {
  const names = base === 'auto' ? ['main', 'master'] : [base];
  return [...(base === 'auto' ? ['refs/remotes/origin/HEAD'] : []), ...names.flatMap((n) => [`refs/heads/${n}`, `refs/remotes/origin/${n}`])];
}

/** The branch HEAD names (`feature/x`), null when detached or unreadable. */
function readHeadRef(loc: RepoLocation): string | null {
  try {
    const st = lstatSync(join(loc.gitDir, 'HEAD'));
    if (!st.isFile() || st.size > 4096) return null;
    const m = /^ref: refs\/heads\/(\S+)\s*$/.exec(readFileNoWait(join(loc.gitDir, 'HEAD'), 'utf8'));
    return m ? m[1]! : null;
  } catch {
    // Gone or unreadable right after git wrote it: shown as detached rather than guessed.
    return null;
  }
}

function checkedOutElsewhere(branch: string, path: string): AppError {
  return new AppError('conflict', `The branch ${branch} is already checked out in ${path}; a branch can be checked out in one worktree only. Switch that worktree to another branch first.`, { branch, path });
}

function lockHeld(lockFile: string): AppError {
  return new AppError(
    'conflict',
    `Another git command is using the repository (${lockFile} exists) and did not finish in time. Wait for it and try again; if no git is running, the lock is stale: delete ${lockFile}.`,
    { lockFile },
  );
}

/** git stopped reading another process's worktree that is being created (its files not all written yet). */
function halfMadeWorktree(e: unknown): boolean {
  const text = e instanceof GitError ? `${e.stderr}\n${e.message}` : e instanceof Error ? e.message : '';
  return /failed to read .*worktrees[\\/][^\n]*(commondir|gitdir)/.test(text);
}

function toAppError(e: unknown): unknown {
  if (!(e instanceof GitError)) return e;
  // git prints progress ("Preparing worktree …") before the reason: show the reason.
  const reason = e.stderr.split('\n').find((l) => /^(fatal|error): /.test(l))?.replace(/^(fatal|error): /, '') ?? e.message;
  if (/is locked|locked working tree/i.test(reason)) return new AppError('conflict', `git refused: ${reason} (unlock it with git worktree unlock).`);
  if (/already checked out|is already used by worktree/i.test(reason)) return new AppError('conflict', `git refused: ${reason}`);
  return new AppError('internal', `git failed: ${reason}`);
}

/** Bytes used by a folder's files (symlinks counted as themselves, never followed). */
export async function diskUse(dir: string): Promise<number> {
  let total = 0;
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop()!;
    const names = await readdir(d).catch(() => [] as string[]); // Unreadable or vanished mid-walk: counted as empty.
    for (const n of names) {
      const p = join(d, n);
      if (d === dir && n === '.git') continue;
      const st = await lstat(p).catch(() => null); // Deleted between readdir and lstat.
      if (!st) continue;
      if (st.isDirectory()) stack.push(p);
      else total += st.size;
    }
  }
  return total;
}

/** A path relative to the repository for messages, `.trees/x` rather than the absolute path. */
export function shortPath(root: string, path: string): string {
  const r = relative(root, path);
  return r && !r.startsWith('..') ? r : path;
}
