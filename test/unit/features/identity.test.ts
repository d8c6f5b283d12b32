/**
 * A state file's identity (scanner.ts identityOf), what a later list trusts instead of reading the
 * file again: none while the file may still change within its file system's clock tick (50 ms
 * with fine times, 3 s when both times are whole seconds: FAT, exFAT, HFS+), then device, inode,
 * size and both times.
 */
import { describe, expect, it } from 'vitest';
import { identityOf } from '../../../src-main/features/scanner';

const MS = 1_000_000n;
/** Stats of a file last changed at `ms` (ns precision unless `whole`), mtime and ctime alike. */
function stats(ms: number, o: { nsExtra?: bigint; ctimeMs?: number } = {}) {
  const m = BigInt(ms) * MS + (o.nsExtra ?? 0n);
  const c = BigInt(o.ctimeMs ?? ms) * MS + (o.nsExtra ?? 0n);
  return { dev: 1n, ino: 2n, size: 3n, mtimeMs: m / MS, ctimeMs: c / MS, mtimeNs: m, ctimeNs: c };
}

describe('a state file identity', () => {
  const at = Date.UTC(2026, 10, 27, 3, 0, 0, 123);
  it('has none within 50 ms of a change on a file system with fine times, then one', () => {
    expect(identityOf(stats(at, { nsExtra: 456n }), at + 10)).toBeNull();
    expect(identityOf(stats(at, { nsExtra: 456n }), at + 49)).toBeNull();
    expect(identityOf(stats(at, { nsExtra: 456n }), at + 50)).toBe(`1:2:3:${BigInt(at) * MS + 456n}:${BigInt(at) * MS + 456n}`);
    // A change of its inode's metadata (ctime) counts as much as one of its content.
    expect(identityOf(stats(at - 5_000, { nsExtra: 456n, ctimeMs: at }), at + 20)).toBeNull();
  });

  it('has none for 3 s when both times are whole seconds (a file system with a coarse clock)', () => {
    const whole = Date.UTC(2026, 10, 27, 3, 0, 0);
    expect(identityOf(stats(whole), whole + 50)).toBeNull();
    expect(identityOf(stats(whole), whole + 2_999)).toBeNull();
    expect(identityOf(stats(whole), whole + 3_000)).not.toBeNull();
    // One time with a fraction of a second: the file system keeps fine times.
    expect(identityOf(stats(whole, { ctimeMs: whole + 7 }), whole + 100)).not.toBeNull();
  });
});
