/**
 * The private temporary folder of one `claude` run (its generated settings with the hook's
 * bearer secret). It must not outlive the run: it is removed when the run ends, on process
 * exit (synchronously, for exits that skip the run's own cleanup), and — for a process that
 * died without any of that (SIGKILL, a crash, a closed terminal before this fix) — by the next
 * Flightdeck process that starts a run: the folder's name carries its owner's identity
 * (pid@start-time), and folders whose owner no longer runs are removed.
 *
 * Every run folder is made inside one folder of this user (`<tmp>/flightdeck-coder-runs-<uid>`,
 * 0700), made once and never removed, which every run's sandbox hides whole. Hiding the run
 * folders themselves (a glob Claude Code expands at each command, as before) failed when a
 * folder that matched was removed — another run ending — before bubblewrap mounted over it: the
 * command failed with "Can't mkdir …: Read-only file system".
 */
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownerAlive, selfIdentity } from '../platform/process-identity';
import { keysDir, runsDirPath } from './key-file';

const PREFIX = 'flightdeck-coder-';
/** `flightdeck-coder-<pid>@<start>-<random>` (mkdtemp adds six characters). */
const OWNED = /^flightdeck-coder-(\d+)@([A-Za-z0-9]+)-[A-Za-z0-9]{6}$/;

const live = new Set<string>();
let exitHookInstalled = false;
let swept = false;

function removeQuietly(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch {
    // Already gone or not ours to remove (another user's /tmp entry): nothing more to do.
  }
}

/** The folder of every run folder; refused when someone else made it (a shared /tmp). */
export function runsDir(base = tmpdir()): string {
  const dir = runsDirPath(base);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!ownFolder(dir)) throw new Error(`${dir} is not a folder of this user; refusing to put a Claude Code run's settings there.`);
  chmodSync(dir, 0o700);
  return dir;
}

function ownFolder(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && (!process.getuid || st.uid === process.getuid());
  } catch {
    return false;
  }
}

/**
 * Removes run folders left by processes that no longer run: in the runs folder, and at the top
 * of the temporary folder, where earlier versions made them. Returns the paths removed.
 * Folders of live owners (another Flightdeck running a task right now) are left alone.
 */
export function removeStaleRunDirs(base = tmpdir()): string[] {
  const runs = runsDirPath(base);
  return [...removeStaleIn(base), ...(ownFolder(runs) ? removeStaleIn(runs) : [])];
}

function removeStaleIn(base: string): string[] {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = OWNED.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || ownerAlive(pid, `${pid}@${m[2]}`)) continue;
    const path = join(base, name);
    removeQuietly(path);
    removed.push(path);
  }
  return removed;
}

/** Creates a run folder (0700) owned by this process; the first call also sweeps stale ones. */
export function createRunDir(base = tmpdir()): string {
  if (!swept) {
    swept = true;
    removeStaleRunDirs(base);
  }
  // '@' keeps pid and start time apart; a random identity (no /proc) is hex, so it fits too.
  const dir = mkdtempSync(join(runsDir(base), `${PREFIX}${selfIdentity()}-`));
  chmodSync(dir, 0o700);
  live.add(dir);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // 'exit' handlers must be synchronous; a run interrupted by process.exit() cleans up here.
    process.once('exit', () => {
      for (const d of live) removeQuietly(d);
      live.clear();
    });
  }
  return dir;
}

/**
 * Run folders an earlier version made at the top of the temporary folder, there now: a run of
 * an older build still running beside this one. Hidden by name (they may vanish, which is the
 * race the runs folder removes; only older builds make them).
 */
export function earlierRunDirs(base = tmpdir()): string[] {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return [];
  }
  return names.filter((n) => OWNED.test(n)).map((n) => join(base, n));
}

/** Removes a run folder when its run ends. */
export function removeRunDir(dir: string): void {
  live.delete(dir);
  removeQuietly(dir);
}

/**
 * The folders holding Claude Code runs' secrets: the key folder and the runs folder (each made
 * now if missing, so a run that starts later still puts its secrets where they are hidden), and
 * run folders an earlier version made at the top of the temporary folder. For
 * sandboxes that hide paths rather than globs (bubblewrap, Seatbelt): the built-in loop's
 * commands hide them whole. Under /tmp bubblewrap's private /tmp hides them anyway; with
 * TMPDIR elsewhere (a user's setting, macOS's per-user folder) nothing else would.
 */
export function coderSecretDirs(base = tmpdir()): string[] {
  const dirs: string[] = [];
  // Both made now if missing, so a run that starts later still puts its secrets where they are hidden.
  for (const made of [keysDir, runsDir]) {
    try {
      dirs.push(made(base));
    } catch {
      // Someone else's folder (a shared /tmp): runs refuse to put secrets there, so none are there to hide.
    }
  }
  let names: string[] = [];
  try {
    names = readdirSync(base);
  } catch {
    // No temporary folder: no run folder either.
  }
  // The runs folder (when this user's) and, at the top, run folders of earlier versions.
  for (const name of names) if (name.startsWith(PREFIX)) dirs.push(join(base, name));
  return [...new Set(dirs)];
}
