/**
 * What the autopilot reads from and does to its worktree through git: the facts of a snapshot
 * (status, diff stat, the detected test setup), before/after snapshots of the working tree to
 * tell which files a prompt changed, reverting exactly those files, and the optional commit of a
 * completed step. Every git call goes through the hardened helper (argument arrays only).
 */
import { existsSync, lstatSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { AppError } from '../../src-preload/contract';
import { git, gitBuffer, GitError, gitThen } from '../git/git';
import { writeFileAtomic } from '../platform/atomic-file';
import { checkInside, FileTooLargeError, isInside, mkdirInside, readFileInsideAsync, UnsafePathError, writeFileInside } from '../platform/contained-path';
import { formatBytes } from '../../src-preload/contract/units';
import { readFileNoWaitAsync } from '../platform/read-no-wait';

export const PLAN_FILE = 'PLAN.md';
/** A plan is an ordinary tracked text file: readable by everyone, like the rest of the checkout. */
const PLAN_MODE = 0o644;
/**
 * Largest PLAN.md read. A plan is a page of steps worked through one per iteration (a few KiB); the
 * agent writes this file, and a 100,000-step one (3 MB) took seconds to parse at every read, which
 * the run and the view do at each iteration. 256 KiB still holds thousands of steps.
 */
export const MAX_PLAN_BYTES = 256 * 1024;

/** Enough of `git status` / `git diff --stat` for the model to see what is going on, not a flood. */
const MAX_FACT_CHARS = 8_000;

/** A step's commit when the repository has no identity configured: the run's own bookkeeping. */
const COMMIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'Flightdeck Autopilot',
  GIT_AUTHOR_EMAIL: 'autopilot@flightdeck.localhost',
  GIT_COMMITTER_NAME: 'Flightdeck Autopilot',
  GIT_COMMITTER_EMAIL: 'autopilot@flightdeck.localhost',
};

function clip(text: string, max = MAX_FACT_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… [${text.length - max} more characters]`;
}

export interface WorkspaceFacts {
  status: string;
  diffStat: string;
  testSetup: string[];
}

/** The files that tell a model how the project's tests run (pytest.ini / package.json / pyproject.toml). */
const TEST_SETUP_FILES = ['package.json', 'pytest.ini', 'pyproject.toml', 'setup.cfg', 'tox.ini', 'go.mod', 'Cargo.toml', 'Makefile', 'pom.xml', 'build.gradle', 'build.gradle.kts', 'deno.json'];

export async function detectTestSetup(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const f of TEST_SETUP_FILES) {
    if (!existsSync(join(root, f))) continue;
    if (f === 'package.json') {
      try {
        const pkg = JSON.parse(await readFileNoWaitAsync(join(root, f), 'utf8')) as { scripts?: Record<string, unknown> };
        const test = pkg.scripts?.test;
        found.push(typeof test === 'string' ? `package.json (scripts.test: ${JSON.stringify(test)})` : 'package.json (no test script)');
      } catch {
        // A package.json that does not parse (or a FIFO) is still worth naming; its content is not.
        found.push('package.json (not valid JSON)');
      }
      continue;
    }
    found.push(f);
  }
  return found;
}

export async function collectFacts(root: string): Promise<WorkspaceFacts> {
  const status = await git(['status', '--porcelain', '--untracked-files=all'], { cwd: root });
  const diffStat = await git(['diff', '--stat', 'HEAD'], { cwd: root }).catch((e: unknown) => {
    // An unborn branch has no HEAD to compare with: status says everything there is.
    if (e instanceof GitError) return '';
    throw e;
  });
  return { status: clip(status.trimEnd()), diffStat: clip(diffStat.trimEnd()), testSetup: await detectTestSetup(root) };
}

/**
 * The whole working tree (untracked files included, ignored ones not) as a git tree object,
 * written through a private index so the user's index is never touched. Comparing two of them
 * says exactly which files changed in between.
 */
export async function snapshotTree(root: string): Promise<string> {
  const tmp = await mkdtemp(join(tmpdir(), 'fd-autopilot-'));
  try {
    const env = { GIT_INDEX_FILE: join(tmp, 'index') };
    await git(['read-tree', 'HEAD'], { cwd: root, env }).catch((e: unknown) => {
      // An unborn branch has no HEAD tree: the snapshot starts empty.
      if (!(e instanceof GitError)) throw e;
    });
    // The add and the tree it made, one process start (gitThen).
    return (await gitThen(['add', '-A', '--', ':/'], ['write-tree'], { cwd: root, env, timeoutMs: 120_000 })).trim();
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Paths (relative to the root, `/`-separated) that differ between two snapshots. */
export async function changedBetween(root: string, before: string, after: string): Promise<string[]> {
  if (before === after) return [];
  const out = await git(['diff', '--name-only', '-z', '--no-renames', before, after], { cwd: root });
  return out.split('\0').filter(Boolean);
}

function inside(root: string, rel: string): string {
  const abs = resolve(root, rel);
  if (!isInside(root, abs)) throw new AppError('internal', `refusing to revert ${rel}: it is outside ${root}`);
  return abs;
}

/**
 * Puts the given files back as they were in `snapshot`: a file that was not there is deleted,
 * the others get their content and mode back. Only these paths are touched, so files the user
 * changed before the prompt (which are in `snapshot` as the user left them) stay as they are.
 *
 * The worktree is written by the agent (in a container too, where a process may keep running
 * between commands): what goes back is read from git first, then each path is removed and written
 * in one synchronous step, never through a symbolic link — a folder on the way that is one is
 * refused, the file or link at the name is unlinked (never followed), and the file is written as
 * a new file renamed into place (a link re-made at its name meanwhile is replaced, not followed).
 */
export async function revertPaths(root: string, snapshot: string, paths: readonly string[]): Promise<void> {
  for (const rel of paths) {
    const abs = inside(root, rel);
    const entry = (await git(['ls-tree', '-z', snapshot, '--', rel], { cwd: root })).split('\0').find(Boolean);
    const m = entry ? /^(\d+) (\w+) ([0-9a-f]+)\t/.exec(entry) : null;
    // A submodule (commit entry): nothing of ours to write back, only the removal.
    const back = m && m[2] === 'blob' ? { mode: m[1]!, bytes: await gitBuffer(['cat-file', 'blob', m[3]!], { cwd: root }) } : null;
    // No folder on the way may be a link (made by the agent, or by anything running in its
    // container, even while this runs): the removal and the write would leave the worktree.
    try {
      checkInside(root, dirname(abs));
    } catch (e) {
      if (e instanceof UnsafePathError) throw new AppError('conflict', `refusing to revert ${rel}: ${e.offender} is a symbolic link now`, { path: e.offender });
      throw e;
    }
    removeEntry(abs);
    if (!back) continue;
    if (back.mode === '120000') {
      mkdirInside(root, dirname(abs));
      symlinkSync(back.bytes.toString('utf8'), abs);
    } else {
      writeFileInside(root, abs, back.bytes, back.mode === '100755' ? 0o755 : 0o644);
    }
  }
}

/**
 * Removes what is at `abs`: a file or a link by unlinking it (never what a link points at, and
 * never a whole folder). Only a folder that the agent put where a file of the snapshot was is
 * removed with its contents. (A folder on the way swapped for a link in the instant between the
 * check above and this removal is beyond what a path-based removal can rule out; unlinking keeps
 * such a race to a single file, never a tree.)
 */
function removeEntry(abs: string): void {
  let st;
  try {
    st = lstatSync(abs, { throwIfNoEntry: false });
  } catch (e) {
    // A file where a folder on the way should be: nothing at this path to remove.
    if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') return;
    throw e;
  }
  if (!st) return;
  if (st.isDirectory()) rmSync(abs, { recursive: true, force: true });
  else unlinkSync(abs);
}

/** PLAN.md's text in a snapshot, or null when it had none. */
export async function planIn(root: string, snapshot: string): Promise<string | null> {
  try {
    return await git(['cat-file', 'blob', `${snapshot}:${PLAN_FILE}`], { cwd: root });
  } catch (e) {
    if (e instanceof GitError) return null;
    throw e;
  }
}

/**
 * PLAN.md's text, or null when there is none. Refused (AppError) when it is over
 * {@link MAX_PLAN_BYTES} (checked before reading) or not a regular file inside the worktree (a
 * link the agent made could name any file of the user's, which would then go into every prompt).
 */
export async function readPlan(root: string): Promise<string | null> {
  try {
    return (await readFileInsideAsync(root, join(root, PLAN_FILE), { maxBytes: MAX_PLAN_BYTES, what: 'plan' })).toString('utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    if (e instanceof FileTooLargeError) {
      throw new AppError('invalid_input', `${PLAN_FILE} is ${formatBytes(e.size)}, over the ${formatBytes(MAX_PLAN_BYTES)} a plan may take, so it is not read: shorten it (fewer, larger steps; trim Done) in ${root}.`, { path: e.path });
    }
    if (e instanceof UnsafePathError) throw new AppError('invalid_input', `${PLAN_FILE} is not read: ${e.message}.`, { path: e.path });
    throw e;
  }
}

export function writePlan(root: string, text: string): void {
  // Atomic: a run killed mid-write must not leave half a plan.
  writeFileAtomic(join(root, PLAN_FILE), text, { mode: PLAN_MODE });
}

export async function removeFile(root: string, rel: string): Promise<void> {
  await unlink(inside(root, rel)).catch((e: unknown) => {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  });
}

/**
 * Commits everything in the worktree (the completed step's changes and PLAN.md). Returns the
 * commit id, or null when there was nothing to commit.
 */
export async function commitAll(root: string, message: string): Promise<string | null> {
  // The add and what it staged, one process start (gitThen).
  const staged = await gitThen(['add', '-A', '--', ':/'], ['diff', '--cached', '--name-only'], { cwd: root, timeoutMs: 120_000 });
  if (staged.trim() === '') return null;
  const email = await git(['config', 'user.email'], { cwd: root }).then(
    (s) => s.trim(),
    () => '', // Not configured anywhere: the run's own identity is used.
  );
  await git(['commit', '-q', '--no-verify', '-m', message], { cwd: root, env: email ? {} : COMMIT_IDENTITY });
  return (await git(['rev-parse', 'HEAD'], { cwd: root })).trim();
}

export function relativeTo(root: string, p: string): string {
  return relative(root, p).split(sep).join('/');
}
