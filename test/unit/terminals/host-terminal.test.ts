import { spawnSync } from 'node:child_process';
import { stat } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { IPty } from 'node-pty';
import { HostTerminal, partialMarkAtEnd } from '../../../src-main/terminals/pty-host/host-terminal';

/** A pty that reads what the test hands it: no process, no timers of its own. */
function fakePty() {
  let onData: ((d: Uint8Array) => void) | null = null;
  const written: string[] = [];
  /** pause()/resume() calls, in order. */
  const reading: Array<'pause' | 'resume'> = [];
  const pty = {
    // Our own pid: alive, so the leader watch never decides it exited.
    pid: process.pid,
    onData: (cb: (d: Uint8Array) => void) => void (onData = cb),
    onExit: () => undefined,
    write: (d: string) => void written.push(d),
    pause: () => void reading.push('pause'),
    resume: () => void reading.push('resume'),
    resize: () => undefined,
    kill: () => undefined,
  };
  return { pty: pty as unknown as IPty, written, reading, read: (s: string | Uint8Array) => onData!(typeof s === 'string' ? new TextEncoder().encode(s) : s) };
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

  it("counts as flooding after a flood-sized read, reports a keystroke's answer, and is held for another terminal's keystroke apart from flow control", () => {
    const f = fakePty();
    let answers = 0;
    /** Flow control's pauses (true) and resumes (false), as the main process is told. */
    const flows: boolean[] = [];
    const t = new HostTerminal(f.pty, { data: (_o, _d, done) => done(), flow: (paused) => void flows.push(paused), exit: () => undefined, answered: () => answers++ });
    open.push(t);
    // A prompt and a line of a log are no flood; 64 KB within 100 ms is, in reads of any size.
    f.read('$ ');
    f.read('x'.repeat(4000));
    expect(t.flooding).toBe(false);
    for (let i = 0; i < 15; i++) f.read('y'.repeat(4096));
    expect(t.flooding).toBe(false);
    f.read('y'.repeat(4096));
    expect(t.flooding).toBe(true);
    // Input awaits its answer until the next read, which is reported once.
    t.write('k');
    expect(t.awaitingAnswer).toBe(true);
    f.read('k');
    f.read('more');
    expect([t.awaitingAnswer, answers]).toEqual([false, 1]);

    // Held and released with nobody governing the flow: the pty's reading follows the hold.
    t.hold(true);
    t.hold(true);
    t.hold(false);
    expect(f.reading).toEqual(['pause', 'resume']);
    expect(t.getStats().holds).toBe(1);

    // A view governs from here: the flow window pauses the pty while it is held...
    f.reading.length = 0;
    t.setConsumed(0);
    t.hold(true);
    for (let i = 0; i < 10; i++) f.read('z'.repeat(64 * 1024));
    // (One pause of the pty: it was not being read already.)
    expect(f.reading).toEqual(['pause']);
    expect(flows).toEqual([true]);
    // ...and the view catching up does not resume it while the hold lasts; its end does.
    t.setConsumed(Number.MAX_SAFE_INTEGER);
    expect(flows).toEqual([true, false]);
    expect(f.reading).toEqual(['pause']);
    t.hold(false);
    expect(f.reading).toEqual(['pause', 'resume']);

    // A hold that ends while flow control pauses the pty leaves it paused: the view resumes it.
    // (The view drained the last backlog at once: the window grew to its largest, 4 MB.)
    f.reading.length = 0;
    for (let i = 0; i < 70 && f.reading.length === 0; i++) f.read('z'.repeat(64 * 1024));
    expect(f.reading).toEqual(['pause']);
    t.hold(true);
    t.hold(false);
    expect(f.reading).toEqual(['pause']);
    t.setConsumed(Number.MAX_SAFE_INTEGER);
    expect(f.reading).toEqual(['pause', 'resume']);
    expect(t.getStats().holds).toBe(3);

    // Input to a pty that is not being read (held, or paused by flow control) awaits no answer that could come now.
    t.hold(true);
    t.write('q');
    expect(t.awaitingAnswer).toBe(false);
    t.hold(false);
    expect(t.awaitingAnswer).toBe(true);
    // (Rewound to 0, the view is megabytes behind: flow control pauses the pty at once.)
    t.setConsumed(0);
    expect(f.reading.at(-1)).toBe('pause');
    expect(t.awaitingAnswer).toBe(false);
  });

  describe('after the leader exited, the end mark', () => {
    // A leader that has exited and been reaped: the watch finds it gone.
    const deadPid = spawnSync('true').pid!;

    /** A pty whose slave is /dev/null (the mark is written and vanishes) and whose socket counts its ends. */
    function ended() {
      const f = fakePty();
      let exit: ((e: { exitCode: number; signal?: number }) => void) | null = null;
      const socket = { destroyed: 0, destroy: () => void socket.destroyed++ };
      Object.assign(f.pty, { pid: deadPid, _pty: '/dev/null', _socket: socket, onExit: (cb: typeof exit) => void (exit = cb) });
      const sent: Uint8Array[] = [];
      const t = new HostTerminal(f.pty, { data: (_o, d, done) => (sent.push(Uint8Array.from(d)), done()), flow: () => undefined, exit: () => undefined });
      open.push(t);
      t.checkLeader();
      expect(t.leaderExitNoticed).toBe(true);
      const mark = (t as unknown as { endMark: Buffer | null }).endMark;
      expect(mark).not.toBeNull();
      const out = () => Buffer.concat(sent).toString('latin1');
      return { f, t, socket, mark: mark!, out, exit: () => exit!({ exitCode: 0 }) };
    }

    it('is random per terminal, an APC of capitals and digits (no byte the output flags change)', () => {
      const a = ended().mark.toString('latin1');
      const b = ended().mark.toString('latin1');
      expect(a).not.toBe(b);
      expect(a.startsWith('\x1b_FLIGHTDECK-END-') && a.endsWith('\x1b\\')).toBe(true);
      expect(a.slice(17, -2)).toMatch(/^[0-9A-F]{16}$/);
    });

    it('ends the stream where it is read, cut by the reads anywhere, and is never handed on', () => {
      for (let cut = 0; cut <= 40; cut++) {
        const e = ended();
        const stream = Buffer.concat([Buffer.from('last words\r\n'), e.mark, Buffer.from('late')]);
        const at = Math.min(cut, stream.length);
        e.f.read(stream.subarray(0, at));
        expect(e.socket.destroyed).toBe(0);
        e.f.read(stream.subarray(at));
        // What a process still holding the pty wrote after it is handed on with the rest.
        expect(e.socket.destroyed).toBe(1);
        expect(e.t.streamEndedBy).toBe('mark');
        e.exit();
        expect(e.out()).toBe('last words\r\nlate');
      }
    });

    it('a read that only looked like its start is handed on with the next; a start still held at the exit (the mark cut off by node-pty) is dropped', () => {
      const e = ended();
      const half = e.mark.subarray(0, 10);
      e.f.read(Buffer.concat([Buffer.from('a'), half]));
      expect(e.out()).toBe('a');
      e.f.read(Buffer.from('b'));
      e.f.read(half);
      expect(e.socket.destroyed).toBe(0);
      e.exit();
      expect(e.out()).toBe(`a${half.toString('latin1')}b`);
    });

    it('once the stream is ended, input and resizes no longer reach the closed pty', () => {
      const e = ended();
      const resized: number[][] = [];
      Object.assign(e.f.pty, { resize: (c: number, r: number) => void resized.push([c, r]) });
      e.t.resize(100, 30);
      e.t.write('x');
      e.f.read(e.mark);
      expect(e.t.streamEndedBy).toBe('mark');
      e.t.resize(120, 40);
      e.t.write('y');
      expect(resized).toEqual([[100, 30]]);
      expect(e.f.written).toEqual(['x']);
    });
  });

  it("a quiet spell that ran out while this process was stalled still reads what waited: the stream ends only if nothing came", async () => {
    const f = fakePty();
    const socket = { destroyed: 0, destroy: () => void socket.destroyed++ };
    // No slave to write a mark through: the quiet spell (30 ms) ends the stream.
    Object.assign(f.pty, { pid: spawnSync('true').pid!, _socket: socket });
    const sent: string[] = [];
    const t = new HostTerminal(f.pty, { data: (_o, d, done) => (sent.push(text(d)), done()), flow: () => undefined, exit: () => undefined });
    open.push(t);
    // The tail arrives as I/O (a read's callback, one request to the thread pool) while the loop
    // is stalled past the spell: the spell's timer and that read are both due when the loop turns
    // again, and an I/O phase comes between the timer and the next immediate. All of it starts in
    // one callback, so no turn of the loop can run the timer before the stall.
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        t.checkLeader();
        stat(__filename, () => f.read('the tail'));
        const until = performance.now() + 120;
        while (performance.now() < until) {
          // A stalled event loop.
        }
        resolve();
      }),
    );
    // Two turns later: the timer, the read and whatever the timer left for the turn's end have run.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(socket.destroyed).toBe(0);
    await new Promise((r) => setTimeout(r, 100));
    expect(socket.destroyed).toBe(1);
    expect(t.streamEndedBy).toBe('quiet');
    (t as unknown as { batcher: { flush(): void } }).batcher.flush();
    expect(sent.join('')).toBe('the tail');
  });

  it('partialMarkAtEnd: the longest end of the data that begins the mark', () => {
    const m = new TextEncoder().encode('ABCAB!');
    const n = (s: string) => partialMarkAtEnd(new TextEncoder().encode(s), m);
    expect([n(''), n('x'), n('xA'), n('xAB'), n('xABCA'), n('xABCAB'), n('ABCAB'), n('ABCAB!'), n('xAC')]).toEqual([0, 0, 1, 2, 4, 5, 5, 0, 0]);
  });
});
