/**
 * The full-disk attack against the real browser-mode host process: its data folder on a small
 * tmpfs, an agent `!` command that fills the disk and then prints. The process must stay up
 * (/healthz answers), the UI gets one notice, requests get `disk_full`, and once space is freed
 * the host saves the command's whole output by itself (its own retry, default backoff).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentEvent, Notice } from '../../../src-preload/contract';
import { connectWsClient, stopWsClients } from '../../fixtures/terminals/ws-client';
import { healthz, startHostProcess, until, type HostProcess } from '../hardening/support';

const LINES = 2_000;
const cleanups: Array<() => void | Promise<void>> = [];
afterAll(async () => {
  stopWsClients();
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.runIf(process.platform === 'linux')('a full disk under the real host', () => {
  it('stays up, says so once, and saves everything after space is freed', async () => {
    const mountPoint = mkdtempSync(join(tmpdir(), 'fd-diskfull-host-'));
    // Root may mount a real, small file system (CI and this machine run tests as root).
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mountPoint]);
    cleanups.push(() => {
      execFileSync('umount', ['-l', mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    });
    const dataDir = join(mountPoint, 'data');
    const work = join(mountPoint, 'work');
    const home = join(mountPoint, 'home');
    mkdirSync(work, { recursive: true });
    mkdirSync(home, { recursive: true });
    const host: HostProcess = await startHostProcess({ dataDir, env: { HOME: home, SHELL: '/bin/bash' } });
    cleanups.push(() => host.stop());
    const client = connectWsClient(host.port, host.token);
    const notices: Notice[] = [];
    const events: AgentEvent[] = [];
    client.on('app.notice', (n) => notices.push(n));

    const session = await client.invoke('agents.sessions.create', { root: work, mode: 'yolo' });
    client.on('agents.event', (e) => events.push(e), session.id);
    await client.invoke('agents.input', { sessionId: session.id, input: `!head -c 100000000 /dev/zero > fill.bin; seq 1 ${LINES}` });
    await until(async () => (await client.invoke('app.storage', {})).writes === 'disk_full', 'the host to notice the full disk', 60_000);
    // The command's output and the turn's end wait in memory: the turn's end is not shown yet.
    await until(async () => (await client.invoke('app.storage', {})).unsaved > 0, 'unsaved work', 60_000);

    // A few seconds of retries later: still up, still one notice.
    await new Promise((r) => setTimeout(r, 4_000));
    expect(host.process.exitCode).toBeNull();
    expect(await healthz(host.origin, 10_000)).toBe(200);
    expect(notices.filter((n) => n.title === 'The disk is full')).toHaveLength(1);
    expect(notices.find((n) => n.title === 'The disk is full')!.message).toContain(dataDir);
    const refused = await client.invoke('settings.update', { terminalFontSize: 16 }).then(
      () => null,
      (e: unknown) => e as { code: string; message: string },
    );
    expect(refused?.code).toBe('disk_full');
    expect(refused?.message).toContain(dataDir);

    rmSync(join(work, 'fill.bin'));
    // The host's own retry (1 s, doubling to 30 s) saves everything without being asked.
    await until(async () => {
      const s = await client.invoke('app.storage', {});
      return s.writes === 'ok' && s.unsaved === 0;
    }, 'the host to save what it kept', 90_000);
    await until(() => events.some((e) => e.data.type === 'turn.ended'), 'the turn end to be shown', 30_000);
    // Events reach the socket in batches, after the answers to requests: wait for the notice, then count.
    await until(() => notices.some((n) => n.title === 'Saved'), 'the all-saved notice', 10_000);
    expect(notices.filter((n) => n.title === 'Saved')).toHaveLength(1);

    const { events: stored } = await client.invoke('agents.events.read', { sessionId: session.id, fromSeq: 1, limit: 10_000 });
    const output = stored.flatMap((e) => (e.data.type === 'tool.output' ? [e.data.chunk] : [])).join('');
    const numbers = output
      .replace(/\r/g, '')
      .split('\n')
      .filter((l) => /^\d+$/.test(l))
      .map(Number);
    expect(numbers).toEqual(Array.from({ length: LINES }, (_, i) => i + 1));
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i + 1));
    const s = await client.invoke('agents.sessions.get', { sessionId: session.id });
    expect(s.status).toBe('idle');
    expect(s.lastTurn?.outcome).toBe('completed');
    const messages = await client.invoke('agents.messages.list', { sessionId: session.id });
    expect(messages.some((m) => m.kind === 'command' && JSON.stringify(m.blocks).includes(String(LINES)))).toBe(true);
    expect(host.process.exitCode).toBeNull();
  }, 240_000);
});
