/**
 * A view attached before its connection's direct socket opened is switched to that socket
 * mid-stream. The direct socket must not overtake what the main socket still carries: the view
 * then saw a gap, attached again, and received output on both paths (dropped by offset, so the
 * screen stayed right, but the flood test counted 174,072 duplicated characters under load).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket as NodeWs } from 'ws';
import { DIRECT_SOCKET_PATH } from '../../../src-preload/contract/wire';
import { HeadlessView } from '../../fixtures/terminals/headless-view';
import { dropSockets, holdOutput, receivedBinaryBytes } from '../../fixtures/terminals/ws-client';
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

  it('a switch marked for a direct socket that was lost before the mark went out does not let the next direct socket overtake the main socket', { timeout: 60_000 }, async () => {
    const terms = h.app.terminals as unknown as { onHostMessage(m: { t: string }): void };
    const deliver = terms.onHostMessage.bind(h.app.terminals);
    const heldOpen: Array<{ t: string }> = [];
    terms.onHostMessage = (m) => (m.t === 'directOpen' ? void heldOpen.push(m) : deliver(m));
    // The host's main sockets hear of nothing written (ws.send's callbacks wait): their terminal
    // lanes back up as behind a slow network, while what is sent at once (directLost) passes.
    const proto = NodeWs.prototype as unknown as { send(this: { _isServer?: boolean }, data: unknown, a?: unknown, b?: unknown): void };
    const send = proto.send;
    const callbacks: Array<() => void> = [];
    let holding = true;
    proto.send = function (data, a, b) {
      if (this._isServer && holding && typeof a === 'function') {
        const cb = a as (e?: Error) => void;
        return send.call(this, data, (e?: Error) => callbacks.push(() => cb(e)));
      }
      return send.call(this, data, a, b);
    };
    const release = () => {
      holding = false;
      for (const cb of callbacks.splice(0)) cb();
    };
    const parts = { first: 'a'.repeat(400_000), second: 'b'.repeat(50_000), third: 'c'.repeat(50_000) };
    // Names of their own: the files of the test before are still there.
    for (const [name, text] of Object.entries(parts)) writeFileSync(join(dir.path, `stale-${name}`), text);
    const go = (n: number) => writeFileSync(join(dir.path, `stale-go${n}`), '');
    const wait = (n: number) => `while [ ! -e '${join(dir.path, `stale-go${n}`)}' ]; do sleep 0.02; done`;
    const script = `stty -opost -echo; ${wait(1)}; cat stale-first; ${wait(2)}; cat stale-second; ${wait(3)}; cat stale-third; sleep 30`;
    const info = await h.app.terminals.spawn({ file: '/bin/sh', args: ['-c', script], cwd: dir.path, kind: 'command', title: 'stale switch' });
    try {
      // The connection's direct socket (the test before opened one) goes; the next one's opening is held.
      dropSockets(DIRECT_SOCKET_PATH);
      await waitFor(() => heldOpen.length === 1 || null, 'the direct socket handed to the pty host');
      const view = new HeadlessView(h.client, info.id);
      await view.attach();
      // The first part on the main socket: more than it may have in flight, so the rest queues in the lane.
      go(1);
      await waitFor(() => h.app.terminals.flowStats(info.id).scrollbackChars >= parts.first.length || null, 'the first part read');
      // The direct socket opens: the switch is marked in the lane, behind the first part.
      for (const m of heldOpen.splice(0)) deliver(m);
      await waitFor(() => h.app.terminals.directSockets().some((conn) => h.app.terminals.isDirect(conn, info.id)) || null, 'the switch to the direct socket');
      // …and is lost before that mark went out. The view attaches again; the next direct socket's opening is held.
      dropSockets(DIRECT_SOCKET_PATH);
      await waitFor(() => heldOpen.length === 1 || null, 'the next direct socket handed to the pty host');
      // The re-attach brings the first part (the main socket's lane still holds the rest of it).
      await view.until((o) => o.length >= parts.first.length, 20_000, 'the view attached again');
      // The second part on the main socket (queued behind the stale mark), then the next direct socket carries the third.
      go(2);
      await waitFor(() => h.app.terminals.flowStats(info.id).scrollbackChars >= parts.first.length + parts.second.length || null, 'the second part read');
      for (const m of heldOpen.splice(0)) deliver(m);
      await waitFor(() => h.app.terminals.directSockets().some((conn) => h.app.terminals.isDirect(conn, info.id)) || null, 'the switch to the next direct socket');
      const directBefore = receivedBinaryBytes(DIRECT_SOCKET_PATH);
      go(3);
      await waitFor(() => receivedBinaryBytes(DIRECT_SOCKET_PATH) - directBefore >= parts.third.length || null, 'the third part on the direct socket');
      release();
      await view.until((o) => o.length >= parts.first.length + parts.second.length + parts.third.length, 20_000, 'all parts');
      expect(view.output).toBe(parts.first + parts.second + parts.third);
      expect(view.resets).toBe(0);
      // Only the re-attach after the lost socket (nothing overtaken: no gap, no second one).
      expect(view.stream.stats.resyncs).toBe(0);
      view.dispose();
    } finally {
      proto.send = send;
      release();
      delete (terms as { onHostMessage?: unknown }).onHostMessage;
      h.app.terminals.kill(info.id);
    }
  });
});
