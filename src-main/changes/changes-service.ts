/**
 * The changes view's side effects: which files a session changed, their diffs against HEAD,
 * reverting a file or one hunk, and committing chosen files. Git runs through the app's
 * hardened helper (argument arrays, no hooks, no external diff programs).
 *
 * Whatever a revert replaces is stored as a git blob first (like /undo), so nothing the user
 * had is ever lost: `git cat-file -p <blob>` brings it back. Operations on one root are
 * serialized so two reverts of the same file never interleave their read and write.
 */
import { KeyedLock } from '../platform/keyed-lock';
import { existsSync, statSync, unlinkSync } from 'node:fs';
import { AppError } from '../../src-preload/contract';
import type { ChangeHunk, ChangeScope, ChangeSet, FileChange, RevertResult } from '../../src-preload/contract/changes';
import type { EventHub } from '../bridge/event-hub';
import { git, gitBuffer, GitError } from '../git/git';
import { regularFileMode, writeFileInside } from '../platform/contained-path';
import { readFileNoWait } from '../platform/read-no-wait';
import type { Logger } from '../platform/logger';
import type { SessionRecord } from '../agents/store/session-repo';
import { resolveInRoot } from '../agents/tools/root-guard';
import { fileChange, isBinary, revertHunk } from './diff';

/**
 * The files of `root` that differ from a base revision, with their diffs: against HEAD by
 * default (the changes view), or against another revision — the merge base of a feature
 * branch and its base branch, for the branch's review. Uncommitted and untracked files count.
 * `paths` limits the list to those files (a session's own changes).
 */
export async function listChanges(root: string, o: { base?: string; paths?: readonly string[] } = {}): Promise<ChangeSet> {
  if (!existsSync(root)) return { root, gitRepo: false, branch: null, files: [], problem: `The folder ${root} does not exist any more.` };
  if (!(await isWorkTree(root))) {
    return { root, gitRepo: false, branch: null, files: [], problem: `${root} is not in a git repository, so there is nothing to compare the files with. Run "git init" there to track changes.` };
  }
  const base = o.base ?? (await baseRev(root));
  const candidates = o.paths ?? (await uncommittedPaths(root, base));
  const files: FileChange[] = [];
  let problem: string | null = null;
  for (const path of candidates) {
    if (files.length >= MAX_LISTED_FILES) {
      problem = `Only the first ${MAX_LISTED_FILES} changed files are listed.`;
      break;
    }
    let abs: string;
    try {
      abs = resolveInRoot(root, path).abs;
    } catch {
      // A recorded path that now leads outside the root (a symlink planted since) is not shown, never read.
      continue;
    }
    const change = fileChange(path, await headContent(root, base, path), currentContent(abs));
    if (change) files.push(change);
  }
  // New files git does not track yet (build output, notes, junk): a commit leaves them unticked unless chosen.
  // Unreadable listing: the files show as plain new files (ticked), as before; nothing is lost.
  if (files.some((f) => f.status === 'added')) {
    const untracked = new Set(nulList(await git(['ls-files', '--others', '--exclude-standard', '-z'], { cwd: root }).catch(() => '')));
    for (const f of files) if (f.status === 'added' && untracked.has(f.path)) f.untracked = true;
  }
  return { root, gitRepo: true, branch: await branchOf(root), files, problem };
}

/** Git's id of the empty tree: the base of a repository with no commit yet. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
/** Files one list shows at most: more is a generated tree nobody reviews file by file. */
export const MAX_LISTED_FILES = 2_000;

export interface ChangesServiceOptions {
  hub: EventHub;
  logger: Logger;
  /** The session's stored record (root and recorded file changes); throws not_found. */
  session: (sessionId: string) => SessionRecord;
  /** Whether a turn runs in the session now (its tools may be writing the files). */
  isRunning: (sessionId: string) => boolean;
}

export class ChangesService {
  private readonly locks = new KeyedLock();
  private disposed = false;

  constructor(private readonly o: ChangesServiceOptions) {}

  start(): void {}

  dispose(): void {
    this.disposed = true;
  }

  /** Runs `fn` after every earlier operation on the same root has finished. */
  private withLock<T>(root: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(root, fn);
  }

  private changed(sessionId: string): void {
    if (!this.disposed) this.o.hub.publish('changes.changed', { sessionId });
  }

  async list(sessionId: string, scope: ChangeScope): Promise<ChangeSet> {
    const s = this.o.session(sessionId);
    return listChanges(s.root, scope === 'session' ? { paths: sessionPaths(s) } : {});
  }

  async revertFile(sessionId: string, path: string): Promise<RevertResult> {
    const s = this.writable(sessionId);
    return this.withLock(s.root, async () => {
      const abs = this.target(s.root, path);
      const base = await headContent(s.root, await baseRev(s.root), path);
      const current = currentContent(abs);
      const saved = await saveBlob(s.root, abs, current);
      if (base === null) {
        if (current !== null) unlinkSync(abs);
      } else {
        // No folder on the way may have become a link since the path was checked (an agent's loop).
        writeFileInside(s.root, abs, base, regularFileMode(abs));
      }
      this.o.logger.info('reverted a file', { sessionId, path, saved });
      this.changed(sessionId);
      const what = base === null ? `Deleted ${path} (it is not in the last commit)` : `Put ${path} back as the last commit has it`;
      return { path, savedBlob: saved, message: saved ? `${what}. The content it replaced is saved as git blob ${saved.slice(0, 12)} (git cat-file -p ${saved}).` : `${what}.` };
    });
  }

  async revertHunk(sessionId: string, path: string, hunk: ChangeHunk): Promise<RevertResult> {
    const s = this.writable(sessionId);
    return this.withLock(s.root, async () => {
      const abs = this.target(s.root, path);
      const current = currentContent(abs);
      if (isBinary(current)) throw new AppError('invalid_input', `${path} is a binary file; revert the whole file instead.`);
      const next = revertHunk(current?.toString('utf8') ?? '', path, hunk);
      if (next === null) {
        throw new AppError(
          'conflict',
          `The change at ${hunkPlace(hunk)} of ${path} no longer applies: the file changed since the view was loaded. Refresh the changes to see the file as it is now.`,
          { path },
        );
      }
      const saved = await saveBlob(s.root, abs, current);
      writeFileInside(s.root, abs, next, regularFileMode(abs));
      this.o.logger.info('reverted a hunk', { sessionId, path, line: hunk.newStart, saved });
      this.changed(sessionId);
      const lines = hunk.lines.filter((l) => l.startsWith('+') || l.startsWith('-')).length;
      return {
        path,
        savedBlob: saved,
        message: `Took back ${lines} changed line${lines === 1 ? '' : 's'} at ${hunkPlace(hunk)} of ${path}.${saved ? ` The file as it was is saved as git blob ${saved.slice(0, 12)} (git cat-file -p ${saved}).` : ''}`,
      };
    });
  }

  async commit(sessionId: string, paths: readonly string[], message: string): Promise<{ commit: string; files: number; message: string }> {
    const s = this.writable(sessionId);
    return this.withLock(s.root, async () => {
      if (!(await isWorkTree(s.root))) throw new AppError('not_a_git_repo', `${s.root} is not in a git repository; there is nothing to commit to.`);
      const rels = [...new Set(paths.map((p) => this.rooted(s.root, p)))];
      // `:(literal)` so a file named like a glob ("*.ts") commits only itself.
      const specs = rels.map((r) => `:(literal)${r}`);
      try {
        await git(['add', '-A', '--', ...specs], { cwd: s.root });
        await git(['commit', '--no-verify', '-m', message, '--', ...specs], { cwd: s.root });
      } catch (e) {
        throw commitError(e);
      }
      const commit = (await git(['rev-parse', 'HEAD'], { cwd: s.root })).trim();
      this.o.logger.info('committed session changes', { sessionId, commit, files: rels.length });
      this.changed(sessionId);
      return { commit, files: rels.length, message: `Committed ${rels.length} file${rels.length === 1 ? '' : 's'} as ${commit.slice(0, 10)}.` };
    });
  }

  /** The session, when its files may be changed now. */
  private writable(sessionId: string): SessionRecord {
    const s = this.o.session(sessionId);
    if (this.o.isRunning(sessionId)) throw new AppError('conflict', 'A turn is running in this session; wait for it to end (or cancel it) before reverting or committing.');
    return s;
  }

  /** The root-relative path, refused (forbidden) when it leads outside the root. */
  private rooted(root: string, path: string): string {
    try {
      return resolveInRoot(root, path, { write: true }).rel;
    } catch (e) {
      throw new AppError('forbidden', e instanceof Error ? e.message : String(e));
    }
  }

  private target(root: string, path: string): string {
    try {
      const abs = resolveInRoot(root, path, { write: true }).abs;
      if (existsSync(abs) && !statSync(abs).isFile()) throw new AppError('invalid_input', `${path} is not a regular file.`);
      return abs;
    } catch (e) {
      if (e instanceof AppError) throw e;
      throw new AppError('forbidden', e instanceof Error ? e.message : String(e));
    }
  }
}

/** Where a hunk sits in the current file, in words: "line 4" or "lines 4–9". */
function hunkPlace(h: ChangeHunk): string {
  if (h.newLines <= 1) return `line ${Math.max(1, h.newStart)}`;
  return `lines ${h.newStart}–${h.newStart + h.newLines - 1}`;
}

async function isWorkTree(root: string): Promise<boolean> {
  try {
    return (await git(['rev-parse', '--is-inside-work-tree'], { cwd: root, timeoutMs: 10_000 })).trim() === 'true';
  } catch (e) {
    // No git, or a .git file Flightdeck will not follow (see git/repo-location): said as it is.
    if (e instanceof AppError && (e.code === 'git_not_installed' || e.code === 'forbidden')) throw e;
    // Not a repository (or inside .git): the view says so instead of failing.
    return false;
  }
}

/** HEAD, or the empty tree when the repository has no commit yet. */
async function baseRev(root: string): Promise<string> {
  try {
    await git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { cwd: root });
    return 'HEAD';
  } catch {
    // An unborn branch: every file is new against the empty tree.
    return EMPTY_TREE;
  }
}

async function branchOf(root: string): Promise<string | null> {
  try {
    const b = (await git(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: root })).trim();
    return b || null;
  } catch {
    // Detached HEAD: no branch to name.
    return null;
  }
}

/** The paths the session's write/patch tools recorded (the undo snapshots), in order of first change. */
export function sessionPaths(s: SessionRecord): string[] {
  const seen = new Set<string>();
  for (const snap of s.state.undo) for (const f of snap.files) seen.add(f.path);
  return [...seen];
}

function nulList(out: string): string[] {
  return out.split('\0').filter((p) => p !== '');
}

/** Every path under the root that differs from the base or is untracked (not ignored), relative to the root. */
async function uncommittedPaths(root: string, base: string): Promise<string[]> {
  const tracked = nulList(await git(['diff', '--name-only', '--relative', '--no-renames', '-z', base, '--'], { cwd: root }));
  const untracked = nulList(await git(['ls-files', '--others', '--exclude-standard', '-z'], { cwd: root }));
  return [...new Set([...tracked, ...untracked])].sort();
}

/** The file as the base has it; null when the base has no such file. */
async function headContent(root: string, base: string, path: string): Promise<Buffer | null> {
  if (base === EMPTY_TREE) return null;
  // `./` makes the path relative to the root (a subfolder of the repository), not to its top.
  const spec = `${base}:./${path}`;
  const listed = await git(['ls-tree', '-z', '--full-name', base, '--', `:(literal)${path}`], { cwd: root });
  if (!listed.trim()) return null;
  return gitBuffer(['cat-file', 'blob', spec], { cwd: root });
}

function currentContent(abs: string): Buffer | null {
  if (!existsSync(abs)) return null;
  if (!statSync(abs).isFile()) return null;
  return readFileNoWait(abs);
}

/** Stores the content about to be replaced as a git blob; null when there was no file. */
async function saveBlob(root: string, abs: string, current: Buffer | null): Promise<string | null> {
  if (current === null) return null;
  return (await git(['hash-object', '-w', '--no-filters', '--', abs], { cwd: root })).trim();
}

function commitError(e: unknown): unknown {
  if (!(e instanceof GitError)) return e;
  const text = `${e.message}\n${e.stderr}`;
  if (/Please tell me who you are|empty ident|user\.email/i.test(text)) {
    return new AppError('invalid_input', 'Git does not know who you are. Set your name and e-mail once: git config --global user.name "Your Name" and git config --global user.email you@example.com.');
  }
  if (/nothing (added )?to commit|no changes added/i.test(text)) return new AppError('conflict', 'Those files have nothing left to commit (already committed or reverted). Refresh the changes.');
  return new AppError('internal', `git could not commit: ${e.message}`);
}

