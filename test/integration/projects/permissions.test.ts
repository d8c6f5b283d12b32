/**
 * Folders and files the operating system refuses must be named with the reason, "permission
 * denied" or "read-only file system", never "run git init" or "spawn git EACCES".
 *
 * Tests run as root, and root ignores file modes. So the permission cases run in a child
 * process as the unprivileged `nobody` user (runuser), against real files with real modes; the
 * read-only case uses a tmpfs remounted read-only, which binds root too.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AppServices } from '../../../src-main/app/services';
import { silentLogger } from '../../../src-main/platform/logger';
import { openDatabase } from '../../../src-main/store/db';
import { makeRepo } from '../../support/temp';

const root = join(__dirname, '..', '..', '..');
const NOBODY = 65534;
const cleanups: Array<() => void> = [];
afterAll(() => cleanups.splice(0).reverse().forEach((c) => c()));

function chownTree(path: string): void {
  execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, path]);
}

describe('permission denied, as an unprivileged user sees it', () => {
  it('names the path and the reason for the database, the data folder, and repositories (added or made unreadable later)', () => {
    const base = mkdtempSync(join(tmpdir(), 'fd-perm-'));
    cleanups.push(() => rmSync(base, { recursive: true, force: true }));
    chmodSync(base, 0o755);

    // A database file the user cannot read (in a folder the user owns).
    const unreadableDbDir = join(base, 'data-db');
    mkdirSync(unreadableDbDir);
    openDatabase(join(unreadableDbDir, 'flightdeck.db')).close();
    chownTree(unreadableDbDir);
    chmodSync(join(unreadableDbDir, 'flightdeck.db'), 0o000);
    // A data folder owned by someone else (root), read-only for the user.
    const readOnlyDataDir = join(base, 'data-ro');
    mkdirSync(readOnlyDataDir, { mode: 0o755 });
    const scratchDataDir = join(base, 'data-ok');
    mkdirSync(scratchDataDir);
    chownTree(scratchDataDir);

    const repos = [makeRepo('fd-perm-locked-'), makeRepo('fd-perm-gitdir-'), makeRepo('fd-perm-later-')];
    for (const r of repos) {
      cleanups.push(() => {
        chmodSync(r.path, 0o755);
        r.cleanup();
      });
      chmodSync(join(r.path, '..'), 0o755);
      chownTree(r.path);
    }
    const [locked, lockedGitDir, later] = repos.map((r) => r.path) as [string, string, string];
    chmodSync(locked, 0o000);
    chmodSync(join(lockedGitDir, '.git'), 0o000);
    const out = join(base, 'result.json');
    chownSync(base, NOBODY, NOBODY);

    execFileSync(
      'runuser',
      ['-u', 'nobody', '--', process.execPath, join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(__dirname, 'permission-probe.ts'), JSON.stringify({ unreadableDbDir, readOnlyDataDir, scratchDataDir, lockedRepo: locked, lockedGitDirRepo: lockedGitDir, laterRepo: later, out })],
      { cwd: root, env: { PATH: process.env.PATH, HOME: base, TMPDIR: base }, stdio: ['ignore', 'inherit', 'inherit'], timeout: 90_000 },
    );
    const r = JSON.parse(readFileSync(out, 'utf8')) as Record<string, { code?: string; message: string; ok?: boolean } | string | null | number>;
    expect(r.uid).toBe(NOBODY);

    const db = r.unreadableDb as { code: string; message: string };
    expect(db.code).toBe('permission_denied');
    expect(db.message).toContain(join(unreadableDbDir, 'flightdeck.db'));
    expect(db.message).toContain('permission denied');

    const ro = r.readOnlyData as { code: string; message: string };
    expect(ro.code).toBe('permission_denied');
    expect(ro.message).toContain(readOnlyDataDir);
    expect(ro.message).toContain('permission denied');

    for (const key of ['validateLocked', 'validateLockedGitDir'] as const) {
      const v = r[key] as { ok: boolean; message: string };
      expect(v.ok).toBe(false);
      expect(v.message).toContain('permission denied');
      expect(v.message).not.toMatch(/git init|EACCES/);
    }
    expect((r.validateLocked as { message: string }).message).toContain(locked);
    const add = r.addLocked as { code: string; message: string };
    expect(add.code).toBe('permission_denied');

    // The card of a repository that became unreadable after it was added.
    expect(r.before).toBeNull();
    expect(r.after).toContain(later);
    expect(r.after).toContain('permission denied');
    expect(r.after).not.toMatch(/EACCES|no longer exists/);
  }, 120_000);
});

describe('a data folder on a read-only file system', () => {
  it('stops the start with the database path and "read-only file system"', async () => {
    const mountPoint = mkdtempSync(join(tmpdir(), 'fd-rofs-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mountPoint]);
    cleanups.push(() => {
      execFileSync('umount', ['-l', mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    });
    const dataDir = join(mountPoint, 'data');
    const app = await AppServices.create({ dataDir, logger: silentLogger, platform: { runtime: 'browser' } });
    app.dispose();
    execFileSync('mount', ['-o', 'remount,ro', mountPoint]);
    const err = await AppServices.create({ dataDir, logger: silentLogger, platform: { runtime: 'browser' } }).then(
      (a) => {
        a.dispose();
        return null;
      },
      (e: unknown) => e as { code: string; message: string },
    );
    expect(err?.code).toBe('permission_denied');
    expect(err?.message).toContain(join(dataDir, 'flightdeck.db'));
    expect(err?.message).toContain('read-only file system');

    // A data folder still to be created there names the folder.
    const fresh = join(mountPoint, 'not-yet');
    const err2 = await AppServices.create({ dataDir: fresh, logger: silentLogger, platform: { runtime: 'browser' } }).then(
      () => null,
      (e: unknown) => e as { code: string; message: string },
    );
    expect(err2?.code).toBe('permission_denied');
    expect(err2?.message).toContain(mountPoint);
    expect(err2?.message).toContain('read-only file system');
  }, 60_000);
});
