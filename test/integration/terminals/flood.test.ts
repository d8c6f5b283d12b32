import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_MAX_BYTES, FLOW_WINDOW_MAX_BYTES, FLOW_WINDOW_MIN_BYTES } from '../../../src-main/terminals/constants';
import { catRawCommand, writeFloodFile } from '../../fixtures/terminals/flood';
import { HeadlessView } from '../../fixtures/terminals/headless-view';
import { tempDir } from '../../support/temp';
import { startTerminalHarness, waitFor, type TerminalHarness } from './support';

/** A pty read is at most 64 KiB: the most the host can take in after deciding to pause. */
const PTY_READ_MAX = 64 * 1024;
const FLOOD_BYTES = 50 * 1024 * 1024;

describe('50 MB through the full path', () => {
  let h: TerminalHarness;
  const dir = tempDir('fd-flood-');
  beforeAll(async () => {
    h = await startTerminalHarness();
  });
  afterAll(async () => {
    await h.cleanup();
    dir.cleanup();
  });

  it('arrives byte-exact at a headless xterm that acks, with bounded memory in the main process', { timeout: 240_000 }, async () => {
    const file = join(dir.path, 'flood.txt');
    const expected = await writeFloodFile(file, FLOOD_BYTES);
    // The command waits until the view is attached, then prints the file raw: what arrives must be
    // exactly the file. The signal is a file, not a typed line: a line typed before the shell had
    // turned echo off came back as 4 extra bytes ("go\r\n") under load.
    const go = join(dir.path, 'go');
    const info = await h.app.terminals.spawn({ file: '/bin/sh', args: ['-c', `while [ ! -e '${go}' ]; do sleep 0.05; done; ${catRawCommand(file)}`], cwd: dir.path, kind: 'command', title: 'flood' });
    const view = new HeadlessView(h.client, info.id, { keepText: false });
    await view.attach();
    writeFileSync(go, '');

    let peakInFlight = 0;
    const sampler = setInterval(() => {
      peakInFlight = Math.max(peakInFlight, h.app.terminals.memory().inFlightChars);
    }, 5);
    const final = await h.app.terminals.whenExited(info.id);
    clearInterval(sampler);
    expect(final.exitCode).toBe(0);
    await view.until((_o, v) => v.bytes >= expected.bytes, 60_000, 'the last bytes');
    const stats = h.app.terminals.flowStats(info.id);

    expect(stats.pauses).toBeGreaterThan(0);
    expect(stats.resumes).toBeGreaterThan(0);
    const bound = FLOW_WINDOW_MAX_BYTES + BATCH_MAX_BYTES + PTY_READ_MAX;
    // The host counts bytes (a character is one to four), so in characters the peak seen here
    // is near, not necessarily above, the window.
    expect(stats.peakUnackedChars).toBeGreaterThan(FLOW_WINDOW_MIN_BYTES / 4);
    expect(stats.peakUnackedChars).toBeLessThanOrEqual(bound);
    expect(peakInFlight).toBeLessThanOrEqual(bound);
    expect(view.stream.stats.gaps).toBe(0);
    expect(view.stream.stats.duplicateChars).toBe(0);
    // Acks follow parsing, paced (TERMINAL_ACK_INTERVAL_MS; terminal-stream.test), and in the end cover every character.
    await waitFor(() => h.app.terminals.flowStats(info.id).unackedChars === 0, 'every character to be acknowledged', 5_000);
    expect(view.bytes).toBe(expected.bytes);
    expect(view.digest()).toBe(expected.sha256);
    view.dispose();
  });
});
