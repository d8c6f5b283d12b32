import type BetterSqlite3 from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { AppError } from '../../src-preload/contract';
import { requireNative } from '../platform/native';
import { MIGRATIONS } from './migrations';

export type Database = BetterSqlite3.Database;

/** How long a writer waits on a lock held by another connection (the CLI, a second window). */
const BUSY_TIMEOUT_MS = 5_000;

export function openDatabase(file: string): Database {
  mkdirSync(dirname(file), { recursive: true });
  const Sqlite = requireNative<typeof BetterSqlite3>('better-sqlite3');
  const db = new Sqlite(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    migrate(db);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
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

/** SQLITE_FULL becomes a message the user can act on instead of a raw driver error. */
export function translateSqliteError(e: unknown): unknown {
  if (e && typeof e === 'object' && (e as { code?: string }).code === 'SQLITE_FULL') {
    return new AppError('disk_full', 'The disk holding the Flightdeck data folder is full. Free some space; nothing already saved was lost.');
  }
  return e;
}
