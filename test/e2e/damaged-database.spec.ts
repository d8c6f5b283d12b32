import { test, expect } from '@playwright/test';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, writeSync } from 'node:fs';
import { basename } from 'node:path';
import { databasePath, openDatabase } from '../../src-main/store/db';
import { takeBackup } from '../../src-main/store/backups';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { makeRepo, tempDir } from '../support/temp';

let host: RunningHost | undefined;
const dirs: Array<{ cleanup(): void }> = [];

test.afterAll(async () => {
  await host?.stop();
  for (const d of dirs) d.cleanup();
});

test('a database damaged on disk is shown with its path at start, and the restore button brings back the backup', async ({ page }) => {
  const data = tempDir('fd-e2e-damaged-');
  const kept = makeRepo('fd-e2e-kept-');
  const later = makeRepo('fd-e2e-later-');
  dirs.push(data, kept, later);
  const file = databasePath(data.path);

  // Yesterday: one project, and the automatic backup of that day. Then a second project and a lot of history.
  const db = openDatabase(file);
  const addProject = (path: string) => db.prepare('INSERT INTO projects (id, name, path, added_at) VALUES (?, ?, ?, ?)').run(randomUUID(), basename(path), path, Date.now());
  addProject(kept.path);
  await takeBackup(db, data.path);
  addProject(later.path);
  const insert = db.prepare('INSERT INTO events (run_id, seq, ts, type, payload) VALUES (?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= 2_000; i++) insert.run('history', i, Date.now(), 'note', JSON.stringify({ text: `line ${i} `.repeat(8) }));
  })();
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const leaves = db.prepare("SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' ORDER BY pageno").all() as Array<{ pageno: number }>;
  db.close();
  // A bad sector in the middle of the history.
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(300, 0xa5), 0, 300, (leaves[Math.floor(leaves.length / 2)]!.pageno - 1) * pageSize + 40);
  closeSync(fd);

  host = await startHost({ dataDir: data.path });
  const board = new BoardPage(page);
  await board.open(host.url);
  const banner = page.getByTestId('damaged-db-banner');
  await expect(banner).toBeVisible();
  await expect(banner).toContainText(file);
  await expect(board.card(basename(later.path))).toBeVisible();

  await banner.getByRole('button', { name: /Restore the backup of/ }).click();
  // The page starts again from the restored data: yesterday's project only, and no banner.
  await expect(banner).toBeHidden();
  await expect(board.card(basename(kept.path))).toBeVisible();
  await expect(board.card(basename(later.path))).toHaveCount(0);
  // The damaged file was kept beside the database.
  expect(readdirSync(data.path).some((n) => n.startsWith('flightdeck.db.replaced-'))).toBe(true);
  expect(existsSync(file)).toBe(true);
});
