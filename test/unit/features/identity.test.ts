/**
 * A state file's identity (scanner.ts identityOf), what a later list trusts instead of reading the
 * file again: none while the file may still change within its file system's clock tick (its racy
 * window: 50 ms on a local Linux file system, 3 s when both times are whole seconds, 2 s on a
 * network file system or another system), then device, inode, size and both times.
 */
import { statfsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { identityOf, racyMsOf, racyMsOfType } from '../../../src-main/features/scanner';
import { tempDir } from '../../support/temp';

const MS = 1_000_000n;
/** Stats of a file last changed at `ms` (ns precision unless `whole`), mtime and ctime alike. */
function stats(ms: number, o: { nsExtra?: bigint; ctimeMs?: number } = {}) {
  const m = BigInt(ms) * MS + (o.nsExtra ?? 0n);
  const c = BigInt(o.ctimeMs ?? ms) * MS + (o.nsExtra ?? 0n);
  return { dev: 1n, ino: 2n, size: 3n, mtimeMs: m / MS, ctimeMs: c / MS, mtimeNs: m, ctimeNs: c };
}

describe('a state file identity', () => {
  const at = Date.UTC(2026, 10, 27, 3, 0, 0, 123);
  it('has none within the racy window of a change, then one', () => {
    expect(identityOf(stats(at, { nsExtra: 456n }), at + 10, 50)).toBeNull();
    expect(identityOf(stats(at, { nsExtra: 456n }), at + 49, 50)).toBeNull();
    expect(identityOf(stats(at, { nsExtra: 456n }), at + 50, 50)).toBe(`1:2:3:${BigInt(at) * MS + 456n}:${BigInt(at) * MS + 456n}`);
    expect(identityOf(stats(at, { nsExtra: 456n }), at + 1_999, 2_000)).toBeNull();
    // A change of its inode's metadata (ctime) counts as much as one of its content.
    expect(identityOf(stats(at - 5_000, { nsExtra: 456n, ctimeMs: at }), at + 20, 50)).toBeNull();
  });

  it('the window: 50 ms on a local Linux file system, 2 s on a network one or elsewhere, 3 s when both times are whole seconds', () => {
    expect(racyMsOfType('linux', 0xef53)).toBe(50); // ext4
    expect(racyMsOfType('linux', 0x01021994)).toBe(50); // tmpfs
    expect(racyMsOfType('linux', 0x794c7630)).toBe(50); // overlayfs (a container's root)
    expect(racyMsOfType('linux', 0x6969)).toBe(2_000); // NFS: the server's clock sets the times
    expect(racyMsOfType('linux', 0xfe534d42)).toBe(2_000); // SMB2
    expect(racyMsOfType('linux', 0x65735546)).toBe(2_000); // FUSE
    expect(racyMsOfType('linux', null)).toBe(2_000);
    expect(racyMsOfType('darwin', 0xef53)).toBe(2_000);
    const whole = Date.UTC(2026, 10, 27, 3, 0, 0);
    expect(racyMsOf('/nowhere', { ...stats(whole), dev: 987654321n })).toBe(3_000);
    // One time with a fraction of a second: the file system's own window (an unknown device answers 2 s).
    expect(racyMsOf('/nowhere', { ...stats(whole, { ctimeMs: whole + 7 }), dev: 987654322n })).toBe(2_000);
  });

  it("a real file's window is its file system's", () => {
    const d = tempDir('fd-identity-');
    try {
      const file = join(d.path, 'state.yml');
      writeFileSync(file, 'status: planned\n');
      const st = statSync(file, { bigint: true });
      expect(racyMsOf(file, st)).toBe(racyMsOfType(process.platform, Number(statfsSync(file).type)));
    } finally {
      d.cleanup();
    }
  });
});
