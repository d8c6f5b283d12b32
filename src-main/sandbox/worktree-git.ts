/**
 * What git inside the command sandbox may touch when the session's root is a linked worktree
 * (a New session's `.trees/<slug>`): its git data lives in the main repository's common dir,
 * outside the root, so without this the sandbox either hides it (a repository under /tmp, which
 * the sandbox replaces) or leaves it all read-only, and `git status` / `git commit` fail.
 *
 * - Visible, read-only: the whole common dir (config, hooks, info, packed-refs, other branches,
 *   other worktrees' admin dirs).
 * - Writable: `objects/` (a commit adds objects; existing pack files and `objects/info` stay
 *   read-only), this worktree's own admin dir (index, logs/HEAD, ORIG_HEAD, COMMIT_EDITMSG) but
 *   not its `HEAD`, `commondir`, `gitdir` or `config.worktree` (where git looks, what it runs,
 *   which branch the host's next commit goes to), and the folder of the session's branch under
 *   `refs/heads/` and `logs/refs/heads/` (a ref is replaced through a lock file beside it), with
 *   every other branch's ref and reflog in those folders read-only. A branch directly under
 *   `refs/heads/` (no folder of its own) gets no writable folder: committing there fails rather
 *   than exposing every branch.
 * A branch of that folder kept only in packed-refs gets its loose file (same value) first, so it
 * is protected like the others.
 * Residual: a command can add objects and branches under the session's folder, and remove or
 * replace loose objects (git's content addresses make a replaced object a corrupt one, never a
 * program); it cannot change what git runs or where it looks. Another branch of the folder is
 * read-only as the command starts; but when the host's git replaces that branch's ref while the
 * command runs (its lock renamed onto the ref, as every commit on it does), the kernel drops the
 * bind in the sandbox's namespace (rename over a mount point of another namespace, Linux ≥ 3.18),
 * and from then on that command could move that branch too. Not closed yet: a folder per
 * session's branch, or the host checking other branches' tips against its own updates, would.
 * Hooks of the repository run when the command's git runs them, inside the same sandbox.
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { locateRepository } from '../git/repo-location';
import type { WorktreeGitBinds } from './policy';

const NONE: WorktreeGitBinds = { readOnly: [], writable: [], protect: [], otherRefs: [] };
/** A branch folder with more entries than this is not walked (its refs stay unprotected → no writable folder). */
const MAX_REFS = 2_000;

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Every regular file under `dir` (refs, reflogs), or null past MAX_REFS. */
function filesUnder(dir: string): string[] | null {
  const out: string[] = [];
  const stack = [dir];
  while (stack.length > 0) {
    const d = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.isFile()) out.push(p);
      if (out.length > MAX_REFS) return null;
    }
  }
  return out;
}

/** The session's branch (`refs/heads/…`) from the admin dir's HEAD, or null (detached, odd). */
function branchOf(gitDir: string): string | null {
  let head: string;
  try {
    head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
  } catch {
    return null;
  }
  const m = /^ref: refs\/heads\/([A-Za-z0-9._/+@-]+)$/.exec(head);
  if (!m) return null;
  const name = m[1]!;
  if (name.split('/').some((part) => part === '' || part === '.' || part === '..' || part.endsWith('.lock'))) return null;
  return name;
}

/** packed-refs is read only up to this size (a huge one: its refs stay packed and the folder is not made writable). */
const MAX_PACKED_REFS_BYTES = 16 * 1024 * 1024;

/**
 * Writes a loose ref for every branch under `refs/heads/<folder>/` (other than `own`) that
 * exists only in packed-refs, with its packed value; an existing file (or a race with git) is
 * left alone. Returns false when packed-refs could not be read whole.
 */
function loosenPacked(common: string, folder: string, own: string): boolean {
  const packed = join(common, 'packed-refs');
  let text: string;
  try {
    if (lstatSync(packed).size > MAX_PACKED_REFS_BYTES) return false;
    text = readFileSync(packed, 'utf8');
  } catch {
    return true;
  }
  const prefix = `refs/heads/${folder}/`;
  // The loose files there already, listed once: a repository with hundreds of branches in the
  // folder (all loose after the first command) then costs one walk, not a failed create each.
  const present = new Set(filesUnder(join(common, 'refs', 'heads', folder)) ?? []);
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]{40,64}) (refs\/heads\/\S+)$/.exec(line);
    if (!m || !m[2]!.startsWith(prefix) || m[2] === `refs/heads/${own}`) continue;
    const name = m[2]!;
    if (name.split('/').some((part) => part === '.' || part === '..' || part === '')) continue;
    const file = join(common, name);
    if (present.has(file)) continue;
    try {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${m[1]}\n`, { flag: 'wx' });
    } catch {
      // Already loose (or being written by git): it is protected as it is.
    }
  }
  return true;
}

/** Creates `file` empty unless something is there already (never through a link); whether a regular file is there now. */
function ensureEmptyFile(file: string): boolean {
  try {
    // wx: O_EXCL, so a link planted under the name is not followed (it fails with EEXIST).
    writeFileSync(file, '', { flag: 'wx', mode: 0o644 });
  } catch {
    // Already there (the usual case once made), or not creatable: what is there is judged below.
  }
  try {
    return lstatSync(file).isFile();
  } catch {
    return false;
  }
}

/** The binds for git in a sandbox whose root is `root`; nothing when the root is not a linked worktree's top. */
export function worktreeGitBinds(root: string, mode: 'read-only' | 'workspace-write'): WorktreeGitBinds {
  let loc;
  try {
    loc = locateRepository(root);
  } catch {
    // A .git file git's records do not confirm: nothing of it is bound (git fails, nothing is exposed).
    return NONE;
  }
  let real: string;
  try {
    real = realpathSync(root);
  } catch {
    return NONE;
  }
  if (!loc || loc.workTree !== real || loc.gitDir === loc.commonDir || !isDir(loc.commonDir)) return NONE;
  const c = loc.commonDir;
  const a = loc.gitDir;
  if (mode === 'read-only') return { readOnly: [c], writable: [], protect: [], otherRefs: [] };
  // The admin dir is writable, and a file not there cannot be bound read-only: config.worktree
  // made by the command would be read by the host's git (once extensions.worktreeConfig is set,
  // which a repository may do) with programs of its choosing. It is made empty first — the same
  // to git as none — and protected like the others; where that fails, the admin dir stays read-only.
  const worktreeConfig = join(a, 'config.worktree');
  const adminWritable = ensureEmptyFile(worktreeConfig);
  const writable = [join(c, 'objects'), ...(adminWritable ? [a] : [])];
  const protect: string[] = [join(c, 'objects', 'info'), join(c, 'objects', 'pack'), ...['HEAD', 'commondir', 'gitdir', 'config.worktree', 'locked'].map((f) => join(a, f))].filter(exists);
  const otherRefs: string[] = [];
  const branch = branchOf(a);
  if (branch !== null && branch.includes('/')) {
    const refFile = join(c, 'refs', 'heads', branch);
    const logFile = join(c, 'logs', 'refs', 'heads', branch);
    // A branch kept only in packed-refs has no file to protect: a loose one made in the writable
    // folder would win over it. Each gets its loose file first (the same value: nothing changes for git).
    // After a gc (pack-refs) the branch's folders may be gone: made again, empty (nothing changes for git).
    for (const f of [dirname(refFile), dirname(logFile)]) {
      try {
        mkdirSync(f, { recursive: true });
      } catch {
        // Not creatable (a file in the way): that folder is simply not made writable below.
      }
    }
    const loose = loosenPacked(c, dirname(branch), branch);
    for (const [file, top] of [[refFile, join(c, 'refs', 'heads')], [logFile, join(c, 'logs', 'refs', 'heads')]] as const) {
      const folder = dirname(file);
      if (folder === top || !isDir(folder) || !loose) continue;
      const others = filesUnder(folder);
      if (others === null) continue;
      writable.push(folder);
      // Just listed: one gone by the time the sandbox starts is skipped (see WorktreeGitBinds.otherRefs).
      // A lock file is a git update in flight on the host (another branch's commit, or this
      // branch's own): it is renamed away in a moment, and a lock held in place would fail the
      // host's git ("File exists"; Claude Code, given the list once per run, mounts /dev/null on
      // a missing path, making an empty one) or the command's own commits.
      for (const f of others) if (f !== file && !f.endsWith('.lock')) otherRefs.push(f);
    }
  }
  return { readOnly: [c], writable: writable.filter(exists), protect, otherRefs };
}
