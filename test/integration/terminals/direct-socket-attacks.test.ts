/**
 * Browser mode's direct output socket under attack: what a local process without the token can
 * do to the host that upgrades it.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIRECT_SOCKET_PATH } from '../../../src-preload/contract/wire';
import { tempDir } from '../../support/temp';
import { sleep, startTerminalHarness, type TerminalHarness } from './support';

describe('direct terminal output socket: attacks', () => {
  let h: TerminalHarness;
  const dir = tempDir('fd-direct-attacks-');
  beforeAll(async () => {
    h = await startTerminalHarness();
  });
  afterAll(async () => {
    await h.cleanup();
    dir.cleanup();
  });

  it('a client that resets its connection before the refusal is written does not take the host down', async () => {
    const port = h.host.port;
    // Every refusal the upgrade handler writes: no token (401), no ticket (403), and a
    // correct request for a connection that cannot take a direct socket now (503).
    const targets = [`${DIRECT_SOCKET_PATH}?ticket=x`, `/ws`, `${DIRECT_SOCKET_PATH}?ticket=x&token=${encodeURIComponent(h.host.token)}`, `/elsewhere`];
    for (let i = 0; i < 60; i++) {
      const s = connect(port, '127.0.0.1');
      s.on('error', () => undefined);
      s.write(
        [`GET ${targets[i % targets.length]} HTTP/1.1`, `Host: 127.0.0.1:${port}`, `Origin: http://127.0.0.1:${port}`, 'Upgrade: websocket', 'Connection: Upgrade', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13', '', ''].join('\r\n'),
      );
      // RST, not FIN: the host's answer then fails to write (ECONNRESET/EPIPE on its socket).
      if (i % 3 === 0) s.resetAndDestroy();
      else setTimeout(() => s.resetAndDestroy(), i % 3);
    }
    await sleep(500);
    // Still serving (an unhandled socket error would have ended the process, and this test).
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
  });
});
