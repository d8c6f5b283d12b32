import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catRawCommand, writeFloodFile } from '../../fixtures/terminals/flood';
import { HeadlessView } from '../../fixtures/terminals/headless-view';
import { tempDir } from '../../support/temp';
import { startTerminalHarness, type TerminalHarness } from './support';

const FLOOD_BYTES = 4 * 1024 * 1024;

/**
 * Terminal output as bytes end to end (pty host → main → binary WebSocket frames → xterm),
 * two terminals sharing one socket: one view parses at full speed, the other is slow (a busy
 * tab), so its pty is paused by flow control while the fast one's frames keep flowing past.
 */
describe('two floods on one socket', () => {
  let h: TerminalHarness;
  const dir = tempDir('fd-binary-');
  beforeAll(async () => {
    h = await startTerminalHarness();
  });
  afterAll(async () => {
    await h.cleanup();
    dir.cleanup();
  });

  it('arrive byte-exact, in order, with nothing lost or repeated while one view lags', { timeout: 180_000 }, async () => {
    const fileA = join(dir.path, 'a.txt');
    const fileB = join(dir.path, 'b.txt');
    const a = await writeFloodFile(fileA, FLOOD_BYTES);
    // A different text, so frames crossing between the two terminals would show in the digests.
    const bBytes = Buffer.from('lagging view: 日本語 🚀 ünïcödé — '.repeat(120_000));
    writeFileSync(fileB, bBytes);
    const go = join(dir.path, 'go');
    const spawnFlood = (file: string, title: string) =>
      h.app.terminals.spawn({ file: '/bin/sh', args: ['-c', `while [ ! -e '${go}' ]; do sleep 0.05; done; ${catRawCommand(file)}`], cwd: dir.path, kind: 'command', title });
    const fast = await spawnFlood(fileA, 'fast');
    const slow = await spawnFlood(fileB, 'slow');
    const fastView = new HeadlessView(h.client, fast.id, { keepText: false });
    // The slow view acknowledges each chunk 15 ms after xterm parsed it.
    const slowView = new HeadlessView(h.client, slow.id, { keepText: false });
    const write = slowView.term.write.bind(slowView.term);
    (slowView.term as { write: typeof write }).write = (data, cb) => write(data, cb && (() => setTimeout(cb, 15)));
    await fastView.attach();
    await slowView.attach();
    writeFileSync(go, '');

    await fastView.until((_o, v) => v.bytes >= a.bytes, 120_000, 'the fast flood');
    await slowView.until((_o, v) => v.bytes >= bBytes.length, 120_000, 'the slow flood');
    expect(fastView.bytes).toBe(a.bytes);
    expect(fastView.digest()).toBe(a.sha256);
    expect(slowView.bytes).toBe(bBytes.length);
    expect(slowView.digest()).toBe(createHash('sha256').update(bBytes).digest('hex'));
    for (const v of [fastView, slowView]) {
      expect(v.stream.stats.gaps).toBe(0);
      expect(v.stream.stats.duplicateChars).toBe(0);
      expect(v.stream.stats.resyncs).toBe(0);
    }
    // The lagging view held its own pty back, and only its own.
    expect(h.app.terminals.flowStats(slow.id).pauses).toBeGreaterThan(0);
    // Live output crossed as bytes: the views' sinks were handed UTF-8, never decoded text.
    expect(fastView.textWrites).toBe(0);
    expect(fastView.binaryWrites).toBeGreaterThan(10);
    fastView.dispose();
    slowView.dispose();
  });
});
