import { AppError } from '../../src-preload/contract';
import type { Database } from './db';

/**
 * What a failed write says about the disk under the data folder. `disk_full` and `failing`
 * (I/O errors, a file system remounted read-only) are conditions that can pass: the write is
 * kept and retried. Anything else is a bug or a constraint and is not this module's business.
 */
export type StorageProblem = 'disk_full' | 'failing';

const DISK_FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT']);
const FAILING_CODES = new Set(['EIO', 'EROFS', 'SQLITE_READONLY', 'SQLITE_READONLY_DBMOVED']);

export function storageProblem(e: unknown): StorageProblem | null {
  const code = e && typeof e === 'object' ? (e as { code?: unknown }).code : undefined;
  if (e instanceof AppError) return e.code === 'disk_full' ? 'disk_full' : null;
  if (typeof code !== 'string') return null;
  if (DISK_FULL_CODES.has(code)) return 'disk_full';
  // SQLITE_IOERR_WRITE, _FSYNC, _SHMSIZE …: the extended codes of one failing disk.
  if (code.startsWith('SQLITE_IOERR') || FAILING_CODES.has(code)) return 'failing';
  return null;
}

export interface StorageNotice {
  level: 'warning' | 'success';
  title: string;
  message: string;
}

export interface StorageHealthOptions {
  /** Called once when writes start failing and once when everything kept was saved. */
  notify?: (notice: StorageNotice) => void;
  /** Called whenever the state or the number of kept writes changes. */
  changed?: () => void;
  /** Other holders of unsaved work (the event log's buffer): the episode ends only when they are empty too. */
  pendingElsewhere?: () => number;
  /**
   * A tiny real write that tells whether the disk takes writes again, for an episode with
   * nothing kept to retry (only a refused request): without it the banner would stay up.
   */
  probe?: () => void;
  retryBaseMs?: number;
  retryMaxMs?: number;
  now?: () => number;
}

/**
 * The first retry comes soon (a user deleting a big file wants to see it saved), later ones
 * back off so a disk that stays full costs a write attempt every half minute, not a busy loop.
 */
const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 30_000;
/**
 * Kept writes are closures holding their rows; a disk that stays full for hours must not
 * grow them without end. Past this many, new writes fail with `disk_full` instead of queueing.
 */
const MAX_KEPT_WRITES = 10_000;
/**
 * A disk at the edge flaps between full and not: a new episode this soon after the last warning
 * updates the banner but raises no second toast (the user has seen it; see the status).
 */
const NOTICE_QUIET_MS = 10 * 60 * 1000;

interface KeptWrite {
  label: string;
  run(): void;
}

/**
 * The health of the disk under one database: a failed write because the disk is full (or
 * failing) is kept in memory, in order, and retried with backoff; the user hears about it once
 * per episode, and once more when everything kept has been saved. Requests that cannot be kept
 * (a settings change) get a typed `disk_full` error naming the data folder.
 */
export class StorageHealth {
  private problem: StorageProblem | null = null;
  private lastError: string | null = null;
  private readonly kept: KeptWrite[] = [];
  private timer: NodeJS.Timeout | null = null;
  private delay: number;
  private lastWarnedAt = Number.NEGATIVE_INFINITY;
  /** Whether this episode's warning was shown (then its end is announced too). */
  private warned = false;
  private disposed = false;

  constructor(
    readonly dataDir: string,
    private opts: StorageHealthOptions = {},
  ) {
    this.delay = opts.retryBaseMs ?? RETRY_BASE_MS;
  }

  /** Late wiring: the composition root connects notices after the database is open. */
  configure(opts: StorageHealthOptions): void {
    this.opts = { ...this.opts, ...opts };
    this.delay = this.opts.retryBaseMs ?? RETRY_BASE_MS;
  }

  get state(): 'ok' | StorageProblem {
    return this.problem ?? 'ok';
  }

  get keptWrites(): number {
    return this.kept.length;
  }

  /** The message the user reads while the condition lasts, or null when all is well. */
  get message(): string | null {
    if (!this.problem) return null;
    return this.problem === 'disk_full'
      ? `The disk holding ${this.dataDir} is full — Flightdeck keeps your work in memory and saves it when space returns.`
      : `Flightdeck cannot write to ${this.dataDir} (${this.lastError ?? 'the disk reported an error'}) — your work is kept in memory and saved when writing works again.`;
  }

  /**
   * Records a write that failed for a storage reason and returns the error to give a caller.
   * Other errors are returned unchanged. The notice is published on the first failure only.
   */
  failed(e: unknown): unknown {
    const problem = storageProblem(e);
    if (!problem) return e;
    const first = this.problem === null;
    this.problem = problem;
    this.lastError = e instanceof Error ? e.message : String(e);
    if (first) {
      const now = (this.opts.now ?? Date.now)();
      this.warned = now - this.lastWarnedAt >= NOTICE_QUIET_MS;
      if (this.warned) {
        this.lastWarnedAt = now;
        this.opts.notify?.({ level: 'warning', title: problem === 'disk_full' ? 'The disk is full' : 'Cannot save to the disk', message: this.message! });
      }
      this.opts.changed?.();
    }
    this.scheduleRetry();
    return this.toAppError(problem);
  }

  /** A write went through: if nothing is kept anywhere any more, the episode is over. */
  succeeded(): void {
    if (this.problem === null) return;
    if (this.kept.length > 0 || (this.opts.pendingElsewhere?.() ?? 0) > 0) return;
    this.problem = null;
    this.lastError = null;
    this.delay = this.opts.retryBaseMs ?? RETRY_BASE_MS;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.warned) this.opts.notify?.({ level: 'success', title: 'Saved', message: `There is space again in ${this.dataDir}; everything Flightdeck kept in memory is saved.` });
    this.opts.changed?.();
  }

  /**
   * Runs `write` now, or keeps it (in order behind earlier kept writes) when the disk is full.
   * Returns true when it was written now. Errors that are not about storage are thrown.
   */
  write(label: string, write: () => void): boolean {
    if (this.kept.length === 0) {
      try {
        write();
        this.succeeded();
        return true;
      } catch (e) {
        const err = this.failed(e);
        if (err === e) throw e;
      }
    }
    if (this.kept.length >= MAX_KEPT_WRITES) throw this.toAppError(this.problem ?? 'disk_full');
    this.kept.push({ label, run: write });
    this.opts.changed?.();
    this.scheduleRetry();
    return false;
  }

  /**
   * For writes that must not overtake kept ones (a new turn's status): saves what is kept now
   * if it can, and throws the typed error when the disk still refuses.
   */
  requireWritable(): void {
    if (this.kept.length === 0) return;
    this.retryNow();
    if (this.kept.length > 0) throw this.toAppError(this.problem ?? 'disk_full');
  }

  /** Tries every kept write in order, stopping at the first that still fails. */
  retryNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.kept.length === 0 && this.problem !== null && this.opts.probe) {
      try {
        this.opts.probe();
      } catch (e) {
        if (this.failed(e) === e) this.scheduleRetry(); // not a storage error: keep probing on the same schedule
        return;
      }
    }
    while (this.kept.length > 0) {
      const next = this.kept[0]!;
      try {
        next.run();
      } catch (e) {
        if (!storageProblem(e)) {
          // Not a storage failure (the row's session was deleted meanwhile): it can never succeed, drop it.
          this.kept.shift();
          this.opts.changed?.();
          continue;
        }
        this.failed(e);
        return;
      }
      this.kept.shift();
      this.opts.changed?.();
    }
    this.succeeded();
  }

  toAppError(problem: StorageProblem = this.problem ?? 'disk_full'): AppError {
    return new AppError(
      'disk_full',
      problem === 'disk_full'
        ? `The disk holding ${this.dataDir} is full, so this was not saved. Free some space and try again; work already under way is kept in memory and saved when space returns.`
        : `Flightdeck cannot write to ${this.dataDir} (${this.lastError ?? 'disk error'}), so this was not saved. Work already under way is kept in memory and saved when writing works again.`,
      { dataDir: this.dataDir, reason: problem },
    );
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private scheduleRetry(): void {
    if (this.disposed || this.timer || (this.kept.length === 0 && (this.problem === null || !this.opts.probe))) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.retryNow();
    }, this.delay);
    // A retry alone must not keep a finished CLI process alive.
    this.timer.unref?.();
    this.delay = Math.min(this.delay * 2, this.opts.retryMaxMs ?? RETRY_MAX_MS);
  }
}

const registry = new WeakMap<Database, StorageHealth>();

export function attachStorageHealth(db: Database, health: StorageHealth): void {
  registry.set(db, health);
}

/** The health watcher of a database opened by openDatabase (none for a bare test connection). */
export function storageHealthOf(db: Database): StorageHealth | null {
  return registry.get(db) ?? null;
}

/** Writes through the database's health watcher when it has one, else directly. */
export function writeOrKeep(db: Database, label: string, write: () => void): boolean {
  const health = storageHealthOf(db);
  if (!health) {
    write();
    return true;
  }
  return health.write(label, write);
}
