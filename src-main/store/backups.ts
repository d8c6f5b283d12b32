import type BetterSqlite3 from 'better-sqlite3';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { AppError } from '../../src-preload/contract';
import { requireNative } from '../platform/native';
import type { Database } from './db';
import { quickCheck } from './integrity';

/** Automatic backups live next to the database, in the data folder the user already knows. */
export const BACKUP_DIR_NAME = 'backups';
/** Five daily copies reach back most of a working week: enough to get behind a damage noticed late. */
export const KEEP_BACKUPS = 5;
/** One backup a day: the database holds conversations and settings, not minute-by-minute work. */
export const BACKUP_INTERVAL_MS = 24 * 60 * 60 * 1000;

const NAME = /^flightdeck-(\d{8}T\d{6}\d{3}Z)\.db$/;

export interface BackupInfo {
  file: string;
  takenAt: number;
  bytes: number;
}

export function backupDir(dataDir: string): string {
  return join(dataDir, BACKUP_DIR_NAME);
}

function stamp(t: number): string {
  return new Date(t).toISOString().replace(/[-:.]/g, '');
}

function parseStamp(s: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z$/.exec(s);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, +m[7]!) : NaN;
}

/** The automatic backups, newest first. */
export function listBackups(dataDir: string): BackupInfo[] {
  const dir = backupDir(dataDir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    // No backup taken yet (or the folder cannot be read): there is simply nothing to offer.
    return [];
  }
  const out: BackupInfo[] = [];
  for (const n of names) {
    const m = NAME.exec(n);
    if (!m) continue;
    const takenAt = parseStamp(m[1]!);
    if (Number.isNaN(takenAt)) continue;
    try {
      out.push({ file: join(dir, n), takenAt, bytes: statSync(join(dir, n)).size });
    } catch {
      // Deleted between listing and stat: not a backup any more.
    }
  }
  return out.sort((a, b) => b.takenAt - a.takenAt);
}

export function backupDue(dataDir: string, now = Date.now()): boolean {
  const latest = listBackups(dataDir)[0];
  return !latest || now - latest.takenAt >= BACKUP_INTERVAL_MS || latest.takenAt > now;
}

/**
 * Copies the live database with SQLite's online backup API (consistent while others write),
 * checks the copy, makes it a single self-contained file, then keeps only the newest few.
 */
export async function takeBackup(db: Database, dataDir: string, now = Date.now()): Promise<BackupInfo> {
  const dir = backupDir(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `flightdeck-${stamp(now)}.db`);
  const partial = `${file}.partial`;
  rmSync(partial, { force: true });
  try {
    await db.backup(partial);
    const Sqlite = requireNative<typeof BetterSqlite3>('better-sqlite3');
    const copy = new Sqlite(partial);
    try {
      // One file, no -wal/-shm beside it: a backup must survive being copied around on its own.
      copy.pragma('journal_mode = DELETE');
      const check = quickCheck(copy, partial);
      if (!check.ok) throw new AppError('database_corrupt', `The backup copy failed its check: ${check.problems[0] ?? 'unknown problem'}`);
    } finally {
      copy.close();
    }
    renameSync(partial, file);
  } catch (e) {
    rmSync(partial, { force: true });
    throw e;
  }
  for (const old of listBackups(dataDir).slice(KEEP_BACKUPS)) rmSync(old.file, { force: true });
  return { file, takenAt: now, bytes: statSync(file).size };
}

export interface RestoreResult {
  restoredFrom: string;
  /** Where the replaced (damaged) database was kept. */
  keptAs: string;
}

/**
 * Replaces the database at `dbPath` with a backup. The replaced file (with its -wal) is kept
 * beside it as `<name>.replaced-<time>`. The copy goes through the backup API into the existing
 * file, so a running Flightdeck holding it open sees the restored content; a file whose header
 * is unreadable is moved aside instead and the backup becomes a new file.
 */
export async function restoreBackup(dbPath: string, backupFile: string, now = Date.now()): Promise<RestoreResult> {
  if (!existsSync(backupFile)) throw new AppError('not_found', `There is no backup at ${backupFile}.`, { path: backupFile });
  const Sqlite = requireNative<typeof BetterSqlite3>('better-sqlite3');
  let src: Database;
  try {
    src = new Sqlite(backupFile, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new AppError('database_corrupt', `${backupFile} cannot be opened as a database (${e instanceof Error ? e.message : String(e)}).`, { path: backupFile });
  }
  try {
    const check = quickCheck(src, backupFile);
    if (!check.ok) throw new AppError('database_corrupt', `The backup ${backupFile} is damaged too (${check.problems[0] ?? 'failed its check'}); pick another one.`, { path: backupFile });
    const keptAs = `${dbPath}.replaced-${stamp(now)}`;
    if (existsSync(dbPath)) {
      copyFileSync(dbPath, keptAs);
      if (existsSync(`${dbPath}-wal`)) copyFileSync(`${dbPath}-wal`, `${keptAs}-wal`);
    }
    try {
      await src.backup(dbPath);
    } catch (e) {
      const code = String((e as { code?: unknown }).code ?? '');
      if (code !== 'SQLITE_NOTADB' && !code.startsWith('SQLITE_CORRUPT')) throw e;
      // The damaged header cannot even be written over through SQLite: move it out of the way.
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbPath}${suffix}`, { force: true });
      await src.backup(dbPath);
    }
    return { restoredFrom: backupFile, keptAs: existsSync(keptAs) ? keptAs : '' };
  } finally {
    src.close();
  }
}

/**
 * A backup named by the user: a path, or a file name inside the backups folder. With
 * `automaticOnly` (requests from a window) only the automatic backups can be named: a page must
 * not be able to make any SQLite file on the machine the database.
 */
export function resolveBackup(dataDir: string, which: string | undefined, opts: { automaticOnly?: boolean } = {}): BackupInfo {
  const all = listBackups(dataDir);
  if (!which || which === 'latest') {
    const latest = all[0];
    if (!latest) throw new AppError('not_found', `There is no automatic backup in ${backupDir(dataDir)} yet.`, { dir: backupDir(dataDir) });
    return latest;
  }
  const byName = all.find((b) => b.file === which || basename(b.file) === which);
  if (byName) return byName;
  if (opts.automaticOnly) throw new AppError('not_found', `${which} is not one of the automatic backups in ${backupDir(dataDir)}.`, { path: which });
  if (existsSync(which)) return { file: which, takenAt: statSync(which).mtimeMs, bytes: statSync(which).size };
  throw new AppError('not_found', `There is no backup ${which} (the automatic ones are in ${backupDir(dataDir)}).`, { path: which });
}
