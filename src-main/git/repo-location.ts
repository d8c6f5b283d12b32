/**
 * Where the app's own git looks: the git dir and work tree of a folder, decided by Flightdeck
 * rather than by a `.git` file an agent or a container may have rewritten. Git itself follows a
 * worktree's `gitdir:` line wherever it points (a folder the agent made, with its own config and
 * filters); here that line is believed only when git's own record in the common dir agrees:
 * the admin dir `<common>/worktrees/<name>` says (in its `gitdir` file) that this very work tree
 * is its worktree, its `commondir` names that common dir, and neither lies inside the work tree
 * (the part an agent writes). The app's git then runs with GIT_DIR and GIT_WORK_TREE set, so no
 * `.git` file and no `core.worktree` changes where it looks.
 */
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { AppError } from '../../src-preload/contract';
import { readFileNoWait } from '../platform/read-no-wait';

export interface RepoLocation {
  /** The git dir: `<top>/.git`, or a linked worktree's admin dir `<common>/worktrees/<name>`. */
  gitDir: string;
  /** The common dir (objects, refs, config): the git dir itself unless a linked worktree's. */
  commonDir: string;
  workTree: string;
}

function inside(parent: string, p: string): boolean {
  return p === parent || p.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** A git directory by its shape (what git's own discovery checks): HEAD, objects/, refs/. */
function looksLikeGitDir(p: string): boolean {
  try {
    return statSync(join(p, 'HEAD')).isFile() && isDir(join(p, 'objects')) && isDir(join(p, 'refs'));
  } catch {
    return false;
  }
}

function readLine(p: string): string | null {
  try {
    const st = lstatSync(p);
    // A tiny regular file: git writes one line; anything else is not git's record. Read without
    // waiting: a FIFO put there between the lstat and the read would hold the main thread.
    if (!st.isFile() || st.size > 8192) return null;
    return readFileNoWait(p, 'utf8').split('\n')[0]!.trim();
  } catch {
    return null;
  }
}

export function unsafeRepository(workTree: string, why: string): AppError {
  return new AppError(
    'forbidden',
    `Flightdeck will not run git in ${workTree}: ${why}. Something rewrote the worktree's .git file (an agent or a container can write the work tree). ` +
      `Check ${join(workTree, '.git')}; \`git worktree repair\` run from the main checkout restores it.`,
    { path: workTree, reason: 'unsafe_git_dir' },
  );
}

/**
 * The git dir and work tree of `cwd`, or null when git should find them itself (not inside a
 * work tree: a bare repository, a folder inside a git dir, no repository at all — git's own
 * answer then stands). Throws `forbidden` when the `.git` file points somewhere git's records
 * do not confirm.
 */
export function locateRepository(cwd: string): RepoLocation | null {
  const start = realOrNull(cwd);
  if (!start) return null;
  for (let dir = start; ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    let st;
    try {
      st = lstatSync(dotGit);
    } catch {
      st = null;
    }
    if (st?.isDirectory()) {
      if (!looksLikeGitDir(dotGit)) return null;
      // A main checkout's .git never names a common dir; a folder that does stands in for a
      // worktree's .git file (written in the work tree, the agent's to write) and would choose
      // the branch the host commits to.
      if (commonOf(dotGit) !== null) throw unsafeRepository(dir, 'its .git folder names another repository’s git data (commondir), as only a worktree’s admin folder does');
      return { gitDir: dotGit, commonDir: dotGit, workTree: dir };
    }
    if (st?.isSymbolicLink()) throw unsafeRepository(dir, '.git is a symbolic link, so where git looks is not decided by this repository');
    if (st?.isFile()) return fromGitFile(dir, dotGit);
    // A bare repository or a git dir itself: git's discovery stops here too.
    if (looksLikeGitDir(dir)) return null;
    if (dirname(dir) === dir) return null;
  }
}

/** A main git dir has no `commondir`; a linked worktree's admin dir names its common dir there. */
function commonOf(gitDir: string): string | null {
  const line = readLine(join(gitDir, 'commondir'));
  if (line === null) return null;
  return realOrNull(isAbsolute(line) ? line : resolve(gitDir, line));
}

function fromGitFile(workTree: string, dotGit: string): RepoLocation {
  const line = readLine(dotGit);
  const m = line === null ? null : /^gitdir: (.+)$/.exec(line);
  if (!m) throw unsafeRepository(workTree, 'its .git file is not a gitdir: line');
  const target = isAbsolute(m[1]!) ? m[1]! : resolve(workTree, m[1]!);
  const gitDir = realOrNull(target);
  if (!gitDir || !isDir(gitDir)) throw unsafeRepository(workTree, `its .git file points at ${target}, which is not a folder`);
  if (inside(workTree, gitDir)) throw unsafeRepository(workTree, `its .git file points at ${gitDir}, inside the work tree itself (where agents write)`);
  const common = commonOf(gitDir);
  if (common === null) {
    // A submodule's git dir (`.git/modules/<name>` of its superproject): git's record there is
    // core.worktree, naming this work tree.
    if (!looksLikeGitDir(gitDir)) throw unsafeRepository(workTree, `its .git file points at ${gitDir}, which is not a git folder`);
    const back = coreWorktree(gitDir);
    if (back === null || realOrNull(isAbsolute(back) ? back : resolve(gitDir, back)) !== realOrNull(workTree)) {
      throw unsafeRepository(workTree, `its .git file points at ${gitDir}, whose config does not name this work tree (core.worktree)`);
    }
    return { gitDir, commonDir: gitDir, workTree };
  }
  // A linked worktree: <common>/worktrees/<name>, and git's record there names this work tree.
  if (dirname(gitDir) !== join(common, 'worktrees')) throw unsafeRepository(workTree, `its .git file points at ${gitDir}, which is not a worktree folder of the repository ${common}`);
  if (inside(workTree, common)) throw unsafeRepository(workTree, `its .git file leads to ${common}, inside the work tree itself`);
  if (!looksLikeGitDir(common)) throw unsafeRepository(workTree, `${common} is not a git folder`);
  const back = readLine(join(gitDir, 'gitdir'));
  const backReal = back === null ? null : realOrNull(isAbsolute(back) ? back : resolve(gitDir, back));
  if (backReal !== realOrNull(dotGit)) throw unsafeRepository(workTree, `the repository's record ${join(gitDir, 'gitdir')} names another worktree (${back ?? 'none'})`);
  return { gitDir, commonDir: common, workTree };
}

/** `core.worktree` of a git dir's own config file (the one line git writes for a submodule), or null. */
function coreWorktree(gitDir: string): string | null {
  let text: string;
  try {
    const p = join(gitDir, 'config');
    if (statSync(p).size > 65_536) return null;
    text = readFileNoWait(p, 'utf8');
  } catch {
    return null;
  }
  let inCore = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) inCore = /^\[core\]$/i.test(line);
    else if (inCore) {
      const m = /^worktree\s*=\s*(.*)$/i.exec(line);
      if (m) return m[1]!.replace(/^"(.*)"$/, '$1');
    }
  }
  return null;
}

/**
 * Checks that `loc` belongs to the repository Flightdeck recorded (a project's path, a
 * session's repository): its common dir is that repository's. Throws `forbidden` otherwise.
 */
export function requireRecordedRepository(loc: RepoLocation, recordedRepo: string): void {
  const recorded = locateRepository(recordedRepo);
  if (!recorded) throw unsafeRepository(loc.workTree, `the recorded repository ${recordedRepo} is not a git work tree`);
  if (realOrNull(recorded.commonDir) !== realOrNull(loc.commonDir)) {
    throw unsafeRepository(loc.workTree, `its git data is ${loc.commonDir}, not the recorded repository's ${recorded.commonDir}`);
  }
}
