/**
 * Finding a project's features. Active ones live in their worktree, at
 * `.trees/<slug>/.flightdeck/<slug>/state.yml`; merged ones keep their record on the main
 * checkout at `.flightdeck/<slug>/state.yml` after the worktree is gone.
 *
 * Rules (each avoids a "ghost" feature):
 * - a worktree folder counts only through the state file under its own name; a worktree branched
 *   after another feature merged inherits `.flightdeck/<other>/` from the base and that copy is
 *   not a second, stale instance of `<other>`;
 * - the slug inside the file must equal its folder name;
 * - records on the main checkout are forced to `merged` (they got there by merging);
 * - when both exist the active copy wins (it is the one being updated);
 * - the result is sorted by slug.
 * An unreadable or malformed state file is reported as a problem, never thrown.
 */
import { createHash } from 'node:crypto';
import { statfsSync, statSync, type BigIntStats } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { checkInside } from '../platform/contained-path';
import { FEATURES_DIR } from './config';
import { FeatureError, ioError, isFeatureError } from './errors';
import { readStateTextSync, STATE_FILE, stateRoot, type FeatureState } from './state';
import { stateParser } from './state-parser';

/** Folder of the feature worktrees, relative to the repository root. */
export const TREES_DIR = '.trees';

export type FeatureSource = 'active' | 'merged';

/** What a state file was when its state was read: its identity (identityOf; null when it had none) and the SHA-256 of its text. */
export interface StateFileMark {
  identity: string | null;
  sha256: string;
}

export interface ScannedFeature {
  slug: string;
  source: FeatureSource;
  /** The state file the feature was read from. */
  statePath: string;
  state: FeatureState;
  /** What that file was when `state` was read from it (the index keeps it: see rememberStates). */
  stateFile?: StateFileMark;
}

export interface ScanResult {
  features: ScannedFeature[];
  /** State files that could not be used, each with its path (and line when known). */
  problems: FeatureError[];
  /**
   * What the scan looked at, by path: the two feature folders it listed and every state file it
   * tried, each with the identity it had before being read ('' for none there; null when it
   * cannot vouch for it: changed too recently, or not stat-able). The scan's result holds while
   * every path still has that identity (probesHold).
   */
  probes: Map<string, string | null>;
}

/**
 * A file's or folder's identity: device, inode, size and times. As git does with its index, a
 * path changed within its racy window of being looked at has none (a second change within the
 * file system's clock tick could keep its size and times); every later change moves its times
 * past that, so an identity that matches is never stale. A folder's times change when an entry is
 * added, removed or renamed in it.
 *
 * The window (racyMsOf): 50 ms on a Linux file system whose times this kernel's clock sets
 * (ext4, xfs, btrfs, tmpfs, overlayfs, f2fs, zfs, vfat, exfat: ticks of a few milliseconds); 3 s
 * when both times are whole seconds (FAT, HFS+: a one- or two-second tick); 2 s anywhere else: a
 * network file system's times come from the server's clock, compared here with this machine's
 * (NFS, SMB, 9p, FUSE, WSL's \\wsl$), and other systems are not told apart. The window was 2 s
 * everywhere until the ninth pass of issue 23: four projects added right after their files were
 * written were then read 1 + 2 + 3 + 4 times.
 */
const RACY_LOCAL_MS = 50;
const RACY_COARSE_MS = 3_000;
const RACY_OTHER_MS = 2_000;
const SECOND_NS = 1_000_000_000n;
/** statfs magic numbers of local Linux file systems (linux/magic.h). */
const LOCAL_FILE_SYSTEMS = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0xf2f52010, 0x2fc12fc1, 0x4d44, 0x2011bab0]);
/** The window by device: one statfs per file system, not per file. */
const windowByDevice = new Map<bigint, number>();

/** The racy window of a file system by its statfs type on Linux (see above). */
export function racyMsOfType(platform: NodeJS.Platform, type: number | null): number {
  return platform === 'linux' && type !== null && LOCAL_FILE_SYSTEMS.has(type) ? RACY_LOCAL_MS : RACY_OTHER_MS;
}

type Times = Pick<BigIntStats, 'dev' | 'ino' | 'size' | 'mtimeMs' | 'ctimeMs' | 'mtimeNs' | 'ctimeNs'>;

/** The racy window of `path`, whose stats are `st`. */
export function racyMsOf(path: string, st: Times): number {
  if (st.mtimeNs % SECOND_NS === 0n && st.ctimeNs % SECOND_NS === 0n) return RACY_COARSE_MS;
  let ms = windowByDevice.get(st.dev);
  if (ms === undefined) {
    let type: number | null = null;
    try {
      type = process.platform === 'linux' ? Number(statfsSync(path).type) : null;
    } catch {
      // Not answered: the window of an unknown file system.
    }
    ms = racyMsOfType(process.platform, type);
    windowByDevice.set(st.dev, ms);
  }
  return ms;
}

/** The identity of stats `st` taken at `now`, given the file system's racy window; null inside it. */
export function identityOf(st: Times, now: number, racyMs: number): string | null {
  if (now - Number(st.mtimeMs) < racyMs || now - Number(st.ctimeMs) < racyMs) return null;
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/** The identity of `path` now ('' for nothing there, null when it has none: changed too recently, or not stat-able). */
export function identityNow(path: string): string | null {
  try {
    const st = statSync(path, { bigint: true, throwIfNoEntry: false });
    return st ? identityOf(st, Date.now(), racyMsOf(path, st)) : '';
  } catch {
    // A folder on the way is unreadable: no identity to trust.
    return null;
  }
}

/**
 * Whether every probed path still has the identity a scan recorded: one stat each, no read.
 * Synchronous on purpose: a thousand stats take a few milliseconds, far less than the same
 * number of round trips through libuv's thread pool, and a stat opens nothing (a FIFO or a
 * device swapped in cannot make it wait).
 */
export function probesHold(probes: ReadonlyMap<string, string | null>): boolean {
  for (const [path, was] of probes) {
    if (was === null || identityNow(path) !== was) return false;
  }
  return true;
}

export function activeStatePath(repoRoot: string, slug: string): string {
  return join(repoRoot, TREES_DIR, slug, FEATURES_DIR, slug, STATE_FILE);
}

export function mergedStatePath(repoRoot: string, slug: string): string {
  return join(repoRoot, FEATURES_DIR, slug, STATE_FILE);
}

/**
 * Records in `probes` what `path` is before a scan reads it (its identity, '' for nothing there,
 * null when it cannot be stat-ed); what it found, null for nothing stat-able.
 */
async function probe(path: string, probes: Map<string, string | null>): Promise<{ isFile: boolean; identity: string | null } | null> {
  try {
    // Synchronous, as the read after it (readStateTextSync) and probesHold: awaited, a stat was a
    // trip through the thread pool and a promise per state file, more than the stat itself.
    const st = statSync(path, { bigint: true });
    const identity = identityOf(st, Date.now(), racyMsOf(path, st));
    probes.set(path, identity);
    return { isFile: st.isFile(), identity };
  } catch (e) {
    // Missing or unreadable: what reads it next says which.
    probes.set(path, (e as NodeJS.ErrnoException).code === 'ENOENT' ? '' : null);
    return null;
  }
}

/** Names of the sub-folders of `dir` (none when it does not exist); its identity goes to `probes` first. */
async function subfolders(dir: string, problems: FeatureError[], probes: Map<string, string | null>): Promise<string[]> {
  await probe(dir, probes);
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory()).map((e) => e.name);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // No .trees or .flightdeck folder yet simply means no features of that kind.
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    problems.push(ioError(dir, 'list the folder', e));
    return [];
  }
}

/** State files read at once by a scan. */
const READ_CONCURRENCY = 8;

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * Parsed state files, by path, kept while the file's identity is unchanged (identityOf): a
 * reconcile re-reads a thousand features, and reading, parsing and validating each costs far
 * more than the one stat that shows it did not change. Atomic writes (how Flightdeck writes) also
 * give a new inode. A file whose identity changed, or that has none (changed within its racy window), is
 * read again; when its text is the one kept (same SHA-256: touched, checked out again, written
 * twice in a row), the kept result is used without parsing it again.
 *
 * A file that failed (over the size limit, malformed) is kept the same way with its error: the
 * board lists every few seconds, and reading a broken file again and again until someone fixes
 * it is work for nothing. Its next change gives it a new key, and it is read again then.
 *
 * A kept result is used only while no folder on the way is a link (noLinkOnTheWay): a folder
 * swapped for a link to where the same files now lie keeps every identity (a rename moves no
 * file's times), and the file is then read, and refused, as any other. After a
 * restart the index hands over what the last run read (rememberStates) under the same rule.
 */
type Kept = { key: string | null; sha256: string | null } & ({ state: FeatureState } | { error: unknown });
const parsedStates = new Map<string, Kept>();
const MAX_PARSED_STATES = 20_000;

const sha256Of = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Whether no folder between the state file's root (its worktree or repository, as the read takes
 * it) and the file is a symbolic link: the read's own walk (checkInside), an lstat each.
 */
function noLinkOnTheWay(path: string): boolean {
  try {
    checkInside(stateRoot(path), path);
    return true;
  } catch {
    // A link (or a folder that cannot be looked at): not served from what was kept; the read says why.
    return false;
  }
}

/**
 * States the index's rows hold from the previous run, each with what its file was when read
 * (feature_index's state_identity and state_sha256): a restarted app then parses only the files
 * that changed since. What this process read itself is newer and stays.
 */
export function rememberStates(entries: readonly { path: string; state: FeatureState; stateFile: StateFileMark }[]): void {
  for (const e of entries) {
    if (parsedStates.has(e.path)) continue;
    keep(e.path, { key: e.stateFile.identity, sha256: e.stateFile.sha256, state: e.state });
  }
}

/** Forgets every kept parse, as a restarted process has none (tests stand for a restart with it). */
export function forgetParsedStates(): void {
  parsedStates.clear();
}

/** Reads the state at `path` through the cache above; what the file was before the read goes to `probes`. */
async function readStateCached(path: string, probes: Map<string, string | null>): Promise<{ state: FeatureState; stateFile: StateFileMark }> {
  // Missing or unreadable (nothing found): readStateTextSync says which, as a problem the scan reports.
  const found = await probe(path, probes);
  const key = found?.isFile ? found.identity : null;
  const hit = parsedStates.get(path);
  if (hit && key !== null && hit.key === key && noLinkOnTheWay(path)) {
    if ('error' in hit) throw hit.error;
    return { state: structuredClone(hit.state), stateFile: { identity: key, sha256: hit.sha256! } };
  }
  let text: string;
  try {
    // Read synchronously, with every check of the asynchronous read (no link, no FIFO, the size
    // limit): awaited, a read was a dozen trips through the thread pool and the event loop, most
    // of a first index's time once the parse got fast; these are a few kilobytes on the disk the
    // probe just stat-ed (probesHold stats synchronously for the same reason).
    text = readStateTextSync(path);
  } catch (e) {
    // Gone or unreadable: nothing of it stays kept. Over the size limit: its error is kept (see above).
    keep(path, key !== null && isFeatureError(e) && (e.kind === 'state' || e.kind === 'yaml') ? { key, sha256: null, error: e } : null);
    throw e;
  }
  const sha256 = sha256Of(text);
  if (hit && hit.sha256 === sha256) {
    // The text read is the one kept (read by the same checks just now): the same result, without parsing it again.
    keep(path, { ...hit, key });
    if ('error' in hit) throw hit.error;
    return { state: structuredClone(hit.state), stateFile: { identity: key, sha256 } };
  }
  let state: FeatureState;
  try {
    state = await stateParser.parse(text, path);
  } catch (e) {
    // Broken as this very text (its YAML, its content): its error is kept (see above).
    keep(path, isFeatureError(e) && (e.kind === 'state' || e.kind === 'yaml') ? { key, sha256, error: e } : null);
    throw e;
  }
  keep(path, { key, sha256, state: structuredClone(state) });
  return { state, stateFile: { identity: key, sha256 } };
}

function keep(path: string, entry: Kept | null): void {
  if (entry === null) {
    parsedStates.delete(path);
    return;
  }
  if (!parsedStates.has(path) && parsedStates.size >= MAX_PARSED_STATES) parsedStates.delete(parsedStates.keys().next().value!);
  parsedStates.set(path, entry);
}

/** The state at `path`, or undefined when there is none; other failures become problems. */
async function tryRead(path: string, folderName: string, problems: FeatureError[], probes: Map<string, string | null> = new Map()): Promise<{ state: FeatureState; stateFile: StateFileMark } | undefined> {
  let read: { state: FeatureState; stateFile: StateFileMark };
  try {
    read = await readStateCached(path, probes);
  } catch (e) {
    if (isFeatureError(e) && e.kind === 'state' && (e.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
      // A folder without a state file (a plain worktree, a prompts folder) is no feature.
      return undefined;
    }
    problems.push(isFeatureError(e) ? e : ioError(path, 'read the feature state', e));
    return undefined;
  }
  if (read.state.feature.slug !== folderName) {
    problems.push(
      new FeatureError('state', `feature.slug is "${read.state.feature.slug}" but the folder is "${folderName}"; the slug must equal the folder name`, { path }),
    );
    return undefined;
  }
  return read;
}

export async function scanFeatures(repoRoot: string): Promise<ScanResult> {
  const problems: FeatureError[] = [];
  const probes = new Map<string, string | null>();
  const bySlug = new Map<string, ScannedFeature>();

  const merged = await subfolders(join(repoRoot, FEATURES_DIR), problems, probes);
  const active = await subfolders(join(repoRoot, TREES_DIR), problems, probes);
  // Read a few at a time (each read is several file-system calls); problems keep the folders' order.
  const reads = await mapLimit([...merged.map((slug) => ({ slug, source: 'merged' as const, statePath: mergedStatePath(repoRoot, slug) })), ...active.map((slug) => ({ slug, source: 'active' as const, statePath: activeStatePath(repoRoot, slug) }))], READ_CONCURRENCY, async (f) => {
    const own: FeatureError[] = [];
    return { ...f, read: await tryRead(f.statePath, f.slug, own, probes), problems: own };
  });
  for (const r of reads) {
    problems.push(...r.problems);
    if (!r.read) continue;
    const { state, stateFile } = r.read;
    // Merged records first, then active copies: the active one wins a slug both have.
    bySlug.set(r.slug, { slug: r.slug, source: r.source, statePath: r.statePath, state: r.source === 'merged' ? { ...state, status: 'merged' } : state, stateFile });
  }

  const features = [...bySlug.values()].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  return { features, problems, probes };
}

/** One feature by slug, active copy first, else the merged record; undefined when neither exists. */
export async function findFeature(repoRoot: string, slug: string): Promise<{ feature?: ScannedFeature; problems: FeatureError[] }> {
  const problems: FeatureError[] = [];
  const activePath = activeStatePath(repoRoot, slug);
  const active = await tryRead(activePath, slug, problems);
  if (active) return { feature: { slug, source: 'active', statePath: activePath, ...active }, problems };
  const mergedPath = mergedStatePath(repoRoot, slug);
  const merged = await tryRead(mergedPath, slug, problems);
  if (merged) return { feature: { slug, source: 'merged', statePath: mergedPath, state: { ...merged.state, status: 'merged' }, stateFile: merged.stateFile }, problems };
  return { problems };
}
