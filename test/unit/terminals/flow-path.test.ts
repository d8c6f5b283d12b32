import { describe, expect, it } from 'vitest';
import type { Client } from '../../../src-preload/client/client';
import { TerminalStream, type TerminalSink } from '../../../src-preload/client/terminal-stream';
import { OUTPUT_PIECE_BYTES, OutputScheduler } from '../../../src-preload/client/output-scheduler';
import { decodeTerminalDataFrame, encodeTerminalDataFrame, hasBytes, terminalDataFromBytes } from '../../../src-preload/contract/terminal-frames';
import { utf16Length } from '../../../src-main/terminals/utf16-length';
import { FairQueue } from '../../../src-main/terminals/fair-queue';
import { FlowWindow } from '../../../src-main/terminals/flow-window';
import { Utf8Splitter } from '../../../src-main/terminals/utf8-splitter';

/** A channel that writes out frames only when told to (a slow socket), recording the order. */
function slowChannel() {
  const written: string[] = [];
  const inFlight: Array<{ item: string; done: () => void }> = [];
  return {
    written,
    inFlight,
    transmit: (item: string, done: () => void) => inFlight.push({ item, done }),
    /** Writes out the oldest frame in flight. */
    drainOne() {
      const f = inFlight.shift();
      if (!f) return false;
      written.push(f.item);
      f.done();
      return true;
    },
    drainAll() {
      while (this.drainOne());
    },
  };
}

describe('FairQueue', () => {
  it('sends a quiet lane’s small frame at once while another lane floods', () => {
    const ch = slowChannel();
    const q = new FairQueue<string>(ch.transmit, { maxInFlight: 100, smallBelow: 10 });
    for (let i = 0; i < 5; i++) q.push('flood', `f${i}`, 60);
    // Two flood frames fit the budget (60 < 100, then 120 ≥ 100): the rest wait in their lane.
    expect(ch.inFlight.map((f) => f.item)).toEqual(['f0', 'f1']);
    expect(q.queuedBytes).toBe(180);
    q.push('quiet', 'echo', 1);
    // The echo skipped the three queued flood frames.
    expect(ch.inFlight.map((f) => f.item)).toEqual(['f0', 'f1', 'echo']);
    ch.drainAll();
    expect(ch.written).toEqual(['f0', 'f1', 'echo', 'f2', 'f3', 'f4']);
    expect(q.inFlightBytes).toBe(0);
    expect(q.queuedBytes).toBe(0);
  });

  it('keeps each lane in order, takes lanes in turn, and never lets a small frame pass its own lane', () => {
    const ch = slowChannel();
    const q = new FairQueue<string>(ch.transmit, { maxInFlight: 50, smallBelow: 10 });
    q.push('a', 'a0', 50);
    q.push('a', 'a1', 50);
    q.push('a', 'a2', 50);
    q.push('b', 'b0', 50);
    q.push('b', 'b1', 50);
    // Small, but lane a has frames queued: it must wait behind them (the exit after the last output).
    q.push('a', 'a-exit', 0);
    ch.drainAll();
    expect(ch.written).toEqual(['a0', 'a1', 'b0', 'a2', 'b1', 'a-exit']);
  });

  it('loses nothing under backpressure, whatever order frames are pushed and drained in', () => {
    const ch = slowChannel();
    const q = new FairQueue<string>(ch.transmit, { maxInFlight: 300, smallBelow: 16 });
    const pushed = new Map<string, string[]>();
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 2_000; i++) {
      const lane = `t${Math.floor(rnd() * 4)}`;
      const item = `${lane}:${i}`;
      (pushed.get(lane) ?? pushed.set(lane, []).get(lane)!).push(item);
      q.push(lane, item, Math.floor(rnd() * 200));
      if (rnd() < 0.4) ch.drainOne();
      // The budget holds: what is in flight exceeds it by at most one frame (or small ones).
      expect(q.inFlightBytes).toBeLessThan(300 + 200 + 16 * 2_000);
    }
    ch.drainAll();
    expect(ch.written.length).toBe(2_000);
    for (const [lane, items] of pushed) expect(ch.written.filter((w) => w.startsWith(`${lane}:`))).toEqual(items);
  });

  it('drops a lane on request and ignores pushes after dispose', () => {
    const ch = slowChannel();
    const q = new FairQueue<string>(ch.transmit, { maxInFlight: 10, smallBelow: 1 });
    q.push('a', 'a0', 10);
    q.push('a', 'a1', 10);
    q.push('a', 'a2', 7);
    expect(q.laneBytes('a')).toBe(17);
    expect(q.dropLane('a')).toBe(17);
    expect(q.queuedBytes).toBe(0);
    q.dispose();
    q.push('b', 'b0', 0);
    ch.drainAll();
    expect(ch.written).toEqual(['a0']);
  });
});

describe('FlowWindow', () => {
  it('starts small, pauses above the window and resumes below half of it', () => {
    const w = new FlowWindow({ min: 1_000, max: 100_000, targetLagMs: 100, now: () => 0 });
    expect(w.window).toBe(1_000);
    expect(w.shouldPause(1_000)).toBe(false);
    expect(w.shouldPause(1_001)).toBe(true);
    expect(w.shouldResume(500)).toBe(false);
    expect(w.shouldResume(499)).toBe(true);
  });

  it('sizes the window to what the view parses in the target lag, within its bounds', () => {
    let now = 0;
    const w = new FlowWindow({ min: 1_000, max: 100_000, targetLagMs: 100, now: () => now });
    /** Pauses at offset `from`, and resumes at `to` once the clock reads `at` ms. */
    const pauseThenResume = (from: number, at: number, to: number) => {
      w.paused(from);
      now = at;
      w.resumed(to);
    };
    // A fast view drains 600 bytes in 2 ms (300 bytes/ms): 30,000 bytes per 100 ms.
    pauseThenResume(10_000, 2, 10_600);
    expect(w.window).toBe(30_000);
    // Faster still: capped at the maximum.
    pauseThenResume(20_000, 3, 60_000);
    expect(w.window).toBe(100_000);
    // A slow view (a busy tab): 100 bytes in 100 ms shrinks it to the minimum.
    pauseThenResume(70_000, 103, 70_100);
    expect(w.window).toBe(1_000);
    // A resume without progress (the channel, not the view, was the reason) measures nothing.
    pauseThenResume(80_000, 200, 80_000);
    expect(w.window).toBe(1_000);
    pauseThenResume(0, 201, 50_000);
    w.reset();
    expect(w.window).toBe(1_000);
  });
});

describe('terminal data frames', () => {
  it('carry bytes split anywhere by the pty, in order, decoding to exactly the text that was written', () => {
    const text = 'build ok naïve café Grüße данные 日本語 テスト 终端 한국어 🚀 ✅ 𝔘𝔫𝔦 x\n'.repeat(40);
    const bytes = Buffer.from(text, 'utf8');
    const splitter = new Utf8Splitter();
    let received = '';
    let offset = 0;
    // Pty reads of awkward sizes: every boundary falls inside a multibyte character somewhere.
    for (let at = 0, size = 1; at < bytes.length; at += size, size = (size * 7 + 3) % 97 || 1) {
      const whole = splitter.write(bytes.subarray(at, at + size));
      if (whole.length === 0) continue;
      // What the main process does: count the characters without decoding.
      const length = utf16Length(whole);
      const frame = encodeTerminalDataFrame('term-abc123', offset, length, whole);
      const f = decodeTerminalDataFrame(frame.slice().buffer)!;
      expect(f.key).toBe('term-abc123');
      expect(f.payload.offset).toBe(offset);
      expect([...f.payload.bytes]).toEqual([...whole]);
      expect(f.payload.data).not.toContain('\ufffd');
      expect(f.payload.data.length).toBe(length);
      received += f.payload.data;
      offset += length;
    }
    expect(splitter.flush().length).toBe(0);
    expect(received).toBe(text);
  });

  it('counts characters of invalid UTF-8 the way the decoder replaces them', () => {
    for (const bad of [[0xff], [0xc3], [0xe6, 0x97], [0xf0, 0x9f, 0x98], [0x61, 0x80, 0x80, 0x62], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80]]) {
      const b = Uint8Array.from(bad);
      expect(utf16Length(b)).toBe(new TextDecoder().decode(b).length);
    }
    expect(utf16Length(Buffer.from('a😀é日'))).toBe('a😀é日'.length);
  });

  it('decode the text only when it is asked for, and carry it through a structured clone', () => {
    const p = terminalDataFromBytes(3, 2, Buffer.from('hé'));
    expect(hasBytes(p)).toBe(true);
    expect(hasBytes({ offset: 0, data: 'x' })).toBe(false);
    expect(structuredClone(p)).toMatchObject({ offset: 3, length: 2, data: 'hé' });
  });

  it('refuses malformed frames instead of guessing', () => {
    const good = encodeTerminalDataFrame('term-abc123', 5, 2, Buffer.from('hi'));
    expect(decodeTerminalDataFrame(good)).toMatchObject({ key: 'term-abc123', payload: { offset: 5, length: 2, data: 'hi' } });
    expect(decodeTerminalDataFrame(new Uint8Array(0))).toBeNull();
    expect(decodeTerminalDataFrame(good.subarray(0, 18))).toBeNull();
    const wrongKind = good.slice();
    wrongKind[0] = 9;
    expect(decodeTerminalDataFrame(wrongKind)).toBeNull();
    const longKey = good.slice();
    new DataView(longKey.buffer).setUint16(1, 60_000, true);
    expect(decodeTerminalDataFrame(longKey)).toBeNull();
    for (const bad of [-1, 0.5, Number.NaN, 2 ** 60]) {
      expect(decodeTerminalDataFrame(encodeTerminalDataFrame('term-abc123', bad, 1, Buffer.from('x')))).toBeNull();
    }
    // A length no decoding of the body can give (more characters than bytes, or none for some).
    expect(decodeTerminalDataFrame(encodeTerminalDataFrame('term-abc123', 0, 3, Buffer.from('hi')))).toBeNull();
    expect(decodeTerminalDataFrame(encodeTerminalDataFrame('term-abc123', 0, 0, Buffer.from('hi')))).toBeNull();
    expect(decodeTerminalDataFrame(encodeTerminalDataFrame('term-abc123', 0, -1, Buffer.from('hi')))).toBeNull();
    // An empty output is fine (nothing to write), an empty key is not.
    expect(decodeTerminalDataFrame(encodeTerminalDataFrame('term-abc123', 0, 0, new Uint8Array(0)))?.payload.data).toBe('');
    expect(decodeTerminalDataFrame(encodeTerminalDataFrame('', 0, 1, Buffer.from('x')))).toBeNull();
  });
});

describe('TerminalStream fed bytes', () => {
  /** One terminal whose live events carry bytes (as the binary frames do) and a scrollback as text. */
  function byteTerminal() {
    let all = '';
    let dropping = false;
    let listener: ((p: unknown) => void) | null = null;
    const acks: number[] = [];
    let att = 0;
    const client = {
      transport: { invoke: async () => ({ ok: true, value: {} }), subscribe: () => () => undefined },
      on(topic: string, l: (p: unknown) => void) {
        if (topic === 'terminals.data') listener = l;
        return () => undefined;
      },
      async invoke(channel: string, input: { chars?: number }) {
        if (channel === 'terminals.ack') acks.push(input.chars!);
        if (channel !== 'terminals.attach') return { ok: true };
        return { terminal: { id: 't', status: 'running' }, attachmentId: `att-${String(++att).padStart(6, '0')}`, data: all, start: 0, end: all.length };
      },
    } as unknown as Client;
    return {
      client,
      acks,
      emit(text: string) {
        const offset = all.length;
        all += text;
        const bytes = Buffer.from(text, 'utf8');
        if (!dropping) listener?.(terminalDataFromBytes(offset, text.length, bytes));
      },
      /** Sends an event again (a duplicate, as after a reconnect), possibly overlapping what the view has. */
      resend(offset: number, text: string) {
        listener?.(terminalDataFromBytes(offset, text.length, Buffer.from(text, 'utf8')));
      },
      drop(on: boolean) {
        dropping = on;
      },
    };
  }

  function byteSink() {
    const decoder = new TextDecoder();
    const s = { text: '', pieces: [] as Array<'text' | 'bytes'>, pending: [] as Array<() => void> };
    const api: TerminalSink = {
      write(data, cb) {
        s.pieces.push(typeof data === 'string' ? 'text' : 'bytes');
        // xterm keeps an incomplete UTF-8 sequence across writes; streaming decode does the same.
        s.text += typeof data === 'string' ? data : decoder.decode(data, { stream: true });
        if (cb) s.pending.push(cb);
      },
      reset() {
        s.text = '';
      },
    };
    return { s, api, parse: () => s.pending.splice(0).forEach((cb) => cb()) };
  }

  it('hands live bytes to the emulator as they are and acknowledges characters, not bytes', async () => {
    const t = byteTerminal();
    const out = byteSink();
    const stream = new TerminalStream(t.client, 't', out.api, { ackBatchChars: 7 });
    await stream.attach();
    t.emit('日本語🚀');
    t.emit('ok');
    expect(out.s.pieces).toEqual(['bytes', 'bytes']);
    expect(out.s.text).toBe('日本語🚀ok');
    out.parse();
    // 5 + 2 UTF-16 units reach the batch of 7, though 17 bytes went by.
    expect(t.acks).toEqual([7]);
    expect(stream.offset).toBe('日本語🚀ok'.length);
  });

  it('drops duplicates and cuts an overlap by characters, then resyncs a gap from the scrollback', async () => {
    const t = byteTerminal();
    const out = byteSink();
    const stream = new TerminalStream(t.client, 't', out.api);
    await stream.attach();
    t.emit('ab😀');
    t.resend(0, 'ab😀'); // all of it again: dropped
    t.drop(true);
    t.emit('cd');
    t.drop(false);
    t.resend(2, '😀cd'); // overlaps the emoji: only "cd" is new
    expect(out.s.text).toBe('ab😀cd');
    expect(stream.stats.duplicateChars).toBe(4 + 2);
    t.drop(true);
    t.emit('éé');
    t.drop(false);
    t.emit('!');
    await new Promise((r) => setTimeout(r, 0));
    expect(out.s.text).toBe('ab😀cdéé!');
    expect(stream.stats.resyncs).toBe(1);
    expect(stream.offset).toBe('ab😀cdéé!'.length);
  });
});

describe('TerminalStream pieces', () => {
  it('hands a large batch to the emulator one piece at a time, in order, acknowledging once when the last is parsed', async () => {
    const text = 'x日本語🚀'.repeat(20_000); // ~260 KB of UTF-8
    const bytes = Buffer.from(text, 'utf8');
    let listener: ((p: unknown) => void) | null = null;
    const acks: number[] = [];
    const client = {
      transport: { invoke: async () => ({ ok: true, value: {} }), subscribe: () => () => undefined },
      on(topic: string, l: (p: unknown) => void) {
        if (topic === 'terminals.data') listener = l;
        return () => undefined;
      },
      async invoke(channel: string, input: { chars?: number }) {
        if (channel === 'terminals.ack') acks.push(input.chars!);
        if (channel !== 'terminals.attach') return { ok: true };
        return { terminal: { id: 't', status: 'running' }, attachmentId: 'att-000001', data: '', start: 0, end: 0 };
      },
    } as unknown as Client;
    const pieces: Uint8Array[] = [];
    const callbacks: Array<(() => void) | undefined> = [];
    const stream = new TerminalStream(client, 't', {
      write(data, cb) {
        pieces.push(data as Uint8Array);
        callbacks.push(cb);
      },
      reset() {},
    }, { scheduler: new OutputScheduler({ sliceMs: Number.POSITIVE_INFINITY }) });
    await stream.attach();
    listener!(terminalDataFromBytes(0, text.length, bytes));
    // The next piece only once the emulator has parsed the previous one; nothing acknowledged
    // before the last is parsed.
    while (callbacks.length > 0) {
      expect(callbacks.length).toBe(1);
      expect(acks).toEqual([]);
      callbacks.shift()!();
    }
    expect(pieces.length).toBe(Math.ceil(bytes.length / OUTPUT_PIECE_BYTES));
    expect(pieces.every((p) => p.length <= OUTPUT_PIECE_BYTES)).toBe(true);
    expect(Buffer.concat(pieces).equals(bytes)).toBe(true);
    expect(acks).toEqual([text.length]);
  });
});
