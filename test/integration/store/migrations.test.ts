import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import type BetterSqlite3 from 'better-sqlite3';
import { AppError } from '../../../src-preload/contract';
import { migrate, openDatabase, schemaVersion } from '../../../src-main/store/db';
import { MIGRATIONS } from '../../../src-main/store/migrations';
import { tempDir } from '../../support/temp';

const Sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));
function dbFile(): string {
  const d = tempDir('fd-db-');
  cleanups.push(d.cleanup);
  return join(d.path, 'flightdeck.db');
}

describe('migrations on a real file', () => {
  it('creates a fresh database at the latest version, in WAL with foreign keys', () => {
    const file = dbFile();
    const db = openDatabase(file);
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBeGreaterThan(0);
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type='table'").all() as Array<{ name: string }>).map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(['projects', 'settings', 'events']));
    db.close();
    // Opening again is a no-op.
    const again = openDatabase(file);
    expect(schemaVersion(again)).toBe(MIGRATIONS.length);
    again.close();
  });

  it('upgrades an older database step by step and keeps its data', () => {
    const file = dbFile();
    const db = new Sqlite(file);
    migrate(db, [MIGRATIONS[0]!]);
    db.prepare('INSERT INTO projects (id, name, path, added_at) VALUES (?, ?, ?, ?)').run('proj-001', 'app', '/x/app', 1);
    const v2 = (d: BetterSqlite3.Database) => d.exec('ALTER TABLE projects ADD COLUMN color TEXT');
    const v3 = (d: BetterSqlite3.Database) => d.exec("UPDATE projects SET color = 'blue'");
    expect(migrate(db, [MIGRATIONS[0]!, v2, v3])).toBe(3);
    expect(schemaVersion(db)).toBe(3);
    expect(db.prepare('SELECT name, color FROM projects').get()).toEqual({ name: 'app', color: 'blue' });
    db.close();
  });

  it('two processes starting together on an old database do not apply a migration twice', () => {
    const file = dbFile();
    const a = new Sqlite(file);
    const b = new Sqlite(file);
    // b has read version 0; a migrates everything before b takes the write lock.
    let raced = false;
    const racing = new Proxy([...MIGRATIONS], {
      get(target, prop, receiver) {
        if (prop === '0' && !raced) {
          raced = true;
          migrate(a);
        }
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
    expect(() => migrate(b, racing)).not.toThrow();
    expect(raced).toBe(true);
    expect(schemaVersion(b)).toBe(MIGRATIONS.length);
    a.close();
    b.close();
  });

  it('rolls a failing migration back completely and stays at the previous version', () => {
    const file = dbFile();
    const db = new Sqlite(file);
    migrate(db, [MIGRATIONS[0]!]);
    const broken = (d: BetterSqlite3.Database) => {
      d.exec('CREATE TABLE half_done (x INTEGER)');
      throw new Error('migration bug');
    };
    expect(() => migrate(db, [MIGRATIONS[0]!, broken])).toThrow('migration bug');
    expect(schemaVersion(db)).toBe(1);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'half_done'").get()).toEqual({ n: 0 });
    db.close();
  });

  it('refuses a database from a newer Flightdeck and leaves it untouched', () => {
    const file = dbFile();
    const db = openDatabase(file);
    db.pragma(`user_version = ${MIGRATIONS.length + 5}`);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const before = readFileSync(file);
    let error: unknown;
    try {
      openDatabase(file);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('database_too_new');
    expect((error as AppError).message).toMatch(/newer Flightdeck/);
    expect(readFileSync(file).equals(before)).toBe(true);
    const check = new Sqlite(file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length + 5);
    check.close();
  });
});
