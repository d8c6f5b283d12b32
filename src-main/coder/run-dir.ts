/**
 * The private temporary folder of one `claude` run (its generated settings with the hook's
 * bearer secret). It must not outlive the run: it is removed when the run ends, on process
 * exit (synchronously, for exits that skip the run's own cleanup), and — for a process that
 * died without any of that (SIGKILL, a crash, a closed terminal before this fix) — by the next
 * Flightdeck process that starts a run: the folder's name carries its owner's identity
 * (pid@start-time), and folders whose owner no longer runs are removed.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownerAlive, selfIdentity } from '../platform/process-identity';
import { keysDir } from './key-file';

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

/**
 * Removes run folders left by processes that no longer run. Returns the paths removed.
 * Folders of live owners (another Flightdeck running a task right now) are left alone.
 */
export function removeStaleRunDirs(base = tmpdir()): string[] {
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
export function createRunDir(): string {
  const base = tmpdir();
  if (!swept) {
    swept = true;
    removeStaleRunDirs(base);
  }
  // '@' keeps pid and start time apart; a random identity (no /proc) is hex, so it fits too.
  const dir = mkdtempSync(join(base, `${PREFIX}${selfIdentity()}-`));
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
 * Every run folder, present or future, as a glob: a sandboxed command of one run must not read
 * another run's key or hook secret (Claude Code expands it at each command).
 */
export function runDirGlob(base = tmpdir()): string {
  return join(base, `${PREFIX}*`);
}

/** Removes a run folder when its run ends. */
export function removeRunDir(dir: string): void {
  live.delete(dir);
  removeQuietly(dir);
}

/**
 * The folders holding Claude Code runs' secrets right now: the key folder (made now if missing,
 * so a run that starts later still puts its key where it is hidden) and every run folder. For
 * sandboxes that hide paths rather than globs (bubblewrap, Seatbelt): the built-in loop's
 * commands hide them whole. Under /tmp bubblewrap's private /tmp hides them anyway; with
 * TMPDIR elsewhere (a user's setting, macOS's per-user folder) nothing else would.
 */
export function coderSecretDirs(base = tmpdir()): string[] {
  const dirs: string[] = [];
  try {
    dirs.push(keysDir(base));
  } catch {
    // Someone else's folder (a shared /tmp): runs refuse to put a key there, so none is there to hide.
  }
  let names: string[] = [];
  try {
    names = readdirSync(base);
  } catch {
    // No temporary folder: no run folder either.
  }
  for (const name of names) if (name.startsWith(PREFIX)) dirs.push(join(base, name));
  return dirs;
}
