/**
 * A message queued behind a turn that ends while the disk under the data folder is full. The
 * turn's end record is kept in memory (it holds the queue as it was); taking the message out of
 * the queue then either failed at the turn's end (an unhandled rejection) or overtook the kept
 * record, which later put the message back, and it was sent twice. Now the queue waits for the
 * disk, and the message goes once, when space returns.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppServices } from '../../../src-main/app/services';
import { silentLogger } from '../../../src-main/platform/logger';
import { waitFor } from '../../support/processes';
import { tempDir, tmpfsDir } from '../../support/temp';

let disk: { path: string; cleanup(): void } | null = null;
let workDir: { path: string; cleanup(): void } | null = null;
const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => unhandled.push(e);

beforeAll(() => {
  disk = tmpfsDir('fd-diskfull-queue-', '6m');
  // The session's folder is on the ordinary disk: only the data folder's disk fills.
  workDir = tempDir('fd-diskfull-queue-work-');
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUnhandled);
});

afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  process.off('uncaughtException', onUnhandled);
  disk?.cleanup();
  workDir?.cleanup();
});

const until = (what: string, check: () => boolean) => waitFor(check, what, 60_000, 50);

describe('a message queued behind a turn that ends on a full disk', () => {
  it('waits while the disk is full and is sent exactly once when space returns', async () => {
    const mountPoint = disk!.path;
    const work = workDir!.path;
    const dataDir = join(mountPoint, 'data');
    const fill = join(mountPoint, 'fill.bin');
    const ran = join(work, 'ran.txt');
    mkdirSync(dataDir, { recursive: true });
    const app = await AppServices.create({ dataDir, logger: silentLogger, platform: { runtime: 'browser' }, storageRetry: { baseMs: 200, maxMs: 1_000 } });
    try {
      const sessionId = app.agents.createSession({ root: work, mode: 'yolo', sandbox: 'danger-full-access' }).id;
      // The running turn waits for a go file, so the message is queued while the disk still takes writes.
      const go = join(work, 'go');
      const first = app.agents.submit(sessionId, `!while [ ! -e ${go} ]; do sleep 0.05; done; head -c 100000000 /dev/zero > ${fill}; echo filled`);
      expect(first.outcome).toBe('started');
      const queued = app.agents.submit(sessionId, `!echo once >> ${ran}`);
      expect(queued.outcome).toBe('queued');
      writeFileSync(go, '');

      await until('the first turn to end', () => app.agents.running(sessionId) === null);
      expect(app.storage.state).toBe('disk_full');
      // Several retries pass while the disk stays full: the queued message has not gone.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(existsSync(ran)).toBe(false);
      expect(unhandled).toEqual([]);

      // Space returns: the kept turn end is saved, then the message goes, once.
      rmSync(fill);
      await until('the queued message to run', () => existsSync(ran));
      await until('its turn to end', () => app.agents.running(sessionId) === null && app.storage.keptWrites === 0 && app.storage.state === 'ok');
      // Another look after the store settled: a kept write that put it back would send it again.
      await new Promise((r) => setTimeout(r, 1_500));
      await until('no turn running', () => app.agents.running(sessionId) === null);
      expect(readFileSync(ran, 'utf8')).toBe('once\n');
      const row = app.db.prepare('SELECT status, state FROM agent_sessions WHERE id = ?').get(sessionId) as { status: string; state: string };
      expect(row.status).toBe('idle');
      expect(JSON.parse(row.state).queue ?? []).toEqual([]);
      expect(unhandled).toEqual([]);
    } finally {
      app.dispose();
    }
  }, 120_000);
});
