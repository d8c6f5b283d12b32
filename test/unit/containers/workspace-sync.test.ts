import { describe, expect, it } from 'vitest';
import { firstFileOfTar, tarFiles } from '../../../src-main/containers/core/tar';
import { compareHeads, remoteRef, syncMessage, workspaceVolumeName } from '../../../src-main/containers/core/workspace-sync';

describe('compareHeads', () => {
  const h = (o: Partial<Parameters<typeof compareHeads>[0]>) => compareHeads({ local: 'a', remote: 'b', localContainsRemote: false, remoteContainsLocal: false, ...o });
  it('names each relation of the two heads', () => {
    expect(h({ remote: 'a' })).toBe('in_sync');
    expect(h({ remoteContainsLocal: true })).toBe('remote_ahead');
    expect(h({ localContainsRemote: true })).toBe('local_ahead');
    expect(h({})).toBe('diverged');
  });
});

describe('syncMessage', () => {
  it('says why a fast-forward did not happen, and nothing when in sync', () => {
    expect(syncMessage('in_sync', 'work', null)).toBeNull();
    expect(syncMessage('remote_ahead', 'work', null)).toBeNull();
    expect(syncMessage('remote_ahead', 'work', 'dirty')).toContain('uncommitted changes');
    expect(syncMessage('remote_ahead', 'work', 'not_checked_out')).toContain('work is not checked out');
    expect(syncMessage('diverged', 'work', null)).toContain('Nothing was overwritten');
  });
});

describe('names', () => {
  it('keeps session ids usable as a volume name and a ref', () => {
    expect(workspaceVolumeName('abc', 'ses 1/x')).toBe('flightdeck-ws-abc-ses_1_x');
    expect(remoteRef('ses_1')).toBe('refs/flightdeck/remote/ses_1');
  });
});

describe('tar', () => {
  it('writes binary files and directory entries, and reads the first file back', () => {
    const bytes = new Uint8Array([0, 1, 2, 255, 10, 0]);
    const tar = tarFiles([
      { name: 'app/volumes/workspace', content: '', mode: 0o755, uid: 1000, gid: 1000, dir: true },
      { name: 'tmp/x.bundle', content: bytes, mode: 0o600, uid: 1000, gid: 1000 },
    ]);
    expect(String.fromCharCode(tar[156]!)).toBe('5');
    const f = firstFileOfTar(tar)!;
    expect(f.name).toBe('tmp/x.bundle');
    expect([...f.content]).toEqual([...bytes]);
    expect(firstFileOfTar(new Uint8Array(1024))).toBeNull();
  });
});

describe('syncRemoteWorkspace', () => {
  it('gives up a download of the container\'s commits that stalls, and says so (the sync lock is not held for good)', async () => {
    const { PassThrough } = await import('node:stream');
    const { syncRemoteWorkspace } = await import('../../../src-main/containers/remote-workspace');
    const stalled = new PassThrough();
    stalled.write(Buffer.alloc(512));
    const w = {
      sessionId: 'ses_stall',
      worktree: '/nonexistent',
      branch: 'work',
      user: { uid: 1000, gid: 1000 },
      exec: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
      engine: { label: '"remote" (tcp://gone:2375)', deadlineMs: 100, call: <T>(_what: string, fn: () => Promise<T>) => fn() },
      container: { getArchive: async () => stalled },
    };
    const s = await syncRemoteWorkspace(w as unknown as Parameters<typeof syncRemoteWorkspace>[0]);
    expect(s.state).toBe('error');
    expect(s.message).toBe('The download of the container\'s commits from "remote" (tcp://gone:2375) stalled for 0.1 s.');
    expect(stalled.destroyed).toBe(true);
  });

  it('stops a download of the container\'s commits that grows past the bound, and says so; nothing is fetched', async () => {
    const { PassThrough } = await import('node:stream');
    const { syncRemoteWorkspace } = await import('../../../src-main/containers/remote-workspace');
    const huge = new PassThrough();
    let sent = 0;
    const chunk = Buffer.alloc(8 * 1024 * 1024);
    const pump = () => {
      while (!huge.destroyed && sent <= 512 * 1024 * 1024) {
        sent += chunk.length;
        if (!huge.write(chunk)) return void huge.once('drain', pump);
      }
    };
    const w = {
      sessionId: 'ses_huge',
      worktree: '/nonexistent',
      branch: 'work',
      user: { uid: 1000, gid: 1000 },
      exec: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
      engine: { label: '"remote" (tcp://far:2375)', deadlineMs: 30_000, call: <T>(_what: string, fn: () => Promise<T>) => fn() },
      container: { getArchive: async () => (setImmediate(pump), huge) },
    };
    const s = await syncRemoteWorkspace(w as unknown as Parameters<typeof syncRemoteWorkspace>[0]);
    expect(s.state).toBe('error');
    expect(s.message).toMatch(/The container's commits on work are over 512 MiB as a bundle/);
    expect(huge.destroyed).toBe(true);
    expect(sent).toBeLessThanOrEqual(512 * 1024 * 1024 + 2 * chunk.length);
  });
});
