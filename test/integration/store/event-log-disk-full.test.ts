/**
 * The event log's retry on a full disk, bounded in memory. A real SQLITE_FULL is produced by
 * capping the database's size (`PRAGMA max_page_count`): SQLite refuses to grow the file exactly
 * as it does when the disk has no room. The tmpfs test (disk-full.test.ts) covers the whole host.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../src-main/store/db';
import { EventLog, GAP_EVENT_TYPE } from '../../../src-main/store/event-log';
import { storageHealthOf, type StorageNotice } from '../../../src-main/store/storage-health';
import { tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function freshDb(): { db: Database; dir: string } {
  const d = tempDir('fd-events-full-');
  const db = openDatabase(join(d.path, 'flightdeck.db'));
  cleanups.push(() => {
    db.close();
    d.cleanup();
  });
  return { db, dir: d.path };
}

function fillUp(db: Database): void {
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
}

function makeRoom(db: Database): void {
  db.pragma('max_page_count = 1073741823');
}

async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('EventLog on a full disk', () => {
  it('keeps events in order, bounded in memory, retries until space returns, and records what it could not keep', async () => {
    const { db, dir } = freshDb();
    const notices: StorageNotice[] = [];
    const health = storageHealthOf(db)!;
    let failures = 0;
    const persisted: number[] = [];
    const log = new EventLog(db, { droppable: (type) => type === 'chunk', flushDelayMs: 5, maxPendingBytes: 50_000, retryBaseMs: 20, retryMaxMs: 80, onError: () => failures++, onPersisted: (b) => persisted.push(b.length) });
    health.configure({ notify: (n) => notices.push(n), pendingElsewhere: () => log.pending });
    cleanups.unshift(() => log.dispose());
    fillUp(db);
    const payload = (i: number) => ({ i, text: 'x'.repeat(200) });
    // Appends go through until the capped file has no free slot left: then the flush fails.
    let next = 0;
    while (failures === 0 && next < 10_000) {
      log.append('run', 'chunk', payload(next++));
      await log.whenFlushed().catch(() => undefined);
    }
    expect(log.isFailing).toBe(true);
    const savedBefore = persisted.reduce((a, b) => a + b, 0);
    expect(savedBefore).toBe(next - 1);
    // While writes fail, a command printing without end fills memory only up to the bound.
    const burst = 1_000;
    for (let i = 0; i < burst; i++) log.append('run', 'chunk', payload(next + i));
    expect(log.pendingSize).toBeLessThanOrEqual(50_000);
    expect(log.pending).toBeGreaterThan(100);
    expect(log.pending).toBeLessThan(burst);
    const kept = log.pending;
    // The end of the turn is not bulk: it is kept past the bound.
    log.append('run', 'turn.ended', { outcome: 'completed' });
    expect(log.pending).toBe(kept + 1);
    await until('a few retries', () => failures >= 3);
    expect(health.state).toBe('disk_full');
    expect(notices.filter((n) => n.level === 'warning')).toHaveLength(1);
    expect(notices[0]!.message).toContain(`The disk holding ${dir} is full`);
    expect(persisted.reduce((a, b) => a + b, 0)).toBe(savedBefore);

    makeRoom(db);
    await until('the retry to save everything', () => !log.isFailing && log.pending === 0);
    const stored = log.read<{ i?: number; events?: number }>('run');
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i + 1));
    const chunks = stored.filter((e) => e.type === 'chunk');
    expect(chunks.map((e) => e.payload.i)).toEqual(Array.from({ length: savedBefore + kept }, (_, i) => i));
    const gap = stored.find((e) => e.type === GAP_EVENT_TYPE);
    expect(gap?.payload.events).toBe(next + burst - savedBefore - kept);
    expect(gap!.seq).toBe(savedBefore + kept + 2);
    expect(stored.find((e) => e.type === 'turn.ended')?.seq).toBe(savedBefore + kept + 1);
    await until('the all-saved notice', () => health.state === 'ok');
    expect(notices.filter((n) => n.level === 'success')).toHaveLength(1);

    // Back to normal: a new event is numbered after the gap and written at once.
    log.append('run', 'chunk', payload(5_000));
    await log.whenFlushed();
    expect(log.lastSeq('run')).toBe(savedBefore + kept + 3);
  }, 60_000);

  it('keeps nothing back when the disk has room', async () => {
    const { db } = freshDb();
    const log = new EventLog(db, { flushDelayMs: 5, maxPendingBytes: 1_000 });
    cleanups.unshift(() => log.dispose());
    for (let i = 0; i < 500; i++) log.append('run', 'chunk', { i, text: 'y'.repeat(100) });
    await log.whenFlushed();
    expect(log.read('run').filter((e) => e.type === 'chunk')).toHaveLength(500);
    expect(log.read('run').some((e) => e.type === GAP_EVENT_TYPE)).toBe(false);
  });
});
