/**
 * Issue 20 §2.9: with the data folder's disk full, a feature run failed at once with SQLite's raw
 * text and vanished from the run list. Now it is queued and listed as waiting for space (the
 * storage notice says why), and starts once Flightdeck can save again. The data folder is on a
 * small tmpfs filled to the last byte (the test host runs as root), so SQLite fails with SQLITE_FULL for real.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../support/temp';
import { configYaml, makeRunRepo, planFeature, runHarness, type RunHarness, type RunRepo } from './support';

let repo: RunRepo | null = null;
let h: RunHarness | null = null;
let unmount: (() => void) | null = null;
afterEach(async () => {
  await h?.cleanup();
  repo?.cleanup();
  unmount?.();
  h = null;
  repo = null;
  unmount = null;
});

async function until<T>(pick: () => T | null | undefined | false, what: string, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = pick();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a feature run and a full data folder', () => {
  it('is queued and listed as waiting for space, not failed with SQLite text, and starts when space returns', async () => {
    repo = makeRunRepo({ remote: 'none', config: configYaml().replace('enabled: true', 'enabled: false').replace('checks: ["node --test"]', 'checks: []') });
    await planFeature(repo.repo, 'roomy', ['library']);
    // The data folder on a small file system of its own, filled up for real: SQLite then fails
    // its writes with SQLITE_FULL as on a full disk.
    const data = tempDir('fd-run-full-');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', data.path]);
    unmount = () => {
      execFileSync('umount', ['-l', data.path]);
      data.cleanup();
    };
    h = await runHarness(
      [
        { blocks: [{ type: 'text', text: 'Finished.' }] },
        { blocks: [{ type: 'text', text: '```yaml\nresult: pass\nitems: []\n```' }] },
      ],
      { dataDir: data.path },
    );
    const notices: string[] = [];
    h.app.hub.subscribe((e) => {
      if (e.topic === 'app.notice') notices.push((e.payload as { title: string }).title);
    });
    const filler = join(data.path, 'filler.bin');
    const fd = openSync(filler, 'w');
    try {
      for (;;) writeSync(fd, Buffer.alloc(1024 * 1024));
    } catch (e) {
      expect((e as NodeJS.ErrnoException).code).toBe('ENOSPC');
    }
    try {
      for (;;) writeSync(fd, Buffer.alloc(512));
    } catch (e) {
      // The last scraps too: nothing is left for the database's next page.
      expect((e as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      closeSync(fd);
    }

    const info = await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'roomy' });
    expect(info.status).toBe('queued');
    const listed = h.app.featureRuns.list().find((r) => r.id === info.id);
    expect(listed).toMatchObject({ slug: 'roomy', status: 'queued' });
    expect(listed?.message ?? '').toContain('Waiting for space in the data folder');
    expect(h.app.storage.state).toBe('disk_full');
    expect(notices).toContain('The disk is full');
    expect(h.server.mainRequests()).toHaveLength(0);

    // Space again: the kept row is saved, the run starts and completes, and it is in the history.
    rmSync(filler);
    const result = await info.done;
    expect(result.outcome).toBe('completed');
    expect(h.server.mainRequests().length).toBeGreaterThan(0);
    await until(() => h!.app.featureRuns.history(repo!.repo, 'roomy').find((r) => r.id === info.id && r.status === 'completed'), 'the run recorded as completed');
  }, 120_000);
});
