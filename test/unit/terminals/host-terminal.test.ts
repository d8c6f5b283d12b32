import { afterEach, describe, expect, it } from 'vitest';
import type { IPty } from 'node-pty';
import { HostTerminal } from '../../../src-main/terminals/pty-host/host-terminal';

/** A pty that reads what the test hands it: no process, no timers of its own. */
function fakePty() {
  let onData: ((d: Uint8Array) => void) | null = null;
  const written: string[] = [];
  const pty = {
    // Our own pid: alive, so the leader watch never decides it exited.
    pid: process.pid,
    onData: (cb: (d: Uint8Array) => void) => void (onData = cb),
    onExit: () => undefined,
    write: (d: string) => void written.push(d),
    pause: () => undefined,
    resume: () => undefined,
    resize: () => undefined,
    kill: () => undefined,
  };
  return { pty: pty as unknown as IPty, written, read: (s: string | Uint8Array) => onData!(typeof s === 'string' ? new TextEncoder().encode(s) : s) };
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe('HostTerminal', () => {
  const open: HostTerminal[] = [];
  afterEach(() => {
    // Ends the shared leader watch (an interval) and the batch timer.
    for (const t of open.splice(0)) (t as unknown as { batcher: { dispose(): void } }).batcher.dispose();
  });

  it('hands the first read after input (its echo) on at once, after what was gathered, even inside a burst’s batch window', () => {
    const f = fakePty();
    const sent: string[] = [];
    const t = new HostTerminal(f.pty, { data: (_o, d, done) => (sent.push(text(d)), done()), flow: () => undefined, exit: () => undefined });
    open.push(t);
    // A burst: the first read goes at once and opens the window, the next is gathered.
    f.read('x'.repeat(5000));
    f.read('y'.repeat(3000));
    expect(sent.map((s) => s.length)).toEqual([5000]);
    // A keystroke; its echo is the next read: it does not wait for the window's timer.
    t.write('k');
    expect(f.written).toEqual(['k']);
    f.read('k');
    expect(sent).toEqual(['x'.repeat(5000), 'y'.repeat(3000), 'k']);
    // Only that one read: output after it is gathered as part of the burst again.
    f.read('z'.repeat(3000));
    expect(sent).toHaveLength(3);
    // The input and its echo's read are timed for the benchmark's per-hop figures.
    const [echo, ...more] = t.getStats().echoes;
    expect(more).toEqual([]);
    expect(echo!.readAt).not.toBeNull();
    expect(echo!.readAt!).toBeGreaterThanOrEqual(echo!.inputAt);
  });

  it('an echo whose first read is only the start of a character still skips the window, with the read that completes it', () => {
    const f = fakePty();
    const sent: string[] = [];
    const t = new HostTerminal(f.pty, { data: (_o, d, done) => (sent.push(text(d)), done()), flow: () => undefined, exit: () => undefined });
    open.push(t);
    f.read('x'.repeat(5000));
    expect(sent).toHaveLength(1);
    // A keystroke whose echo (é, two bytes) reaches the host in two reads.
    t.write('é');
    const e = new TextEncoder().encode('é');
    f.read(e.subarray(0, 1));
    f.read(e.subarray(1));
    expect(sent).toEqual(['x'.repeat(5000), 'é']);
  });
});
