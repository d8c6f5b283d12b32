/**
 * A full disk must not kill the host or lose what was said. The data folder sits on a real,
 * small tmpfs (the test runs as root, as CI does); an agent's `!` command fills that disk and
 * then prints, the way a runaway build does. The host must stay up, tell the user once, keep
 * everything in memory, and save all of it when space returns.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent, Notice, StorageStatus } from '../../../src-preload/contract';
import { AppServices } from '../../../src-main/app/services';
import { silentLogger } from '../../../src-main/platform/logger';
import { waitFor } from '../../support/processes';
import { tmpfsDir } from '../../support/temp';

const TMPFS_SIZE = '6m';
const LINES = 3_000;

let mountPoint = '';
const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => unhandled.push(e);

let disk: { path: string; cleanup(): void } | null = null;

beforeAll(() => {
  disk = tmpfsDir('fd-diskfull-', TMPFS_SIZE);
  mountPoint = disk.path;
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUnhandled);
});

afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  process.off('uncaughtException', onUnhandled);
  disk?.cleanup();
});

const until = (what: string, check: () => boolean) => waitFor(check, what, 60_000, 50);

describe('a full disk under the data folder', () => {
  it('keeps the host up, tells the user once, answers disk_full, and saves everything when space returns', async () => {
    const dataDir = join(mountPoint, 'data');
    const work = join(mountPoint, 'work');
    mkdirSync(work, { recursive: true });
    const app = await AppServices.create({ dataDir, logger: silentLogger, platform: { runtime: 'browser' }, storageRetry: { baseMs: 200, maxMs: 1_000 } });
    try {
      const notices: Notice[] = [];
      const published: AgentEvent[] = [];
      const statuses: StorageStatus[] = [];
      app.hub.subscribe((e) => {
        if (e.topic === 'app.notice') notices.push(e.payload as Notice);
        if (e.topic === 'agents.event') published.push(e.payload as AgentEvent);
        if (e.topic === 'app.storage.changed') statuses.push(e.payload as StorageStatus);
      });
      const sessionId = app.agents.createSession({ root: work, mode: 'yolo' }).id;

      // The command fills the disk (head stops at ENOSPC), then prints LINES numbered lines. Head's
      // complaint goes nowhere: it reaches the session on stderr, a pipe of its own, and its two
      // writes ("head: ", then the rest) could land among seq's lines (CI run 34: "head: 1").
      // The disk and what is saved are this test's matter, not how two pipes interleave.
      // Sent as the UI sends it (nobody awaits the turn: a failure at its end was an unhandled rejection that ended the host).
      const sent = await app.router.dispatch('agents.input', { sessionId, input: `!head -c 100000000 /dev/zero > fill.bin 2>/dev/null; seq 1 ${LINES}` }, { origin: 'test', connectionId: 't' });
      expect(sent.ok).toBe(true);
      const result = await app.agents.running(sessionId)!;
      // The shell's exit code is seq's: the command itself completed, only the disk under Flightdeck is full.
      expect(result.outcome).toBe('completed');
      expect(app.storage.state).toBe('disk_full');

      // A settings change is refused with a typed error naming the data folder, not a raw SqliteError.
      const res = await app.router.dispatch('settings.update', { terminalFontSize: 15 }, { origin: 'test', connectionId: 't' });
      expect(res.ok).toBe(false);
      if (!res.ok) {
        expect(res.error.code).toBe('disk_full');
        expect(res.error.message).toContain(dataDir);
      }
      const status = app.storageStatus();
      expect(status.writes).toBe('disk_full');
      expect(status.unsaved).toBeGreaterThan(0);

      // Several retry rounds pass while the disk stays full: still one notice.
      await new Promise((r) => setTimeout(r, 2_500));
      const fullNotices = notices.filter((n) => n.title === 'The disk is full');
      expect(fullNotices).toHaveLength(1);
      expect(fullNotices[0]!.message).toContain(`The disk holding ${dataDir} is full`);
      expect(notices.filter((n) => n.level === 'error')).toHaveLength(0);
      // Nothing unsaved was shown: the UI shows only what is persisted.
      expect(published.filter((e) => e.sessionId === sessionId && e.data.type === 'turn.ended')).toHaveLength(0);

      // Space returns: everything kept in memory is written, in order, without anyone asking.
      rmSync(join(work, 'fill.bin'));
      await until('the kept work to be saved', () => app.storage.state === 'ok' && app.events.pending === 0 && app.storage.keptWrites === 0);
      expect(notices.filter((n) => n.title === 'Saved')).toHaveLength(1);
      expect(statuses.at(-1)?.writes).toBe('ok');

      const stored = app.agents.sink.read(sessionId, 1, 100_000);
      const output = stored.flatMap((e) => (e.data.type === 'tool.output' ? [e.data.chunk] : [])).join('');
      const numbers = output
        .replace(/\r/g, '')
        .split('\n')
        .filter((l) => /^\d+$/.test(l))
        .map(Number);
      // On a failure, say whether the command's own captured result (the conversation message) has the line: that tells the event path from the capture.
      const captured = (app.db.prepare("SELECT content FROM agent_messages WHERE session_id = ? AND kind = 'command'").get(sessionId) as { content: string } | undefined)?.content ?? '';
      expect(numbers, `events began ${JSON.stringify(output.slice(0, 120))}; the result began ${JSON.stringify(captured.slice(0, 300))}`).toEqual(Array.from({ length: LINES }, (_, i) => i + 1));
      const types = stored.map((e) => e.data.type);
      expect(types).toContain('command.result');
      expect(types.at(-1)).toBe('turn.ended');
      // Sequence numbers are dense: no event was dropped in the middle.
      expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i + 1));

      // The conversation message and the turn's end record reached the database itself.
      const msg = app.db.prepare("SELECT content FROM agent_messages WHERE session_id = ? AND kind = 'command'").get(sessionId) as { content: string } | undefined;
      expect(msg?.content).toContain(String(LINES));
      const row = app.db.prepare('SELECT status, last_turn FROM agent_sessions WHERE id = ?').get(sessionId) as { status: string; last_turn: string };
      expect(row.status).toBe('idle');
      expect(JSON.parse(row.last_turn).turnId).toBe(result.turnId);
      // …and what was saved late was then shown.
      expect(published.filter((e) => e.sessionId === sessionId && e.data.type === 'turn.ended')).toHaveLength(1);

      // The host goes on working normally.
      const ok = await app.router.dispatch('settings.update', { terminalFontSize: 15 }, { origin: 'test', connectionId: 't' });
      expect(ok.ok).toBe(true);
      const next = await app.agents.run(sessionId, '!echo still-here');
      expect(next.outcome).toBe('completed');
      expect(unhandled).toEqual([]);
    } finally {
      app.dispose();
    }
  }, 120_000);
});
