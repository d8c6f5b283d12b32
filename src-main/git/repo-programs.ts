/**
 * Programs a repository's own config (`.git/config`, a worktree's `config.worktree`, and files
 * they include) would make the app's git run: filter drivers, merge drivers, signing programs,
 * ssh commands and other transport programs. A repository is untrusted input (an agent or a
 * container may have written its config), so each is either switched off for the call (where
 * turning it off changes nothing the user relies on) or the call is refused with the program
 * named and how to allow it. What the user's own global or system config sets is theirs and
 * stays in force; what the user allowed for this repository (exact key and value) runs.
 *
 * Always off, whatever the config (git.ts's SAFE_GIT_CONFIG and environment): hooks,
 * fsmonitor, credential helpers, askpass, external diff and text conversion in diff/log/show,
 * signature display, the `ext::` transport, editors and pagers.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { AppError } from '../../src-preload/contract';
import type { RepoLocation } from './repo-location';

export interface RepoProgram {
  key: string;
  value: string;
  /** The config file that set it. */
  origin: string;
}

type Kind = 'filter' | 'merge' | 'transport' | 'signing';

const PROGRAM_KEYS: ReadonlyArray<{ re: RegExp; kind: Kind }> = [
  { re: /^filter\..+\.(clean|smudge|process)$/, kind: 'filter' },
  { re: /^merge\..+\.driver$/, kind: 'merge' },
  { re: /^(core\.sshcommand|core\.gitproxy|core\.alternaterefscommand|remote\..+\.(uploadpack|receivepack))$/, kind: 'transport' },
  { re: /^(gpg\.program|gpg\..+\.program|gpg\.ssh\.defaultkeycommand)$/, kind: 'signing' },
];

/** Subcommands that move content between the work tree and the repository (filters run). */
const FILTER_WRITES = new Set(['add', 'commit', 'checkout', 'switch', 'restore', 'reset', 'stash', 'merge', 'cherry-pick', 'revert', 'rebase', 'am', 'apply', 'pull', 'worktree', 'read-tree', 'checkout-index', 'hash-object', 'update-index', 'mv', 'rm', 'sparse-checkout', 'submodule', 'clone']);
const MERGES = new Set(['merge', 'merge-tree', 'cherry-pick', 'revert', 'rebase', 'pull', 'stash', 'checkout', 'switch', 'am', 'apply']);
const TRANSPORT = new Set(['fetch', 'pull', 'push', 'ls-remote', 'remote', 'clone', 'submodule']);
const SIGNING = new Set(['commit', 'tag', 'merge', 'pull', 'rebase', 'cherry-pick', 'revert', 'am', 'commit-tree', 'verify-commit', 'verify-tag', 'stash']);

function kindOf(key: string): Kind | null {
  const k = key.toLowerCase();
  return PROGRAM_KEYS.find((p) => p.re.test(k))?.kind ?? null;
}

/** An allow-list entry: the exact key and value the user accepted for a repository. */
export function programEntry(p: { key: string; value: string }): string {
  return `${p.key.toLowerCase()}=${p.value}`;
}

/** Which repositories' programs the user allowed (by the repository's common dir). Set by the app. */
export type AllowedPrograms = (commonDir: string) => ReadonlySet<string>;
let allowed: AllowedPrograms = () => new Set();

export function setAllowedGitPrograms(provider: AllowedPrograms): void {
  allowed = provider;
}

interface Cached {
  signature: string;
  programs: RepoProgram[];
  files: string[];
}
const cache = new Map<string, Cached>();
const CACHE_MAX = 500;
/** Config scans run (`git config --list`), for benches: a cache hit runs none. */
let scans = 0;

export function repoProgramScans(): number {
  return scans;
}

/**
 * A file changed this recently may change again without its times moving (file times are only
 * as fine as the kernel's clock tick, a few milliseconds): a scan that read such a file is not
 * kept (git's "racy" rule for its index). Generous against the tick.
 */
const RACY_MS = 50;
/** The same on a file system that keeps whole seconds only (FAT, exFAT keep two). */
const RACY_COARSE_MS = 3_000;

interface Since {
  newest: number;
  /** Every time seen was a whole second: the file system's times are coarse. */
  coarse: boolean;
}

function stamp(p: string, since: Since): string {
  try {
    // Absent is the usual answer for config.worktree: said without a thrown error (checked before every git call).
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) return '-';
    since.newest = Math.max(since.newest, st.mtimeMs, st.ctimeMs);
    if (st.mtimeMs % 1000 !== 0 || st.ctimeMs % 1000 !== 0) since.coarse = false;
    // ctime too: a write in place that sets the modification time back still moves it.
    return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch {
    return '-';
  }
}

function signatureOf(files: readonly string[], since: Since = { newest: 0, coarse: true }): string {
  return files.map((f) => `${f}@${stamp(f, since)}`).join('|');
}

/** The config files a scan depends on: the repository's own, plus every file it included or names. */
function baseFiles(loc: RepoLocation): string[] {
  return [join(loc.commonDir, 'config'), join(loc.gitDir, 'config.worktree'), join(loc.gitDir, 'HEAD')];
}

function run(gitPath: string, env: Record<string, string>, cwd: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(gitPath, ['config', '--list', '--show-scope', '--show-origin', '-z'], { cwd, env, timeout: 30_000, maxBuffer: 8 * 1024 * 1024, encoding: 'utf8', windowsHide: true }, (error, stdout, stderr) => {
      // No config at all is exit 0 with nothing; a broken config file is git's own error.
      if (error) return reject(new AppError('conflict', `git could not read the repository's config: ${String(stderr).trim() || error.message}`));
      resolvePromise(stdout);
    });
  });
}

function parse(out: string, configDir: string): { programs: RepoProgram[]; files: string[] } {
  const programs: RepoProgram[] = [];
  const files = new Set<string>();
  const parts = out.split('\0');
  for (let i = 0; i + 2 < parts.length; i += 3) {
    const scope = parts[i]!;
    const origin = parts[i + 1]!;
    const kv = parts[i + 2]!;
    // The user's own (global, system) and the command line are theirs; local and worktree are the repository's.
    if (scope !== 'local' && scope !== 'worktree') continue;
    const nl = kv.indexOf('\n');
    const key = nl < 0 ? kv : kv.slice(0, nl);
    const value = nl < 0 ? '' : kv.slice(nl + 1);
    const file = origin.startsWith('file:') ? origin.slice(5) : null;
    const filePath = file === null ? null : isAbsolute(file) ? file : resolve(configDir, file);
    if (filePath) files.add(filePath);
    // An include not there yet is read as soon as it appears: its path is part of the signature.
    if (/^include(if\..*)?\.path$/i.test(key) && value) {
      const base = filePath ? dirname(filePath) : configDir;
      files.add(value.startsWith('~/') ? join(homedir(), value.slice(2)) : isAbsolute(value) ? value : resolve(base, value));
    }
    if (kindOf(key) && value !== '') programs.push({ key, value, origin: filePath ?? origin });
  }
  return { programs, files: [...files] };
}

/** The programs the repository's own config sets (cached until one of its config files changes). */
export async function repoPrograms(loc: RepoLocation, gitPath: string, env: Record<string, string>): Promise<RepoProgram[]> {
  const hit = cache.get(loc.gitDir);
  if (hit && signatureOf(hit.files) === hit.signature) return hit.programs;
  const files0 = baseFiles(loc);
  const scanStart = Date.now();
  const sig0 = signatureOf(files0);
  // `git config --list` reads config only: it runs no program (git's own cwd inside the work tree, git dir pinned).
  scans++;
  const out = await run(gitPath, { ...env, GIT_DIR: loc.gitDir, GIT_WORK_TREE: loc.workTree }, loc.workTree);
  const { programs, files } = parse(out, dirname(loc.gitDir));
  const all = [...new Set([...files0, ...files])];
  // Signed before reading (files0) so a change during the read is seen next time; a file changed
  // too recently to tell a later change by its times is not trusted to stay as read (RACY_MS).
  const since: Since = { newest: 0, coarse: true };
  const after = signatureOf(all, since);
  const signature = sig0 === signatureOf(files0) && since.newest < scanStart - (since.coarse ? RACY_COARSE_MS : RACY_MS) ? after : '';
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(loc.gitDir, { signature, programs, files: all });
  return programs;
}

export interface ProgramDecision {
  /** `-c` arguments that switch off what this call must not run. */
  configArgs: string[];
}

/**
 * What to do about the repository's programs for one call: switch them off, or refuse the call
 * (a filter would change what is committed or checked out; a merge, signing or transport
 * program would have to run) unless the user allowed exactly that key and value.
 */
export function decide(loc: RepoLocation, sub: string | undefined, programs: readonly RepoProgram[]): ProgramDecision {
  if (programs.length === 0) return { configArgs: [] };
  const ok = allowed(loc.commonDir);
  const configArgs: string[] = [];
  const refused: RepoProgram[] = [];
  for (const p of programs) {
    if (ok.has(programEntry(p))) continue;
    const kind = kindOf(p.key)!;
    if (kind === 'filter') {
      if (sub !== undefined && FILTER_WRITES.has(sub)) refused.push(p);
      // Off for everything else (a status compares work tree files through the clean filter).
      else configArgs.push('-c', `${p.key}=`);
    } else if ((kind === 'merge' && sub !== undefined && MERGES.has(sub)) || (kind === 'transport' && sub !== undefined && TRANSPORT.has(sub)) || (kind === 'signing' && sub !== undefined && SIGNING.has(sub))) {
      refused.push(p);
    }
  }
  if (refused.length > 0) throw programsRefused(loc, sub ?? 'git', refused);
  return { configArgs };
}

export function programsRefused(loc: RepoLocation, sub: string, refused: readonly RepoProgram[]): AppError {
  const list = refused.map((p) => `${p.key} = ${p.value} (${p.origin})`).join('; ');
  const lfs = refused.some((p) => /git-lfs/.test(p.value)) ? ' This repository uses Git LFS: allow its git-lfs filter if you installed git-lfs yourself.' : '';
  return new AppError(
    'forbidden',
    `Not run: git ${sub} in ${loc.workTree} would run a program set in the repository's own config: ${list}. ` +
      `Flightdeck does not run programs a repository configures (an agent or a clone can plant them).${lfs} ` +
      `If you trust it, run \`flightdeck projects allow-git-programs ${loc.workTree}\` (it lists them and records exactly these values), or remove them with \`git config --unset <key>\`.`,
    { path: loc.workTree, reason: 'repository_program', programs: refused.map((p) => ({ key: p.key, value: p.value, origin: p.origin })) },
  );
}

/** Tests: forget scanned configs. */
export function resetRepoProgramCache(): void {
  cache.clear();
}

/** Reads a small JSON allow-list file: `{ "<common dir>": ["key=value", …] }`. */
export function readAllowFile(path: string): Record<string, string[]> {
  if (!existsSync(path)) return {};
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    const out: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) if (Array.isArray(v)) out[k] = v.filter((x): x is string => typeof x === 'string');
    return out;
  } catch {
    return {};
  }
}
