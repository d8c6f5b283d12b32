import type BetterSqlite3 from 'better-sqlite3';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AppError } from '../../src-preload/contract';
import { requireNative } from '../platform/native';
import { MIGRATIONS } from './migrations';
import { attachStorageHealth, StorageHealth, storageHealthOf } from './storage-health';

export type Database = BetterSqlite3.Database;

/** The database's file name inside the data folder. */
export const DB_FILE_NAME = 'flightdeck.db';

export function databasePath(dataDir: string): string {
  return join(dataDir, DB_FILE_NAME);
}

/** How long a writer waits on a lock held by another connection (the CLI, a second window). */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens (creating if needed) the database and brings its schema up to date. Failures name the
 * file and the reason the user can act on: permission denied, a read-only disk, a full disk,
 * or a file that is not a readable database (left untouched, with the way to restore a backup).
 */
export function openDatabase(file: string): Database {
  try {
    mkdirSync(dirname(file), { recursive: true });
  } catch (e) {
    throw describeOpenError(e, file);
  }
  const Sqlite = requireNative<typeof BetterSqlite3>('better-sqlite3');
  let db: Database;
  try {
    db = new Sqlite(file);
  } catch (e) {
    throw describeOpenError(e, file);
  }
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    migrate(db);
  } catch (e) {
    db.close();
    throw describeOpenError(e, file);
  }
  attachStorageHealth(db, new StorageHealth(dirname(file)));
  return db;
}

/** The restore command users are pointed at when the database cannot be read. */
export const RESTORE_HINT = 'flightdeck db restore --latest';

/** Turns a failure to open or migrate the database into an AppError that names the file and the reason. */
export function describeOpenError(e: unknown, file: string): unknown {
  if (e instanceof AppError) return e;
  const code = e && typeof e === 'object' ? String((e as { code?: unknown }).code ?? '') : '';
  const reason = e instanceof Error ? e.message : String(e);
  const dir = dirname(file);
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return new AppError(
      'database_corrupt',
      `${file} is damaged or is not a Flightdeck database (${reason}). It was left as it is. Restore the latest automatic backup with "${RESTORE_HINT}", or move the file away to start with an empty one.`,
      { path: file },
    );
  }
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') {
    return new AppError('disk_full', `The disk holding ${dir} is full, so Flightdeck cannot open its database ${file}. Free some space and start again.`, { path: file });
  }
  // SQLite reports a refused open as CANTOPEN/READONLY/IOERR without the errno: ask the OS which it was.
  const denied = permissionProblem(code.startsWith('E') ? code : null, file);
  if (denied) return denied;
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM') {
    return new AppError('permission_denied', `Flightdeck cannot open its database ${file} for writing (${reason}). Check that ${dir} is writable.`, { path: file });
  }
  return e;
}

function permissionProblem(errno: string | null, file: string): AppError | null {
  // A data folder still to be created: the refusal comes from the nearest folder that exists.
  let dir = dirname(file);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  const probe = (path: string, mode: number): string | null => {
    try {
      accessSync(path, mode);
      return null;
    } catch (err) {
      return String((err as NodeJS.ErrnoException).code ?? '');
    }
  };
  const checks: Array<[string, number]> = [[dir, constants.W_OK | constants.X_OK]];
  if (existsSync(file)) checks.unshift([file, constants.R_OK | constants.W_OK]);
  for (const [path, mode] of checks) {
    const probed = probe(path, mode);
    const got = probed === null || probed === 'ENOENT' ? (path === dir ? errno : null) : probed;
    if (got === 'EACCES' || got === 'EPERM') {
      return new AppError('permission_denied', `Flightdeck cannot open ${path}: permission denied. Give your user read and write access to it (the data folder is ${dirname(file)}).`, { path, reason: 'permission denied' });
    }
    if (got === 'EROFS') {
      return new AppError('permission_denied', `Flightdeck cannot write to ${path}: it is on a read-only file system. Choose a writable data folder (--data-dir) or remount it read-write.`, { path, reason: 'read-only file system' });
    }
  }
  return null;
}

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Runs the numbered migrations not yet applied, each in its own transaction with the
 * version bump, so a crash leaves the database at a clean version. A database written by a
 * newer Flightdeck is refused untouched.
 */
export function migrate(db: Database, migrations = MIGRATIONS): number {
  const latest = migrations.length;
  const current = schemaVersion(db);
  if (current > latest) {
    throw new AppError(
      'database_too_new',
      `This data folder was written by a newer Flightdeck (schema ${current}, this version knows ${latest}). Update Flightdeck or choose another data folder; nothing was changed.`,
      { current, latest },
    );
  }
  for (let v = current + 1; v <= latest; v++) {
    const step = migrations[v - 1]!;
    db.transaction(() => {
      // Another process (the CLI and the app starting together) may have applied it meanwhile:
      // the version is re-read under the write lock.
      if (schemaVersion(db) >= v) return;
      step(db);
      db.pragma(`user_version = ${v}`);
    }).immediate();
  }
  return latest;
}

/**
 * A write failure on a full or failing disk becomes the typed `disk_full` error naming the
 * data folder (and is recorded by the database's health watcher, which tells the user once).
 */
export function translateSqliteError(e: unknown, db?: Database): unknown {
  const health = db ? storageHealthOf(db) : null;
  if (health) return health.failed(e);
  if (e && typeof e === 'object' && (e as { code?: string }).code === 'SQLITE_FULL') {
    return new AppError('disk_full', 'The disk holding the Flightdeck data folder is full. Free some space; nothing already saved was lost.');
  }
  return e;
}
