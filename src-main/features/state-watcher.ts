/**
 * Watching a repository's state files without crawling it. The folders that lead to state files
 * are few and known: the repository root, `.trees` and `.flightdeck`, each worktree folder, its
 * `.flightdeck`, and each feature's own folder (`.flightdeck/<slug>`,
 * `.trees/<slug>/.flightdeck/<slug>`). A scan already lists them (it tries a state file under
 * each), so the folders to watch are taken from what it probed and each gets one `fs.watch`
 * (inotify on Linux): no listing of any folder, nothing inside a worktree's sources.
 *
 * Chokidar, used before, listed and stat-ed every entry of every worktree's top folder to build
 * its tree (about a second of the main thread for 1,000 features, while the first page asked
 * for its lists).
 *
 * A folder's watch reports its entries added, removed, renamed and written; a folder replaced
 * (removed, moved away, swapped for a symlink) is seen by its parent's watch, which closes the
 * watches of that folder and everything under it (an inotify watch follows the moved folder,
 * not the path); the reconcile that follows watches the folders as they are now (`sync`).
 * A watch that cannot be made on a folder that is there (no inotify watches left, no access)
 * is reported: its changes are then found by the next list's stats only.
 *
 * `fs.watch` follows symlinks, and a repository's folders are the agent's to swap: a folder that
 * is a symlink (or anything but a folder) is not watched, nor anything below it, so no watch
 * lands outside the repository. A swap after the check is reported by the parent's watch, made
 * before it (parents first), which drops the child's watch; the reconcile that follows checks again.
 */
import { lstatSync, watch, type FSWatcher } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { FEATURES_DIR } from './config';
import { STATE_FILE } from './state';

/** Worktrees folder (scanner.ts's TREES_DIR; repeated here so that this file needs nothing of the scanner). */
const TREES = '.trees';

export interface StateWatcherOptions {
  /** Whether a path under the root is one the index reads or one on the way to it (isWatchedPath). */
  isWatched: (path: string) => boolean;
  /** An entry of a watched folder that the index cares about changed; null when the system did not say which. */
  onChange: (path: string | null) => void;
  /**
   * A folder that is there could not be watched, or its watch failed. A sync that could not watch
   * several reports the first with how many failed in all (`failed`), once: with no inotify
   * watches left every later sync fails on the same folders again.
   */
  onError: (folder: string, error: unknown, failed: number) => void;
}

export class StateWatcher {
  private readonly folders = new Map<string, FSWatcher>();
  private closed = false;

  constructor(
    readonly root: string,
    private readonly o: StateWatcherOptions,
  ) {}

  /** The folders watched now (tests look at them). */
  watched(): string[] {
    return [...this.folders.keys()].sort();
  }

  /**
   * Watches the folders leading to `probed` (the state files a scan tried and the feature folders
   * it listed) and the three a repository always has, and stops watching any other. Returns the
   * number of watches added and whether every folder that is there is watched.
   */
  sync(probed: Iterable<string>): { added: number; complete: boolean } {
    if (this.closed) return { added: 0, complete: false };
    const wanted = new Set([this.root, join(this.root, TREES), join(this.root, FEATURES_DIR)]);
    for (const p of probed) {
      // A state file: the folders from its own up to the root; a folder the scan listed: itself.
      for (let dir = p.endsWith(sep + STATE_FILE) ? dirname(p) : p; dir.startsWith(this.root + sep) && !wanted.has(dir); dir = dirname(dir)) {
        if (this.o.isWatched(dir)) wanted.add(dir);
      }
    }
    for (const [dir, w] of this.folders) {
      if (wanted.has(dir)) continue;
      this.folders.delete(dir);
      w.close();
    }
    let added = 0;
    let failed: { dir: string; error: unknown; count: number } | null = null;
    // Parents first: a folder that appears under a parent watched a moment later is reported by it.
    const notFolders: string[] = [];
    for (const dir of [...wanted].sort()) {
      if (this.folders.has(dir) || notFolders.some((n) => dir.startsWith(n + sep))) continue;
      try {
        // The root is the user's choice (a linked project folder is fine); below it, only real folders.
        if (dir !== this.root) {
          const st = lstatSync(dir, { throwIfNoEntry: false });
          if (!st) continue; // Not there: as ENOENT below.
          if (!st.isDirectory()) {
            notFolders.push(dir);
            continue;
          }
        }
        const w = watch(dir, { persistent: false }, (event, name) => this.changed(dir, event, name));
        w.on('error', (e) => {
          // Its folder vanished under it, or the system dropped the watch: the next reconcile watches what is there.
          this.drop(dir);
          this.o.onError(dir, e, 1);
          this.o.onChange(null);
        });
        this.folders.set(dir, w);
        added++;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        // Not there (a worktree without a .flightdeck yet, no merged records): its parent's watch reports its arrival.
        if (code === 'ENOENT' || code === 'ENOTDIR') continue;
        if (failed) failed.count++;
        else failed = { dir, error: e, count: 1 };
      }
    }
    if (failed) this.o.onError(failed.dir, failed.error, failed.count);
    return { added, complete: failed === null };
  }

  close(): void {
    this.closed = true;
    for (const w of this.folders.values()) w.close();
    this.folders.clear();
  }

  private changed(dir: string, event: string, name: string | Buffer | null): void {
    if (this.closed) return;
    if (name === null) {
      this.o.onChange(null);
      return;
    }
    const path = join(dir, name.toString());
    // Anything else in these folders (a worktree's own files, a feature's specs) is not the index's.
    if (!this.o.isWatched(path)) return;
    // A watched folder removed, renamed or replaced: its watch (and those below) no longer see that path.
    if (event === 'rename') this.drop(path);
    this.o.onChange(path);
  }

  /** Stops watching `path` and every folder under it. */
  private drop(path: string): void {
    for (const [dir, w] of this.folders) {
      if (dir !== path && !dir.startsWith(path + sep)) continue;
      this.folders.delete(dir);
      w.close();
    }
  }
}
