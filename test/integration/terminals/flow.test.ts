import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../src-main/bridge/event-hub';
import { silentLogger } from '../../../src-main/platform/logger';
import { BATCH_MAX_BYTES, FLOW_REPORT_BYTES, FLOW_WINDOW_MAX_BYTES, FLOW_WINDOW_MIN_BYTES } from '../../../src-main/terminals/constants';
import type { ToHost } from '../../../src-main/terminals/pty-host/protocol';
import { TERMINAL_ACK_BATCH_CHARS } from '../../../src-preload/contract/terminals';
import { TerminalService } from '../../../src-main/terminals/terminal-service';
import { catRawCommand } from '../../fixtures/terminals/flood';
import { HeadlessView } from '../../fixtures/terminals/headless-view';
import { tempDir } from '../../support/temp';
import { sleep, startTerminalHarness, waitFor } from './support';

/** The most the host reads from a pty in one go, after which it may decide to pause. */
const PTY_READ_MAX = 64 * 1024;

function service(hub: EventHub, stalledViewMs: number): TerminalService {
  const s = new TerminalService({
    hub,
    projects: {
      get() {
        throw new Error('no projects here');
      },
    },
    log: silentLogger,
    stalledViewMs,
  });
  s.start();
  return s;
}

describe('flow control', () => {
  const dir = tempDir('fd-flow-');
  const ascii = join(dir.path, 'ascii.txt');
  beforeAll(() => {
    // ASCII only: one byte is one character, so the window can be checked exactly.
    writeFileSync(ascii, 'abcdefghijklmnopqrstuvwxyz0123456789-flow-control-line\n'.repeat(120_000));
  });
  afterAll(() => dir.cleanup());

  it('pauses the pty above the flow window and resumes it below half of it', async () => {
    const hub = new EventHub();
    const terms = service(hub, 60_000);
    try {
      const info = await terms.spawn({ file: '/bin/sh', args: ['-c', `stty -echo; read go; ${catRawCommand(ascii)}`], cwd: dir.path, kind: 'command', title: 'flood' });
      const view = await terms.attach(info.id, 'conn-a');
      terms.write(info.id, 'go\r');
      await waitFor(() => terms.flowStats(info.id).paused, 'the pty to pause');
      await sleep(100); // the batch gathered before the pause is flushed
      const atPause = terms.flowStats(info.id);
      // The first window is the smallest one: nothing has been measured about the view yet.
      expect(atPause.window).toBe(FLOW_WINDOW_MIN_BYTES);
      expect(atPause.unackedChars).toBeGreaterThan(FLOW_WINDOW_MIN_BYTES);
      expect(atPause.unackedChars).toBeLessThanOrEqual(FLOW_WINDOW_MIN_BYTES + PTY_READ_MAX);
      await sleep(300);
      // Paused means paused: nothing more is read while the view does not acknowledge.
      expect(terms.flowStats(info.id).unackedChars).toBe(atPause.unackedChars);

      // Down to just above half the window: still paused.
      const resumeBelow = FLOW_WINDOW_MIN_BYTES / 2;
      terms.ack(info.id, view.attachmentId, atPause.unackedChars - (resumeBelow + 1_000));
      await sleep(300);
      expect(terms.flowStats(info.id)).toMatchObject({ paused: true, resumes: 0, unackedChars: resumeBelow + 1_000 });

      // Below it (the view keeps half a window to parse while more travels): resumed, and the output flows until the watermark pauses it again.
      terms.ack(info.id, view.attachmentId, 2_000);
      await waitFor(() => terms.flowStats(info.id).resumes === 1, 'the pty to resume');
      await waitFor(() => terms.flowStats(info.id).pauses === 2, 'the second pause');

      // An over-acknowledgement is clamped: the view cannot owe less than nothing.
      terms.ack(info.id, view.attachmentId, 50_000_000);
      expect(terms.flowStats(info.id).unackedChars).toBeGreaterThanOrEqual(0);
      terms.detach(info.id, view.attachmentId);
      // Nobody watching: no flow control, the command runs to its end.
      expect((await terms.whenExited(info.id)).exitCode).toBe(0);
      expect(terms.flowStats(info.id).peakUnackedChars).toBeLessThanOrEqual(FLOW_WINDOW_MAX_BYTES + BATCH_MAX_BYTES + PTY_READ_MAX);
    } finally {
      await terms.shutdown();
    }
  });

  it("passes a view's progress to the host in steps while the pty runs, and every ack while it is paused", async () => {
    const hub = new EventHub();
    const terms = service(hub, 60_000);
    // What the service tells the pty host, as it tells it.
    const host = (terms as unknown as { host: { send(m: ToHost): void } }).host;
    const told: number[] = [];
    const send = host.send.bind(host);
    host.send = (m) => {
      if (m.t === 'consumed' && m.offset !== null) told.push(m.offset);
      send(m);
    };
    try {
      const info = await terms.spawn({ file: '/bin/sh', args: ['-c', `stty -echo; read go; ${catRawCommand(ascii)}`], cwd: dir.path, kind: 'command', title: 'flood' });
      const view = await terms.attach(info.id, 'conn-a');
      // A view acknowledging as the renderer does: every 5,000 characters parsed.
      let acks = 0;
      let owed = 0;
      const off = hub.subscribe((e) => {
        if (e.topic !== 'terminals.data' || e.key !== info.id) return;
        owed += (e.payload as { data: string }).data.length;
        for (; owed >= TERMINAL_ACK_BATCH_CHARS; owed -= TERMINAL_ACK_BATCH_CHARS, acks++) terms.ack(info.id, view.attachmentId, TERMINAL_ACK_BATCH_CHARS);
      });
      told.length = 0;
      terms.write(info.id, 'go\r');
      expect((await terms.whenExited(info.id)).exitCode).toBe(0);
      off();
      // 6.6 MB in 5,000-character acks: over a thousand acks, a few hundred messages to the host.
      expect(acks).toBeGreaterThan(1_000);
      expect(told.length).toBeLessThan(acks / 3);
      // Each one further on; in steps of at least FLOW_REPORT_BYTES while the pty ran (smaller
      // ones only while it was paused).
      const steps = told.slice(1).map((o, i) => o - told[i]!);
      expect(steps.every((d) => d > 0)).toBe(true);
      expect(steps.filter((d) => d >= FLOW_REPORT_BYTES).length).toBeGreaterThan(steps.length / 2);
    } finally {
      await terms.shutdown();
    }
  });

  it('does not let a stalled view or a closed socket hold a terminal forever', async () => {
    const hub = new EventHub();
    const terms = service(hub, 400);
    try {
      // Two tabs watch; one acknowledges everything at once, the other never does.
      const info = await terms.spawn({ file: '/bin/sh', args: ['-c', `stty -echo; read go; ${catRawCommand(ascii)}`], cwd: dir.path, kind: 'command', title: 'flood' });
      const stalled = await terms.attach(info.id, 'conn-frozen');
      const live = await terms.attach(info.id, 'conn-live');
      const off = hub.subscribe((e) => {
        if (e.topic === 'terminals.data' && e.key === info.id) terms.ack(info.id, live.attachmentId, (e.payload as { data: string }).data.length);
      });
      terms.write(info.id, 'go\r');
      await waitFor(() => terms.flowStats(info.id).pauses > 0, 'the frozen view to pause the pty');
      expect((await terms.whenExited(info.id)).exitCode).toBe(0);
      off();
      void stalled;

      // A view whose socket closed stops counting at once (the stall delay here is a minute).
      const slow = service(hub, 60_000);
      const info2 = await slow.spawn({ file: '/bin/sh', args: ['-c', `stty -echo; read go; ${catRawCommand(ascii)}`], cwd: dir.path, kind: 'command', title: 'flood' });
      await slow.attach(info2.id, 'conn-closing');
      slow.write(info2.id, 'go\r');
      await waitFor(() => slow.flowStats(info2.id).paused, 'the pty to pause');
      hub.connectionClosed('conn-closing');
      expect((await slow.whenExited(info2.id)).exitCode).toBe(0);
      expect(slow.flowStats(info2.id).views).toBe(0);

      // A reloaded page attaches again on the same connection: its old view is replaced and
      // the pty resumes at once.
      const info3 = await slow.spawn({ file: '/bin/sh', args: ['-c', `stty -echo; read go; ${catRawCommand(ascii)}`], cwd: dir.path, kind: 'command', title: 'flood' });
      await slow.attach(info3.id, 'conn-reloading');
      slow.write(info3.id, 'go\r');
      await waitFor(() => slow.flowStats(info3.id).paused, 'the pty to pause');
      const again = await slow.attach(info3.id, 'conn-reloading');
      expect(slow.flowStats(info3.id).views).toBe(1);
      await waitFor(() => slow.flowStats(info3.id).resumes > 0, 'the pty to resume for the reloaded view');
      slow.detach(info3.id, again.attachmentId);
      expect((await slow.whenExited(info3.id)).exitCode).toBe(0);
      await slow.shutdown();
    } finally {
      await terms.shutdown();
    }
  });

  it("keeps another terminal's echo flowing while one floods", { timeout: 60_000 }, async () => {
    const h = await startTerminalHarness();
    try {
      const flood = await h.app.terminals.spawn({ file: '/bin/sh', args: ['-c', "yes 'flood ünïcödé 日本語 🚀 0123456789'"], cwd: dir.path, kind: 'command', title: 'yes' });
      const floodView = new HeadlessView(h.client, flood.id, { keepText: false });
      await floodView.attach();
      const echo = await h.app.terminals.spawn({ file: '/bin/cat', args: [], cwd: dir.path, kind: 'command', title: 'cat' });
      const echoView = new HeadlessView(h.client, echo.id);
      await echoView.attach();
      await floodView.until((_o, v) => v.bytes > 2_000_000, 30_000, 'the flood to be under way');

      const floodProgress: number[] = [];
      for (let i = 0; i < 20; i++) {
        const key = String.fromCharCode(97 + i);
        floodProgress.push(floodView.bytes);
        await h.client.invoke('terminals.write', { id: echo.id, data: key });
        await echoView.until((o) => o.endsWith(key), 20_000, `the echo of "${key}"`);
      }
      floodProgress.push(floodView.bytes);
      // Every keystroke was echoed while the flood kept going (its view kept receiving).
      expect(echoView.output).toBe('abcdefghijklmnopqrst');
      expect(h.app.terminals.get(flood.id).status).toBe('running');
      expect(floodProgress[floodProgress.length - 1]!).toBeGreaterThan(floodProgress[0]!);
      expect(h.app.terminals.flowStats(flood.id).pauses).toBeGreaterThan(0);
      floodView.dispose();
      echoView.dispose();
    } finally {
      await h.cleanup();
    }
  });

  it("holds a flood for another terminal's keystrokes until their echo, and loses none of it", { timeout: 90_000 }, async () => {
    const h = await startTerminalHarness();
    try {
      // 33 MB: long enough for a few dozen keystrokes on any machine.
      const rounds = 5;
      const flood = await h.app.terminals.spawn({ file: '/bin/sh', args: ['-c', `stty -echo; read go; for i in $(seq ${rounds}); do ${catRawCommand(ascii)}; done`], cwd: dir.path, kind: 'command', title: 'flood' });
      const floodView = new HeadlessView(h.client, flood.id, { keepText: false });
      await floodView.attach();
      const echo = await h.app.terminals.spawn({ file: '/bin/cat', args: [], cwd: dir.path, kind: 'command', title: 'cat' });
      const echoView = new HeadlessView(h.client, echo.id);
      await echoView.attach();
      // A terminal that answers nothing (a password prompt), typed into between the echoed keys over the
      // main process's path: whatever it holds, the flood goes on and loses nothing.
      const silent = await h.app.terminals.spawn({ file: '/bin/sh', args: ['-c', 'stty -echo; cat >/dev/null'], cwd: dir.path, kind: 'command', title: 'silent' });
      await h.client.invoke('terminals.write', { id: flood.id, data: 'go\r' });
      const size = readFileSync(ascii).length * rounds;
      await floodView.until((_o, v) => v.bytes > 500_000, 30_000, 'the flood to be under way');
      for (let i = 0; floodView.bytes < size; i++) {
        // A line at a time (a tty's line buffer is bounded): each key's echo ends the output
        // until Enter, which cat answers with the line.
        const key = i % 50 === 49 ? '\r' : String.fromCharCode(97 + (i % 26));
        // As the renderer types (over the direct socket once routed there), and over the main process.
        const before = echoView.chars;
        await h.client.typeInto(echo.id, key);
        await echoView.until((o, v) => v.chars > before && (key === '\r' ? o.endsWith('\n') : o.endsWith(key)), 20_000, `the echo of ${JSON.stringify(key)}`);
        await h.client.invoke('terminals.write', { id: silent.id, data: 'x' });
        await sleep(5);
      }
      expect((await h.app.terminals.whenExited(flood.id)).exitCode).toBe(0);
      await floodView.until((_o, v) => v.bytes >= size, 30_000, 'the whole flood');
      // Held over and over, and every byte came through once, in order.
      expect(floodView.bytes).toBe(size);
      const expected = createHash('sha256');
      for (let i = 0; i < rounds; i++) expected.update(readFileSync(ascii));
      expect(floodView.digest()).toBe(expected.digest('hex'));
      const stats = h.app.terminals.flowStats(flood.id);
      const holds = (await h.app.terminals.hostStats(flood.id))!.holds;
      expect(holds).toBeGreaterThan(5);
      // The typed terminals were never held: they were not flooding.
      expect((await h.app.terminals.hostStats(echo.id))!.holds).toBe(0);
      expect((await h.app.terminals.hostStats(silent.id))!.holds).toBe(0);
      expect(stats.charsReceived).toBe(size);
      floodView.dispose();
      echoView.dispose();
    } finally {
      await h.cleanup();
    }
  });
});
