/**
 * Run by permissions.test.ts as an unprivileged user (root ignores file permissions, so the
 * test cannot see a real "permission denied" in its own process). Tries what a user does —
 * start on a data folder, add a repository, refresh it after it became unreadable — and prints
 * what Flightdeck answered, as one JSON object.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppServices } from '../../../src-main/app/services';
import { EventHub } from '../../../src-main/bridge/event-hub';
import { silentLogger } from '../../../src-main/platform/logger';
import { ProjectService } from '../../../src-main/projects/project-service';
import { openDatabase } from '../../../src-main/store/db';

interface Probe {
  unreadableDbDir: string;
  readOnlyDataDir: string;
  scratchDataDir: string;
  lockedRepo: string;
  lockedGitDirRepo: string;
  laterRepo: string;
  out: string;
}

async function startError(dataDir: string): Promise<{ code: string; message: string } | null> {
  try {
    const app = await AppServices.create({ dataDir, logger: silentLogger, platform: { runtime: 'browser' } });
    app.dispose();
    return null;
  } catch (e) {
    const err = e as { code?: unknown; message?: unknown };
    return { code: String(err.code), message: String(err.message) };
  }
}

async function main(): Promise<void> {
  const p = JSON.parse(process.argv[2]!) as Probe;
  const result: Record<string, unknown> = { uid: process.getuid?.() };
  result.unreadableDb = await startError(p.unreadableDbDir);
  result.readOnlyData = await startError(p.readOnlyDataDir);

  const db = openDatabase(join(p.scratchDataDir, 'flightdeck.db'));
  const projects = new ProjectService(db, new EventHub(), silentLogger);
  result.validateLocked = await projects.validate(p.lockedRepo);
  result.addLocked = await projects.add(p.lockedRepo).then(
    () => null,
    (e: { code: string; message: string }) => ({ code: e.code, message: e.message }),
  );
  result.validateLockedGitDir = await projects.validate(p.lockedGitDirRepo);
  const added = await projects.add(p.laterRepo);
  result.before = (await projects.refresh(added.id))[0]?.problem ?? null;
  chmodSync(p.laterRepo, 0o000);
  result.after = (await projects.refresh(added.id))[0]?.problem ?? null;
  chmodSync(p.laterRepo, 0o755);
  db.close();
  writeFileSync(p.out, JSON.stringify(result));
}

main().catch((e: unknown) => {
  process.stderr.write(`probe failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
