import { describe, expect, it } from 'vitest';
import { DataBatcher } from '../../../src-main/terminals/batcher';
import { FLOW_WINDOW_MIN_BYTES } from '../../../src-main/terminals/constants';
import { OutputCapture } from '../../../src-main/terminals/output-capture';
import { Scrollback, standaloneBytes } from '../../../src-main/terminals/scrollback';
import { utf16Length } from '../../../src-main/terminals/utf16-length';
import { ViewFlow } from '../../../src-main/terminals/view-flow';

function manualTimers() {
  const timers: Array<{ fn: () => void; cleared: boolean }> = [];
  return {
    timers,
    opts: {
      setTimer: (fn: () => void) => {
        const t = { fn, cleared: false };
        timers.push(t);
        return t;
      },
      clearTimer: (t: unknown) => ((t as { cleared: boolean }).cleared = true),
    },
    fire() {
      const live = timers.filter((t) => !t.cleared);
      timers.length = 0;
      for (const t of live) t.fn();
    },
  };
}

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe('DataBatcher', () => {
  it('sends a lone write at once (typing never waits) and gathers a burst until the timer', () => {
    const out: string[] = [];
    const clock = manualTimers();
    const b = new DataBatcher((d) => out.push(text(d)), { ...clock.opts, maxBytes: 10_000 });
    b.write(bytes('k'));
    expect(out).toEqual(['k']);
    // More than a window passes on at once: a burst, gathered from here on.
    b.write(bytes('a'.repeat(3000)));
    b.write(bytes('b'));
    expect(out).toEqual(['k']);
    expect(b.pending).toBe(3001);
    clock.fire();
    expect(out).toEqual(['k', 'a'.repeat(3000) + 'b']);
    // Still in a burst window after a flush: even a small write is gathered.
    b.write(bytes('c'));
    expect(out).toHaveLength(2);
    clock.fire();
    expect(out[2]).toBe('c');
    // Once quiet, the next write is immediate again.
    clock.fire();
    b.write(bytes('z'));
    expect(out).toEqual(['k', 'a'.repeat(3000) + 'b', 'c', 'z']);
  });

  it('passes a few small writes on at once while nothing is gathered, so an echo never waits for the window the last one opened', () => {
    const out: string[] = [];
    const clock = manualTimers();
    const b = new DataBatcher((d) => out.push(text(d)), { ...clock.opts, maxBytes: 1000, immediateWrites: 3, immediateBytes: 20 });
    // Fast typing: each echo comes back while the window opened by the one before is still open.
    b.write(bytes('l'));
    b.write(bytes('s'));
    b.write(bytes('\r\n'));
    expect(out).toEqual(['l', 's', '\r\n']);
    expect(b.pending).toBe(0);
    // A fourth write in the same window is a burst: gathered, and so is everything after it.
    b.write(bytes('a'));
    b.write(bytes('b'));
    expect(out).toHaveLength(3);
    clock.fire();
    expect(out).toEqual(['l', 's', '\r\n', 'ab']);

    // The bytes bound: small writes add up to a burst too.
    clock.fire();
    out.length = 0;
    b.write(bytes('0123456789'));
    b.write(bytes('0123456789'));
    b.write(bytes('!'));
    expect(out).toEqual(['0123456789', '0123456789']);
    clock.fire();
    expect(out).toEqual(['0123456789', '0123456789', '!']);
  });

  it('sends an urgent write (the echo of input) at once, after what is gathered, and keeps the window', () => {
    const out: string[] = [];
    const clock = manualTimers();
    const b = new DataBatcher((d) => out.push(text(d)), { ...clock.opts, maxBytes: 10_000 });
    b.write(bytes('f'.repeat(3000)));
    b.write(bytes('g'));
    expect(out).toHaveLength(1);
    b.write(bytes('k'), true);
    expect(out).toEqual(['f'.repeat(3000), 'g', 'k']);
    // The burst goes on being gathered in the same window.
    b.write(bytes('h'));
    expect(out).toHaveLength(3);
    clock.fire();
    expect(out[3]).toBe('h');
  });

  it('flushes at the size cap without waiting for the timer, and on demand', () => {
    const out: string[] = [];
    const clock = manualTimers();
    // Only the window's first write goes at once here: this is about the cap.
    const b = new DataBatcher((d) => out.push(text(d)), { ...clock.opts, maxBytes: 10, immediateWrites: 1 });
    b.write(bytes('first'));
    b.write(bytes('12345'));
    b.write(bytes('67890'));
    expect(out).toEqual(['first', '1234567890']);
    b.write(bytes('tail'));
    b.flush();
    expect(out).toEqual(['first', '1234567890', 'tail']);
    b.dispose();
    expect(clock.timers.every((t) => t.cleared)).toBe(true);
  });
});

describe('Scrollback', () => {
  /** What the terminal service does with each batch from the pty host. */
  const add = (s: Scrollback, text: string) => s.append(Buffer.from(text, 'utf8'), text.length);

  it('keeps the most recent output within its capacity, addressed by stream offsets', () => {
    const s = new Scrollback(10);
    add(s, 'hello ');
    add(s, 'world!');
    expect(s.end).toBe(12);
    expect(s.start).toBe(2);
    expect(s.read()).toBe('llo world!');
    for (let i = 0; i < 1000; i++) add(s, 'x');
    expect(s.length).toBe(10);
    expect(s.end).toBe(1012);
    expect(s.read()).toBe('x'.repeat(10));
  });

  it('never starts with half of a surrogate pair', () => {
    const s = new Scrollback(3);
    add(s, 'a😀b'); // 4 UTF-16 units: a, high, low, b
    expect(s.read()).toBe('😀b'.slice(0, 3));
    add(s, '😀😀');
    const kept = s.read();
    expect(kept.charCodeAt(0) >= 0xdc00 && kept.charCodeAt(0) <= 0xdfff).toBe(false);
    expect(s.end - s.start).toBe(kept.length);
  });

  it('trims large batches exactly and replays multibyte text as it came', () => {
    const s = new Scrollback(5_000);
    const line = 'ok naïve 日本語 🚀 данные\n';
    let all = '';
    for (let i = 0; i < 400; i++) {
      const batch = `${i} ${line.repeat(1 + (i % 7))}`;
      all += batch;
      add(s, batch);
    }
    expect(s.end).toBe(all.length);
    expect(s.length).toBeLessThanOrEqual(5_000);
    expect(s.length).toBeGreaterThanOrEqual(4_998);
    expect(s.read()).toBe(all.slice(s.start));
  });

  it('keeps a batch that is not valid UTF-8 whole rather than cutting it blindly', () => {
    const s = new Scrollback(4);
    const bad = Uint8Array.of(0x61, 0xff, 0x62, 0xc3, 0x63, 0x64); // a, junk, b, a cut-off é, c, d
    const text = new TextDecoder().decode(bad);
    s.append(bad, text.length);
    expect(s.read()).toBe(text);
    expect(s.end - s.start).toBe(text.length);
    add(s, 'wxyz');
    expect(s.read()).toBe('wxyz');
    expect(s.start).toBe(text.length);
  });

  it('reads from an offset: only the batches from there on, cut within a batch by UTF-16 units; everything when the offset is not kept', () => {
    const s = new Scrollback(40);
    add(s, 'first batch|');
    add(s, 'x'.repeat(5000)); // a batch of its own (over the merge size)
    const end = s.end;
    add(s, 'naïve 😀 tail|');
    expect(s.readFrom(end)).toEqual({ data: 'naïve 😀 tail|', start: end });
    // Within a batch, past the surrogate pair (2 units).
    expect(s.readFrom(end + 'naïve 😀'.length)).toEqual({ data: ' tail|', start: end + 'naïve 😀'.length });
    expect(s.readFrom(s.end)).toEqual({ data: '', start: s.end });
    // Cut off already (the capacity is 40), or past the end: what is kept, from its start.
    expect(s.readFrom(3)).toEqual({ data: s.read(), start: s.start });
    expect(s.readFrom(s.end + 1)).toEqual({ data: s.read(), start: s.start });
    expect(s.readFrom(s.start)).toEqual({ data: s.read(), start: s.start });
  });

  it('reads from an offset inside merged small batches, keeps a batch that is not UTF-8 whole before it, and after a restart', () => {
    const s = new Scrollback(1_000);
    const bad = Uint8Array.of(0x61, 0xff, 0x62); // a, junk, b: three units decoded
    s.append(bad, 3);
    add(s, 'é1');
    add(s, 'é2'); // merged with the one before (both valid, small)
    expect(s.readFrom(3)).toEqual({ data: 'é1é2', start: 3 });
    expect(s.readFrom(5)).toEqual({ data: 'é2', start: 5 });
    expect(s.readFrom(1)).toEqual({ data: '\uFFFDbé1é2', start: 1 });
    s.restartAt(100);
    add(s, 'fresh');
    expect(s.readFrom(3)).toEqual({ data: 'fresh', start: 100 });
    expect(s.readFrom(102)).toEqual({ data: 'esh', start: 102 });
  });

  it('replays a U+FEFF that starts a batch, as counted (it is output, not a byte order mark)', () => {
    const s = new Scrollback(100);
    add(s, '\uFEFFab');
    add(s, '\uFEFFcd');
    // Not merged with the batch before (it is not valid UTF-8 alone): a chunk of its own.
    s.append(Uint8Array.of(0xef, 0xbb, 0xbf, 0xff), 2);
    expect(s.read()).toBe('\uFEFFab\uFEFFcd\uFEFF\uFFFD');
    expect(s.read().length).toBe(s.end - s.start);
    // The same count for a batch that is not valid UTF-8 (decoded to be counted).
    const bad = Uint8Array.of(0xef, 0xbb, 0xbf, 0xff);
    expect(utf16Length(bad)).toBe(2);
    expect(utf16Length(Buffer.from('\uFEFFx', 'utf8'))).toBe(2);
  });
});

describe('standaloneBytes', () => {
  it('keeps a batch whose buffer is its own message, and copies one out of a buffer that holds more', () => {
    const own = new Uint8Array(new ArrayBuffer(128 * 1024 + 100), 60, 128 * 1024);
    expect(standaloneBytes(own)).toBe(own);
    const small = new Uint8Array(new ArrayBuffer(120), 80, 3);
    expect(standaloneBytes(small)).toBe(small);
    // A keystroke's echo in a buffer of other messages would keep all of them alive in the scrollback.
    const shared = new Uint8Array(new ArrayBuffer(256 * 1024), 1000, 2);
    shared.set([0x68, 0x69]);
    const kept = standaloneBytes(shared);
    expect(kept).not.toBe(shared);
    expect(kept.buffer.byteLength).toBe(2);
    expect([...kept]).toEqual([0x68, 0x69]);
    const half = new Uint8Array(new ArrayBuffer(200 * 1024), 0, 100 * 1024);
    expect(standaloneBytes(half).buffer.byteLength).toBe(100 * 1024);
  });
});

describe('ViewFlow', () => {
  it('is governed by the slowest live view, clamps acks, and replaces a reattaching connection', () => {
    const f = new ViewFlow(() => 0, 1_000);
    expect(f.consumed()).toBeNull();
    f.attach('a', 'conn-1', 0);
    f.attach('b', 'conn-2', 0);
    f.ack('a', 500, 1_000);
    f.ack('b', 200, 1_000);
    expect(f.consumed()).toBe(200);
    expect(f.unacked(1_000)).toBe(800);
    f.ack('a', 10_000, 1_000);
    expect(f.unacked(1_000)).toBe(800);
    expect(f.consumed()).toBe(200);
    // conn-2 reloads: its new view starts at the current end (force-resume).
    f.attach('b2', 'conn-2', 1_000);
    expect(f.has('b')).toBe(false);
    expect(f.consumed()).toBe(1_000);
    expect(f.dropConnection('conn-1')).toBe(true);
    expect(f.size).toBe(1);
    expect(f.ack('a', 1, 1_000)).toBe(false);
  });

  it('sets aside a view that stopped acknowledging while far behind, until it acknowledges again', () => {
    let now = 0;
    const f = new ViewFlow(() => now, 1_000);
    f.attach('frozen', 'c1', 0);
    f.attach('live', 'c2', 0);
    const end = FLOW_WINDOW_MIN_BYTES * 2;
    f.ack('live', end, end);
    now = 500;
    expect(f.markStalled(end)).toBe(false);
    now = 1_000;
    expect(f.markStalled(end)).toBe(true);
    expect(f.consumed()).toBe(end);
    f.ack('frozen', 10, end + 50);
    expect(f.consumed()).toBe(end);
    expect(f.unacked(end + 50)).toBe(50);
  });

  it('a view back from a stall keeps its lead over this process (the direct socket is ahead of IPC)', () => {
    let now = 0;
    const f = new ViewFlow(() => now, 1_000);
    f.attach('direct', 'c1', 0);
    const end = FLOW_WINDOW_MIN_BYTES * 2;
    now = 1_000;
    expect(f.markStalled(end)).toBe(true);
    // It acknowledges all it parsed: 100 characters more than this process has received yet.
    f.ack('direct', end + 100, end, 4_096);
    expect(f.consumed()).toBe(end + 100);
    // Those 100 arrive here, and 50 more that the view then parses and acknowledges.
    f.ack('direct', 50, end + 150, 4_096);
    expect(f.unacked(end + 150)).toBe(0);
  });
});

describe('OutputCapture', () => {
  it('keeps everything under the cap and converts CRLF', () => {
    const c = new OutputCapture(100);
    c.append('one\r\n');
    c.append('two\r\n');
    expect(c.text()).toBe('one\ntwo\n');
    expect(c.truncated).toBe(false);
  });

  it('keeps head and tail of a long output within the cap, on character boundaries', () => {
    const c = new OutputCapture(64);
    c.append('HEAD-');
    for (let i = 0; i < 2_000; i++) c.append(`é${i}€`);
    c.append('-TAIL');
    const out = c.text();
    expect(c.truncated).toBe(true);
    expect(out.startsWith('HEAD-')).toBe(true);
    expect(out.endsWith('-TAIL')).toBe(true);
    expect(out).not.toContain('\uFFFD');
    const [head, tail] = out.split(/\n… \[\d+ bytes of output omitted\] …\n/);
    expect(Buffer.byteLength(head!) + Buffer.byteLength(tail!)).toBeLessThanOrEqual(64);
    expect(c.totalBytes).toBeGreaterThan(10_000);
  });
});
