import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../src-main/store/db';
import { EventLog, type StoredEvent } from '../../../src-main/store/event-log';
import { tempDir } from '../../support/temp';

const run = promisify(execFile);
const root = join(__dirname, '..', '..', '..');
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function freshDb(): { db: Database; file: string } {
  const d = tempDir('fd-events-');
  const file = join(d.path, 'flightdeck.db');
  const db = openDatabase(file);
  cleanups.push(() => {
    db.close();
    d.cleanup();
  });
  return { db, file };
}

describe('EventLog', () => {
  it('batches appends into one transaction per flush and numbers each run from 1', async () => {
    const { db } = freshDb();
    const batches: StoredEvent[][] = [];
    const log = new EventLog(db, { flushDelayMs: 5, onPersisted: (b) => batches.push([...b]) });
    for (let i = 0; i < 10; i++) log.append('run-a', 'text.delta', { i });
    log.append('run-b', 'status', { s: 'running' });
    expect(log.read('run-a')).toHaveLength(0);
    await log.whenFlushed();
    expect(batches).toHaveLength(1);
    expect(batches[0]!.filter((e) => e.runId === 'run-a').map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(batches[0]!.find((e) => e.runId === 'run-b')?.seq).toBe(1);
    log.dispose();
  });

  it('flushes at the batch cap and replays a run from any sequence number', () => {
    const { db } = freshDb();
    let flushes = 0;
    const log = new EventLog(db, { maxBatch: 100, flushDelayMs: 10_000, onPersisted: () => flushes++ });
    for (let i = 0; i < 250; i++) log.append('run', 'tick', { i });
    expect(flushes).toBe(2);
    log.flush();
    expect(flushes).toBe(3);
    const tail = log.read<{ i: number }>('run', 240);
    expect(tail.map((e) => e.seq)).toEqual([240, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250]);
    expect(tail[0]!.payload).toEqual({ i: 239 });
    expect(log.lastSeq('run')).toBe(250);
    log.dispose();
  });

  it('keeps numbering after a restart', () => {
    const { db } = freshDb();
    const a = new EventLog(db);
    a.append('run', 'x', 1);
    a.append('run', 'x', 2);
    a.dispose();
    const b = new EventLog(db);
    b.append('run', 'x', 3);
    b.flush();
    expect(b.read('run').map((e) => [e.seq, e.payload])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    b.dispose();
  });

  it('accepts appends made while a batch is being delivered', () => {
    const { db } = freshDb();
    const log: EventLog = new EventLog(db, {
      flushDelayMs: 10_000,
      onPersisted: (batch) => {
        if (batch.some((e) => e.type === 'first')) log.append('run', 'echo', {});
      },
    });
    log.append('run', 'first', {});
    log.flush();
    log.flush();
    expect(log.read('run').map((e) => e.type)).toEqual(['first', 'echo']);
    log.dispose();
  });

  it('loses nothing when a flush fails, and writes the batch in order once it can', () => {
    const { db } = freshDb();
    db.exec("CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.type = 'poison' BEGIN SELECT RAISE(ABORT, 'simulated failure'); END");
    const errors: unknown[] = [];
    const log = new EventLog(db, { flushDelayMs: 10_000, onError: (e) => errors.push(e) });
    log.append('run', 'ok', 1);
    log.append('run', 'poison', 2);
    log.append('run', 'ok', 3);
    expect(log.flush()).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(log.pending).toBe(3);
    expect(log.read('run')).toHaveLength(0);
    db.exec('DROP TRIGGER refuse');
    log.append('run', 'ok', 4);
    log.flush();
    expect(log.read('run').map((e) => [e.seq, e.payload])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 4],
    ]);
    log.dispose();
  });

  it('refuses a payload JSON cannot hold at append, without harming other events', () => {
    const { db } = freshDb();
    const log = new EventLog(db, { flushDelayMs: 10_000 });
    log.append('run', 'ok', 1);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => log.append('run', 'bad', cyclic)).toThrow();
    expect(() => log.append('run', 'bad', { n: 1n })).toThrow();
    log.append('run', 'ok', 2);
    log.flush();
    expect(log.read('run').map((e) => e.payload)).toEqual([1, 2]);
    log.dispose();
  });

  it('rejects whenFlushed when the write fails', async () => {
    const { db } = freshDb();
    db.exec("CREATE TRIGGER refuse BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'nope'); END");
    const log = new EventLog(db, { onError: () => {} });
    log.append('run', 'x', {});
    await expect(log.whenFlushed()).rejects.toThrow('nope');
    db.exec('DROP TRIGGER refuse');
    log.dispose();
    expect(log.read('run')).toHaveLength(1);
  });

  it('never collides when two processes flush to the same run at once', async () => {
    const { db, file } = freshDb();
    const N = 400;
    const tsx = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
    const script = join(__dirname, 'fixtures', 'event-writer.ts');
    await Promise.all(['A', 'B'].map((w) => run(process.execPath, [tsx, script, file, 'shared-run', w, String(N)], { cwd: root })));
    const log = new EventLog(db);
    const events = log.read<{ writer: string; i: number }>('shared-run');
    expect(events).toHaveLength(2 * N);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 2 * N }, (_, i) => i + 1));
    for (const w of ['A', 'B']) {
      // Each writer's own events keep their order.
      expect(events.filter((e) => e.payload.writer === w).map((e) => e.payload.i)).toEqual(Array.from({ length: N }, (_, i) => i));
    }
    log.dispose();
  }, 60_000);
});
