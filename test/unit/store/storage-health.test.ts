import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import { StorageHealth, storageProblem, type StorageNotice } from '../../../src-main/store/storage-health';

/** What better-sqlite3 and node:fs throw: an Error with a string `code`. */
function failure(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

afterEach(() => vi.useRealTimers());

describe('storageProblem', () => {
  it('knows a full disk and a failing one from every other error', () => {
    expect(storageProblem(failure('SQLITE_FULL'))).toBe('disk_full');
    expect(storageProblem(failure('ENOSPC'))).toBe('disk_full');
    expect(storageProblem(failure('EDQUOT'))).toBe('disk_full');
    expect(storageProblem(failure('SQLITE_IOERR_WRITE'))).toBe('failing');
    expect(storageProblem(failure('SQLITE_IOERR_FSYNC'))).toBe('failing');
    expect(storageProblem(failure('SQLITE_READONLY'))).toBe('failing');
    expect(storageProblem(failure('EROFS'))).toBe('failing');
    expect(storageProblem(failure('SQLITE_CONSTRAINT_UNIQUE'))).toBeNull();
    expect(storageProblem(failure('SQLITE_BUSY'))).toBeNull();
    expect(storageProblem(new Error('plain'))).toBeNull();
    expect(storageProblem(null)).toBeNull();
    expect(storageProblem(new AppError('disk_full', 'x'))).toBe('disk_full');
    expect(storageProblem(new AppError('conflict', 'x'))).toBeNull();
  });
});

describe('StorageHealth', () => {
  it('keeps refused writes in order, tells the user once, retries with backoff and says when all is saved', () => {
    vi.useFakeTimers();
    const notices: StorageNotice[] = [];
    const h = new StorageHealth('/data/folder', { notify: (n) => notices.push(n), retryBaseMs: 100, retryMaxMs: 400 });
    let full = true;
    const written: number[] = [];
    const write = (n: number) => () => {
      if (full) throw failure('SQLITE_FULL', 'database or disk is full');
      written.push(n);
    };
    expect(h.write('a', write(1))).toBe(false);
    expect(h.write('b', write(2))).toBe(false);
    // Once something waits, later writes queue behind it even if they could go through: order is kept.
    full = false;
    expect(h.write('c', write(3))).toBe(false);
    full = true;
    expect(h.keptWrites).toBe(3);
    expect(h.state).toBe('disk_full');
    expect(h.message).toContain('The disk holding /data/folder is full');
    for (let i = 0; i < 20; i++) vi.advanceTimersByTime(400);
    expect(notices).toHaveLength(1);
    expect(notices[0]!.level).toBe('warning');
    expect(written).toEqual([]);

    full = false;
    vi.advanceTimersByTime(400);
    expect(written).toEqual([1, 2, 3]);
    expect(h.state).toBe('ok');
    expect(notices.map((n) => n.level)).toEqual(['warning', 'success']);
    // Written directly again once all is well.
    expect(h.write('d', write(4))).toBe(true);
    expect(written).toEqual([1, 2, 3, 4]);
    h.dispose();
  });

  it('answers a typed disk_full naming the folder, and lets other errors through unchanged', () => {
    const h = new StorageHealth('/data/folder');
    const typed = h.failed(failure('SQLITE_FULL'));
    expect(typed).toBeInstanceOf(AppError);
    expect((typed as AppError).code).toBe('disk_full');
    expect((typed as AppError).message).toContain('/data/folder');
    const other = failure('SQLITE_CONSTRAINT');
    expect(h.failed(other)).toBe(other);
    expect(() => h.write('x', () => {
      throw other;
    })).toThrow(other);
    h.dispose();
  });

  it('does not let a new write overtake kept ones: requireWritable saves them first or refuses', () => {
    const h = new StorageHealth('/d');
    let full = true;
    const written: string[] = [];
    h.write('end of turn', () => {
      if (full) throw failure('ENOSPC');
      written.push('end');
    });
    expect(() => h.requireWritable()).toThrow(/is full/);
    full = false;
    h.requireWritable();
    expect(written).toEqual(['end']);
    h.dispose();
  });

  it('waits for other holders of unsaved work before saying all is saved', () => {
    const notices: StorageNotice[] = [];
    let elsewhere = 5;
    const h = new StorageHealth('/d', { notify: (n) => notices.push(n), pendingElsewhere: () => elsewhere });
    h.failed(failure('SQLITE_FULL'));
    h.succeeded();
    expect(h.state).toBe('disk_full');
    elsewhere = 0;
    h.succeeded();
    expect(h.state).toBe('ok');
    expect(notices.map((n) => n.level)).toEqual(['warning', 'success']);
    h.dispose();
  });

  it('a disk flapping at the edge raises one toast per quiet period, not one per episode', () => {
    const notices: StorageNotice[] = [];
    let t = 0;
    const h = new StorageHealth('/d', { notify: (n) => notices.push(n), now: () => t });
    for (let i = 0; i < 50; i++) {
      t += 1_000;
      h.failed(failure('SQLITE_FULL'));
      h.succeeded();
    }
    expect(notices.map((n) => n.level)).toEqual(['warning', 'success']);
    t += 10 * 60 * 1000;
    h.failed(failure('SQLITE_FULL'));
    expect(notices.map((n) => n.level)).toEqual(['warning', 'success', 'warning']);
    h.dispose();
  });

  it('with nothing kept (only a refused request), probes the disk until it takes writes, then ends the episode', () => {
    vi.useFakeTimers();
    const notices: StorageNotice[] = [];
    let full = true;
    let probes = 0;
    const h = new StorageHealth('/d', {
      notify: (n) => notices.push(n),
      retryBaseMs: 100,
      retryMaxMs: 100,
      probe: () => {
        probes++;
        if (full) throw failure('SQLITE_FULL');
      },
    });
    h.failed(failure('SQLITE_FULL'));
    vi.advanceTimersByTime(1_000);
    expect(probes).toBeGreaterThanOrEqual(5);
    expect(h.state).toBe('disk_full');
    full = false;
    vi.advanceTimersByTime(100);
    expect(h.state).toBe('ok');
    expect(notices.map((n) => n.level)).toEqual(['warning', 'success']);
    const after = probes;
    vi.advanceTimersByTime(1_000);
    expect(probes).toBe(after);
    h.dispose();
  });
});
