/**
 * What a worktree's setup commands produced (`npm install`'s node_modules, a `.venv`, a build
 * folder, an untracked lockfile), so it never ends up in a commit, a review diff or a report.
 *
 * The untracked files git sees (not ignored; whole new folders as one `dir/` entry) are listed
 * before and after setup; the new ones are recorded in the worktree's own git data folder
 * (`.git/worktrees/<name>/`, removed with the worktree, never in the checkout). Auto-commit and
 * the diffs then leave them out with exclude pathspecs. Files the repository ignores need none
 * of this: git never adds them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '../git/git';
import { locateRepository } from '../git/repo-location';
import { writeFileInside } from '../platform/contained-path';
import { readFileNoWait } from '../platform/read-no-wait';

const RECORD_FILE = 'flightdeck-setup-artifacts.json';
/** A setup that creates more top-level entries than this is recorded up to it (the rest are still untracked files the user sees). */
const MAX_RECORDED = 5_000;

/** Untracked, not ignored paths of `worktree`, a new folder as one `dir/` entry. */
export async function untrackedEntries(worktree: string): Promise<Set<string>> {
  const out = await git(['ls-files', '--others', '--exclude-standard', '--directory', '-z'], { cwd: worktree });
  return new Set(out.split('\0').filter((p) => p !== ''));
}

async function recordPath(worktree: string): Promise<string> {
  // The git dir the app's git would use (./repo-location decides it for git too), without
  // starting one: every commit and diff of a feature run asks.
  const loc = locateRepository(worktree);
  const gitDir = loc ? loc.gitDir : (await git(['rev-parse', '--absolute-git-dir'], { cwd: worktree })).trim();
  return join(gitDir, RECORD_FILE);
}

/**
 * Records what appeared since `before` (taken just before setup ran) and returns it, sorted.
 * Added to what an earlier setup of this worktree recorded.
 */
export async function recordSetupArtifacts(worktree: string, before: ReadonlySet<string>): Promise<string[]> {
  const after = await untrackedEntries(worktree);
  const created = [...after].filter((p) => !before.has(p));
  const all = [...new Set([...(await setupArtifacts(worktree)), ...created])].sort().slice(0, MAX_RECORDED);
  const file = await recordPath(worktree);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, JSON.stringify({ version: 1, paths: all }, null, 2) + '\n');
  return created.sort();
}

/** What setup created in `worktree`, as recorded; empty when nothing was (or it cannot be read). */
export async function setupArtifacts(worktree: string): Promise<string[]> {
  let file: string;
  try {
    file = await recordPath(worktree);
  } catch {
    // Not a work tree (or git is gone): nothing recorded for it.
    return [];
  }
  try {
    const v = JSON.parse(readFileNoWait(file, 'utf8')) as { paths?: unknown };
    return Array.isArray(v.paths) ? v.paths.filter((p): p is string => typeof p === 'string' && p !== '' && !p.startsWith('/') && !p.split('/').includes('..')) : [];
  } catch {
    // No record (no setup ran) or a broken one: nothing is left out.
    return [];
  }
}

/** Pathspecs that leave each path (a `dir/` entry with everything under it) out of an add or a diff. */
export function excludePathspecs(paths: readonly string[]): string[] {
  return paths.map((p) => `:(exclude,literal,top)${p.replace(/\/+$/, '')}`);
}

/** The exclude pathspecs of what setup created in `worktree` (none when nothing was recorded). */
export async function setupExcludes(worktree: string): Promise<string[]> {
  return excludePathspecs(await setupArtifacts(worktree));
}

// ---- the offer to ignore them ------------------------------------------------------------------

const OFFERED_FILE = 'flightdeck-ignore-offered.json';
/** A pattern this offer writes: one anchored path of what setup created, nothing a shell or git could read otherwise. */
const SAFE_PATTERN = /^\/[A-Za-z0-9._@+-][A-Za-z0-9._@+/-]*$/;

/** The .gitignore lines for setup artifacts, anchored at the root (`/node_modules/`, `/package-lock.json`). */
export function ignorePatterns(artifacts: readonly string[]): string[] {
  return artifacts.map((a) => `/${a}`).filter((p) => SAFE_PATTERN.test(p) && !p.split('/').includes('..'));
}

async function offeredFile(worktree: string): Promise<{ file: string; offered: string[] }> {
  const common = (await git(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: worktree })).trim();
  const file = join(common, OFFERED_FILE);
  try {
    const v = JSON.parse(readFileNoWait(file, 'utf8')) as { patterns?: unknown };
    return { file, offered: Array.isArray(v.patterns) ? v.patterns.filter((p): p is string => typeof p === 'string') : [] };
  } catch {
    // Never offered anything in this repository yet.
    return { file, offered: [] };
  }
}

/** The ignore rules for what setup created in `worktree` that were never offered in this repository. */
export async function pendingIgnoreOffer(worktree: string): Promise<string[]> {
  const patterns = ignorePatterns(await setupArtifacts(worktree));
  if (patterns.length === 0) return [];
  const { offered } = await offeredFile(worktree);
  return patterns.filter((p) => !offered.includes(p));
}

/** Records `patterns` as offered in the repository of `worktree`: they are not offered again. */
export async function markOffered(worktree: string, patterns: readonly string[]): Promise<void> {
  const { file, offered } = await offeredFile(worktree);
  const fresh = patterns.filter((p) => !offered.includes(p));
  if (fresh.length > 0) writeFileSync(file, JSON.stringify({ version: 1, patterns: [...offered, ...fresh] }, null, 2) + '\n');
}

/**
 * The ignore rules to offer for what setup created in `worktree`: those never offered before in
 * this repository (the offer is made once), recorded as offered in its git data.
 */
export async function takeIgnoreOffer(worktree: string): Promise<string[]> {
  const fresh = await pendingIgnoreOffer(worktree);
  await markOffered(worktree, fresh);
  return fresh;
}

/** Appends the patterns the repository's .gitignore (at `root`) does not have yet; returns those added. */
export function addIgnoreRules(root: string, patterns: readonly string[]): string[] {
  const path = join(root, '.gitignore');
  let text = '';
  try {
    text = readFileNoWait(path, 'utf8');
  } catch {
    // No .gitignore yet: it is created.
  }
  const have = new Set(text.split('\n').map((l) => l.trim()));
  const add = patterns.filter((p) => SAFE_PATTERN.test(p) && !have.has(p));
  if (add.length === 0) return [];
  // Never through a symlink at .gitignore (replaced, not followed).
  writeFileInside(root, path, `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}# created by the worktree setup (flightdeck)\n${add.join('\n')}\n`);
  return add;
}
