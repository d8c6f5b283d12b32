/**
 * A view attached before its connection's direct socket opened is switched to that socket
 * mid-stream. The direct socket must not overtake what the main socket still carries: the view
 * then saw a gap, attached again, and received output on both paths (dropped by offset, so the
 * screen stayed right, but the flood test counted 174,072 duplicated characters under load).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIRECT_SOCKET_PATH } from '../../../src-preload/contract/wire';
import { HeadlessView } from '../../fixtures/terminals/headless-view';
import { holdOutput, receivedBinaryBytes } from '../../fixtures/terminals/ws-client';
import { tempDir } from '../../support/temp';
import { startTerminalHarness, waitFor, type TerminalHarness } from './support';

describe('a view switched to the direct socket mid-stream', () => {
  let h: TerminalHarness;
  const dir = tempDir('fd-switch-');
  beforeAll(async () => {
    h = await startTerminalHarness();
  });
  afterAll(async () => {
    await h.cleanup();
    dir.cleanup();
  });

  it('gets the main socket backlog before the direct output, with no gap and nothing twice', { timeout: 60_000 }, async () => {
    // Hold the pty host's news that the direct socket is open, so the view attaches on the main socket.
    const terms = h.app.terminals as unknown as { onHostMessage(m: { t: string }): void };
    const deliver = terms.onHostMessage.bind(h.app.terminals);
    const heldOpen: Array<{ t: string }> = [];
    terms.onHostMessage = (m) => (m.t === 'directOpen' ? void heldOpen.push(m) : deliver(m));
    const first = 'a'.repeat(100_000);
    const second = 'b'.repeat(100_000);
    writeFileSync(join(dir.path, 'first'), first);
    writeFileSync(join(dir.path, 'second'), second);
    const go1 = join(dir.path, 'go1');
    const go2 = join(dir.path, 'go2');
    const script = `stty -opost -echo; while [ ! -e '${go1}' ]; do sleep 0.02; done; cat first; while [ ! -e '${go2}' ]; do sleep 0.02; done; cat second; sleep 30`;
    const info = await h.app.terminals.spawn({ file: '/bin/sh', args: ['-c', script], cwd: dir.path, kind: 'command', title: 'switch' });
    try {
      await waitFor(() => heldOpen.length === 1 || null, 'the direct socket handed to the pty host');
      const view = new HeadlessView(h.client, info.id);
      await view.attach();
      // The first part goes over the main socket, where it stays in the client's backlog.
      const release = holdOutput('/ws');
      const mainBefore = receivedBinaryBytes('/ws');
      writeFileSync(go1, '');
      await waitFor(() => receivedBinaryBytes('/ws') - mainBefore >= first.length || null, 'the first part on the main socket');
      // Now the direct socket opens: the attached view is routed to it, and the second part goes there.
      delete (terms as { onHostMessage?: unknown }).onHostMessage;
      for (const m of heldOpen) deliver(m);
      await waitFor(() => h.app.terminals.directSockets().some((conn) => h.app.terminals.isDirect(conn, info.id)) || null, 'the switch to the direct socket');
      const directBefore = receivedBinaryBytes(DIRECT_SOCKET_PATH);
      writeFileSync(go2, '');
      await waitFor(() => receivedBinaryBytes(DIRECT_SOCKET_PATH) - directBefore >= second.length || null, 'the second part on the direct socket');
      release();
      await view.until((o) => o.length >= first.length + second.length, 20_000, 'both parts');
      expect(view.output).toBe(first + second);
      expect(view.resets).toBe(0);
      expect(view.stream.stats.resyncs).toBe(0);
      expect(view.stream.stats.duplicateChars).toBe(0);
      expect(view.stream.stats.written).toBe(first.length + second.length);
      view.dispose();
    } finally {
      delete (terms as { onHostMessage?: unknown }).onHostMessage;
      h.app.terminals.kill(info.id);
    }
  });
});
