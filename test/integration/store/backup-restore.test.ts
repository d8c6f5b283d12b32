/**
 * Damaged pages are found at start (not later, as "database disk image is malformed" in the
 * middle of work), the file is kept, and the latest automatic backup can be restored — from the
 * running app (the contract channel the UI's button calls) or from the CLI when the app cannot
 * even start. Backups are taken with SQLite's online backup API and rotate.
 */
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { BridgeErrorShape, StorageStatus } from '../../../src-preload/contract';
import { AppServices } from '../../../src-main/app/services';
import { runCli } from '../../../src-main/cli/main';
import { silentLogger } from '../../../src-main/platform/logger';
import { KEEP_BACKUPS, listBackups } from '../../../src-main/store/backups';
import { databasePath, openDatabase } from '../../../src-main/store/db';
import { quickCheck } from '../../../src-main/store/integrity';
import { tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

const DAY = 24 * 60 * 60 * 1000;
const ctx = { origin: 'test' as const, connectionId: 't' };

async function open(dataDir: string): Promise<AppServices> {
  const app = await AppServices.create({ dataDir, logger: silentLogger, platform: { runtime: 'browser' } });
  // As the window and browser mode do when they start.
  app.checkIntegrity();
  cleanups.unshift(() => app.dispose());
  return app;
}

function data(): string {
  const d = tempDir('fd-backup-');
  cleanups.push(() => d.cleanup());
  return d.path;
}

/** Enough rows that the events table spans many pages; returns one of its leaf pages. */
function fillEvents(app: AppServices, rows: number): void {
  for (let i = 0; i < rows; i++) app.events.append('run-fill', 'note', { i, text: `row ${i} `.repeat(8) });
  app.events.flush();
}

/** Writes garbage into the middle of a page that belongs to the events table (not page 1). */
function corruptEventsPage(dbFile: string, pageSize: number, page: number): void {
  const fd = openSync(dbFile, 'r+');
  try {
    writeSync(fd, Buffer.alloc(300, 0xa5), 0, 300, (page - 1) * pageSize + 40);
  } finally {
    closeSync(fd);
  }
}

function call(app: AppServices, channel: string, payload: unknown) {
  return app.router.dispatch(channel, payload, ctx) as Promise<{ ok: true; value: unknown } | { ok: false; error: BridgeErrorShape }>;
}

describe('automatic backups', () => {
  it('are taken with the online backup API, are self-contained files, and rotate (newest kept)', async () => {
    const dir = data();
    const app = await open(dir);
    fillEvents(app, 50);
    const t0 = Date.UTC(2026, 0, 10, 9, 0, 0);
    const first = await app.backupIfDue(t0);
    expect(first).not.toBeNull();
    // Taken today already: not due again an hour later.
    expect(await app.backupIfDue(t0 + 3_600_000)).toBeNull();
    for (let d = 1; d <= 6; d++) await app.backupIfDue(t0 + d * DAY);
    const list = listBackups(dir);
    expect(list).toHaveLength(KEEP_BACKUPS);
    expect(list.map((b) => b.takenAt)).toEqual([6, 5, 4, 3, 2].map((d) => t0 + d * DAY));
    expect(existsSync(first!.file)).toBe(false);
    // A backup is one file (no -wal beside it) and a valid SQLite database.
    for (const b of list) {
      expect(existsSync(`${b.file}-wal`)).toBe(false);
      expect(readFileSync(b.file).subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
    }
    const status = (await call(app, 'app.storage', {})) as { ok: true; value: StorageStatus };
    expect(status.value.backups.map((b) => b.file)).toEqual(list.map((b) => b.file));
  }, 60_000);
});

describe('a damaged database', () => {
  it('is reported at start with its path, kept, and restored from the latest backup through the contract channel', async () => {
    const dir = data();
    const dbFile = databasePath(dir);
    let app = await open(dir);
    await app.router.dispatch('settings.update', { terminalFontSize: 17 }, ctx);
    fillEvents(app, 2_000);
    await app.backupNow();
    await app.router.dispatch('settings.update', { terminalFontSize: 21 }, ctx);
    const pageSize = app.db.pragma('page_size', { simple: true }) as number;
    // A page in the middle of the events table's b-tree (its root's first child and beyond).
    const pages = app.db.prepare("SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' ORDER BY pageno").all() as Array<{ pageno: number }>;
    expect(pages.length).toBeGreaterThan(10);
    const victim = pages[Math.floor(pages.length / 2)]!.pageno;
    app.dispose();
    corruptEventsPage(dbFile, pageSize, victim);
    const damagedBytes = readFileSync(dbFile);

    // A short-lived app (a CLI command) does not read the whole file at start; the hosts' check finds the damage.
    const cli = await AppServices.create({ dataDir: dir, logger: silentLogger, platform: { runtime: 'browser' } });
    expect(cli.integrity.checkedAt).toBe(0);
    cli.dispose();
    app = await open(dir);
    expect(app.integrity.ok).toBe(false);
    const status = (await call(app, 'app.storage', {})) as { ok: true; value: StorageStatus };
    expect(status.value.integrity).toBe('damaged');
    expect(status.value.dbPath).toBe(dbFile);
    expect(status.value.integrityProblems.join('\n')).toMatch(/page/i);
    expect(status.value.backups).toHaveLength(1);
    // Nothing was changed or taken over the damaged file: no backup of it, the bytes are the same.
    expect(await app.backupIfDue(Date.now() + 2 * DAY)).toBeNull();

    // A window may name only an automatic backup, never any file on the machine.
    const foreign = await call(app, 'app.storage.restore', { file: dbFile });
    expect(foreign.ok).toBe(false);
    expect(!foreign.ok && foreign.error.code).toBe('not_found');
    const restored = await call(app, 'app.storage.restore', {});
    expect(restored.ok).toBe(true);
    const { keptAs } = (restored as { ok: true; value: { keptAs: string } }).value;
    expect(readFileSync(keptAs).equals(damagedBytes)).toBe(true);
    // The running app reads the restored data at once: the value at backup time, and a clean check.
    expect(app.settings.get().terminalFontSize).toBe(17);
    expect(app.db.pragma('quick_check', { simple: true })).toBe('ok');
    expect(app.events.read('run-fill', 1, 10_000)).toHaveLength(2_000);
    expect(app.storageStatus().integrity).toBe('ok');
    app.dispose();
    app = await open(dir);
    expect(app.integrity.ok).toBe(true);
    expect(app.settings.get().terminalFontSize).toBe(17);
  }, 60_000);

  it('with a damaged header stops the start with a message naming the file; the CLI restores the backup', async () => {
    const dir = data();
    const dbFile = databasePath(dir);
    const app = await open(dir);
    await app.router.dispatch('settings.update', { terminalFontSize: 19 }, ctx);
    await app.backupNow();
    app.dispose();
    const fd = openSync(dbFile, 'r+');
    writeSync(fd, Buffer.from('this is not a database header at all'), 0, 36, 0);
    closeSync(fd);

    const failed = await AppServices.create({ dataDir: dir, logger: silentLogger, platform: { runtime: 'browser' } }).then(
      () => null,
      (e: unknown) => e as { code: string; message: string },
    );
    expect(failed?.code).toBe('database_corrupt');
    expect(failed?.message).toContain(dbFile);
    expect(failed?.message).toContain('flightdeck db restore --latest');

    const out: string[] = [];
    const err: string[] = [];
    const check = await runCli(['db', 'check', '--data-dir', dir], { out: (l) => out.push(l), err: (l) => err.push(l) });
    expect(check).toBe(1);
    expect(err.join('\n')).toContain(dbFile);

    const code = await runCli(['db', 'restore', '--latest', '--data-dir', dir], { out: (l) => out.push(l), err: (l) => err.push(l) });
    expect(err.slice(1)).toEqual([]);
    expect(code).toBe(0);
    expect(out.join('\n')).toContain('Restored');
    const kept = out.join('\n').match(/kept at (\S+)\.$/m)?.[1];
    expect(kept && readFileSync(kept).subarray(0, 36).toString()).toBe('this is not a database header at all');

    const again = await open(dir);
    expect(again.integrity.ok).toBe(true);
    expect(again.settings.get().terminalFontSize).toBe(19);
  }, 60_000);
});

describe('the start-up check of a big database', () => {
  it('goes table by table within its time budget, says when it stopped early, and still finds damage', async () => {
    const dir = data();
    const dbFile = databasePath(dir);
    const app = await open(dir);
    fillEvents(app, 2_000);
    const pageSize = app.db.pragma('page_size', { simple: true }) as number;
    const pages = app.db.prepare("SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' ORDER BY pageno").all() as Array<{ pageno: number }>;
    app.dispose();
    corruptEventsPage(dbFile, pageSize, pages[Math.floor(pages.length / 2)]!.pageno);
    const db = openDatabase(dbFile);
    cleanups.unshift(() => db.close());
    // Treated as big (whole-file limit 0): a clock that jumps a second per reading runs out after the first tables.
    let t = 0;
    const partial = quickCheck(db, dbFile, { wholeMaxBytes: 0, budgetMs: 1_500, now: () => (t += 1_000) });
    expect(partial.complete).toBe(false);
    const full = quickCheck(db, dbFile, { wholeMaxBytes: 0, budgetMs: Number.POSITIVE_INFINITY });
    expect(full.complete).toBe(true);
    expect(full.ok).toBe(false);
    expect(full.problems.length).toBeGreaterThan(0);
  }, 60_000);
});
