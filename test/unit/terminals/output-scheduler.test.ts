import { describe, expect, it } from 'vitest';
import type { Client } from '../../../src-preload/client/client';
import { OUTPUT_STALLED_MS, OutputScheduler, type OutputTarget } from '../../../src-preload/client/output-scheduler';
import { SLOW_ANSWER_MS as OUTPUT_SLOW_ANSWER_MS, UNANSWERED_PAUSE_MS as OUTPUT_UNANSWERED_PAUSE_MS } from '../../../src-preload/contract/terminal-input';
import { TerminalStream } from '../../../src-preload/client/terminal-stream';

const text = (d: string | Uint8Array) => (typeof d === 'string' ? d : Buffer.from(d).toString('latin1'));

/** An emulator that parses only when told, oldest write first, as xterm does (callbacks in order). */
function target(name: string, log: string[]) {
  const pending: Array<{ data: string; cb?: () => void }> = [];
  const t = {
    handed: '',
    parsed: '',
    pending,
    api: {
      write(data, cb) {
        const s = text(data);
        t.handed += s;
        log.push(`${name}:${s.length}`);
        pending.push({ data: s, ...(cb ? { cb } : {}) });
      },
    } satisfies OutputTarget,
    /** Parses the oldest write; false when there was none. */
    parseOne() {
      const w = pending.shift();
      if (!w) return false;
      t.parsed += w.data;
      w.cb?.();
      return true;
    },
  };
  return t;
}

/** A scheduler on a fake clock whose "new tasks" and timers run only when the test says so. */
function harness(opts: { sliceMs?: number; quietSliceMs?: number; pieceBytes?: number; smallBytes?: number; answerWaitMs?: number } = {}) {
  const clock = { now: 0 };
  const tasks: Array<() => void> = [];
  const timers = new Set<{ fn: () => void; at: number }>();
  const sliceMs = opts.sliceMs ?? 5;
  const s = new OutputScheduler({
    pieceBytes: opts.pieceBytes ?? 10,
    smallBytes: opts.smallBytes ?? 4,
    sliceMs,
    quietSliceMs: opts.quietSliceMs ?? sliceMs,
    inputPriorityMs: 100,
    answerWaitMs: opts.answerWaitMs ?? 8,
    now: () => clock.now,
    nextTask: (fn) => tasks.push(fn),
    setTimer: (fn, ms) => {
      const t = { fn, at: clock.now + ms };
      timers.add(t);
      return t;
    },
    clearTimer: (t) => timers.delete(t as { fn: () => void; at: number }),
  });
  /** Moves the clock on and runs the timers due by then. */
  const advance = (ms: number) => {
    clock.now += ms;
    for (const t of [...timers]) {
      if (t.at > clock.now) continue;
      timers.delete(t);
      t.fn();
    }
  };
  return { s, clock, tasks, timers, advance, runTask: () => tasks.shift()?.() };
}

describe('OutputScheduler', () => {
  it('hands a quiet terminal’s echo over at once, ahead of the flood’s queued pieces', () => {
    const log: string[] = [];
    const { s } = harness();
    const flood = target('flood', log);
    const quiet = target('quiet', log);
    const floodLane = s.lane(flood.api);
    const quietLane = s.lane(quiet.api);
    floodLane.write('x'.repeat(50));
    // One piece at a time: the next only once the emulator has parsed this one.
    expect(log).toEqual(['flood:10']);
    quietLane.write('k');
    expect(log).toEqual(['flood:10', 'quiet:1']);
    expect(quiet.handed).toBe('k');
    expect(floodLane.queuedSize).toBe(40);
  });

  it('goes on with the next piece in the same task within the slice, then yields to a new task', () => {
    const log: string[] = [];
    const h = harness({ sliceMs: 5 });
    const flood = target('flood', log);
    const quiet = target('quiet', log);
    const floodLane = h.s.lane(flood.api);
    floodLane.write('x'.repeat(60));
    flood.parseOne(); // the task's first piece starts its slice
    h.clock.now = 3;
    flood.parseOne(); // 3 ms in: still within the slice, the next piece follows at once
    expect(log).toEqual(['flood:10', 'flood:10', 'flood:10']);
    h.clock.now = 6;
    flood.parseOne(); // past the slice: the scheduler asks for a new task instead
    expect(log).toHaveLength(3);
    expect(h.tasks).toHaveLength(1);
    // What arrived before the new task (an echo; a bigger write of another terminal) goes first.
    const quietLane = h.s.lane(quiet.api);
    quietLane.noteInput();
    quietLane.write('prompt$ '.repeat(3));
    expect(log).toHaveLength(3);
    return Promise.resolve().then(() => {
      // The slice ended with the task (a microtask); the new task serves the lane typed in first.
      h.runTask();
      expect(log[3]).toBe('quiet:10');
    });
  });

  it('keeps slices short only while somebody types: a flood nobody types beside parses in long slices', () => {
    const log: string[] = [];
    const h = harness({ sliceMs: 3, quietSliceMs: 12 });
    const flood = target('flood', log);
    const quiet = target('quiet', log);
    const floodLane = h.s.lane(flood.api);
    const quietLane = h.s.lane(quiet.api);
    floodLane.write('x'.repeat(200));
    flood.parseOne(); // the slice starts
    h.clock.now = 8;
    flood.parseOne(); // 8 ms in: past the short slice, within the quiet one: nobody typed, so it goes on
    expect(h.tasks).toHaveLength(0);
    h.clock.now = 13;
    flood.parseOne(); // past the quiet slice: yields
    expect(h.tasks).toHaveLength(1);
    return Promise.resolve().then(() => {
      h.runTask();
      flood.parseOne(); // a new task, a new slice
      // Somebody types in the other terminal: from now on the short slice holds.
      quietLane.noteInput();
      h.clock.now = 17;
      flood.parseOne();
      expect(h.tasks).toHaveLength(1);
      // …and once nobody has typed for inputPriorityMs (100 here), the long slices are back.
      return Promise.resolve().then(() => {
        h.runTask();
        h.clock.now = 200;
        flood.parseOne();
        h.clock.now = 208;
        flood.parseOne();
        expect(h.tasks).toHaveLength(0);
      });
    });
  });

  it('serves a lane typed in recently before the others, and the rest in turn', () => {
    const log: string[] = [];
    // No wait for the typed terminal's answer here (see the tests below): only the order of turns.
    const h = harness({ sliceMs: 1_000, answerWaitMs: 0 });
    const a = target('a', log);
    const b = target('b', log);
    const c = target('c', log);
    const [la, lb, lc] = [h.s.lane(a.api), h.s.lane(b.api), h.s.lane(c.api)];
    la.write('a'.repeat(30));
    lb.write('b'.repeat(30));
    lc.write('c'.repeat(30));
    lc.noteInput();
    const parseAll = () => {
      for (let progress = true; progress; ) progress = a.parseOne() || b.parseOne() || c.parseOne();
    };
    parseAll();
    // a's first piece was handed before c was typed in; then c's until done, then b (it waited
    // while a had its turn) and a in turn.
    expect(log).toEqual(['a:10', 'c:10', 'c:10', 'c:10', 'b:10', 'a:10', 'b:10', 'a:10', 'b:10']);
    h.clock.now = 500;
    la.write('a'.repeat(20));
    lc.write('c'.repeat(20));
    parseAll();
    // The typing was 500 ms ago: plain turns again.
    expect(log.slice(9)).toEqual(['a:10', 'c:10', 'a:10', 'c:10']);
  });

  it('loses, duplicates and reorders nothing within a terminal, whatever the interleaving', async () => {
    let seed = 11;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 20; round++) {
      const log: string[] = [];
      const h = harness({ sliceMs: 2, pieceBytes: 1 + Math.floor(rnd() * 64), smallBytes: Math.floor(rnd() * 16) });
      const ts = Array.from({ length: 4 }, (_, i) => target(`t${i}`, log));
      const lanes = ts.map((t) => h.s.lane(t.api));
      const written = ts.map(() => '');
      const callbacks = ts.map(() => [] as number[]);
      const fired = ts.map(() => [] as number[]);
      let n = 0;
      for (let i = 0; i < 400; i++) {
        const k = Math.floor(rnd() * 4);
        const r = rnd();
        if (r < 0.45) {
          const size = Math.floor(rnd() * (rnd() < 0.3 ? 300 : 8));
          const id = n++;
          const s = Array.from({ length: size }, (_, j) => String.fromCharCode(65 + ((id + j) % 58))).join('');
          const data = rnd() < 0.5 ? s : Buffer.from(s, 'latin1');
          written[k] += s;
          callbacks[k]!.push(id);
          // Each callback must come only once everything written up to it has been parsed.
          const upTo = written[k]!.length;
          lanes[k]!.write(data, () => {
            expect(ts[k]!.parsed.length).toBeGreaterThanOrEqual(upTo);
            fired[k]!.push(id);
          });
        } else if (r < 0.8) ts[k]!.parseOne();
        else if (r < 0.9) h.runTask();
        else if (r < 0.95) await Promise.resolve();
        else lanes[k]!.noteInput();
        h.advance(rnd() * 2);
      }
      for (let progress = true; progress; ) {
        await Promise.resolve();
        progress = ts.some((t) => t.parseOne()) || h.tasks.length > 0 || h.timers.size > 0;
        h.runTask();
        // A keystroke nobody answers holds the others up until its wait is over.
        h.advance(1);
      }
      for (let k = 0; k < 4; k++) {
        expect(ts[k]!.parsed).toBe(written[k]);
        expect(fired[k]).toEqual(callbacks[k]);
      }
    }
  });

  it('never has more than one queued piece of any terminal waiting in an emulator', () => {
    const log: string[] = [];
    const { s } = harness();
    const a = target('a', log);
    const b = target('b', log);
    s.lane(a.api).write('a'.repeat(100));
    s.lane(b.api).write('b'.repeat(100));
    for (let i = 0; i < 25; i++) {
      expect(a.pending.length + b.pending.length).toBeLessThanOrEqual(1);
      if (!a.parseOne()) b.parseOne();
    }
    expect(a.parsed.length + b.parsed.length).toBe(200);
  });

  it('on close hands over the rest at once and stops waiting for the closed terminal', () => {
    const log: string[] = [];
    const { s } = harness({ sliceMs: 1_000 });
    const a = target('a', log);
    const b = target('b', log);
    const la = s.lane(a.api);
    la.write('a'.repeat(35));
    s.lane(b.api).write('b'.repeat(20));
    // a's first piece is with its emulator, which will never parse it (disposed): closing a
    // hands a's remaining pieces over and lets b go on.
    la.close();
    expect(a.handed).toBe('a'.repeat(35));
    expect(log).toEqual(['a:10', 'a:10', 'a:10', 'a:5', 'b:10']);
    b.parseOne();
    expect(b.handed).toBe('b'.repeat(20));
    // A closed lane writes straight through.
    la.write('late');
    expect(a.handed.endsWith('late')).toBe(true);
  });

  it('drops what is queued for a terminal about to be reset, without parsed callbacks', () => {
    const log: string[] = [];
    const { s } = harness();
    const a = target('a', log);
    const la = s.lane(a.api);
    let parsed = 0;
    la.write('a'.repeat(35), () => parsed++);
    la.drop();
    expect(la.queuedSize).toBe(0);
    a.parseOne();
    la.write('fresh-data-here');
    while (a.parseOne());
    expect(a.parsed).toBe('a'.repeat(10) + 'fresh-data-here');
    expect(parsed).toBe(0);
  });
});

describe('OutputScheduler after a keystroke', () => {
  /** A flood of `floodChars` queued beside a quiet terminal, the quiet one just typed in, the flood's first piece parsed. */
  function typedBesideFlood(floodChars: number) {
    const log: string[] = [];
    const h = harness({ sliceMs: 1_000, answerWaitMs: 8 });
    const flood = target('flood', log);
    const quiet = target('quiet', log);
    const floodLane = h.s.lane(flood.api);
    const quietLane = h.s.lane(quiet.api);
    floodLane.write('x'.repeat(floodChars));
    quietLane.noteInput();
    flood.parseOne();
    return { log, h, flood, quietLane };
  }

  it('hands no other terminal’s piece over until the typed terminal answers, then goes on at once', () => {
    // The piece already with the emulator is parsed; the next one waits for the echo.
    const { log, h, quietLane } = typedBesideFlood(50);
    expect(log).toEqual(['flood:10']);
    h.advance(3);
    expect(log).toEqual(['flood:10']);
    expect(h.timers.size).toBe(1);
    // The echo goes to its emulator in the task it arrived in, and the flood goes on right after.
    quietLane.write('k');
    expect(log).toEqual(['flood:10', 'quiet:1', 'flood:10']);
    expect(h.timers.size).toBe(0);
    expect(h.s.stats).toMatchObject({ answered: 1, answerTimeouts: 0 });
  });

  it('lets the others go on after answerWaitMs when the typed terminal does not echo (a password prompt)', () => {
    const { log, h, flood } = typedBesideFlood(30);
    h.advance(7);
    expect(log).toEqual(['flood:10']);
    h.advance(1);
    expect(log).toEqual(['flood:10', 'flood:10']);
    // The wait is over for this keystroke: the flood's pieces follow each other again.
    flood.parseOne();
    expect(log).toEqual(['flood:10', 'flood:10', 'flood:10']);
    expect(h.s.stats).toMatchObject({ answered: 0, answerTimeouts: 1 });
  });

  it('a terminal answered too late (an ssh session far away) or not at all makes nobody wait for a second; a little late keeps the wait', () => {
    const { log, h, flood, quietLane } = typedBesideFlood(2_000);
    /** Flood pieces handed to the emulator while it parses what it has and new tasks run, the clock standing still. */
    const floodGoesOn = () => {
      const before = log.filter((l) => l.startsWith('flood')).length;
      for (let i = 0; i < 4; i++) {
        flood.parseOne();
        h.runTask();
      }
      return log.filter((l) => l.startsWith('flood')).length > before;
    };
    h.advance(8);
    expect(h.s.stats.answerTimeouts).toBe(1);
    // A little late (a busy machine): the next key makes the flood wait again.
    h.advance(4);
    quietLane.write('l');
    quietLane.noteInput();
    expect(floodGoesOn()).toBe(false);
    // Its echo comes OUTPUT_SLOW_ANSWER_MS after the key: the next keys make nobody wait...
    h.advance(OUTPUT_SLOW_ANSWER_MS);
    quietLane.write('s');
    quietLane.noteInput();
    expect(floodGoesOn()).toBe(true);
    // Another terminal's keystrokes are not paused by this one's.
    const other = h.s.lane(target('other', log).api);
    other.noteInput();
    expect(floodGoesOn()).toBe(false);
    other.write('o');
    // ...a second on, a key makes the flood wait again; a key soon after its wait ran out, too
    // (its echo may yet come in time); never answered, a key OUTPUT_SLOW_ANSWER_MS after it makes nobody wait.
    h.advance(OUTPUT_UNANSWERED_PAUSE_MS);
    quietLane.noteInput();
    expect(floodGoesOn()).toBe(false);
    h.advance(10);
    quietLane.noteInput();
    expect(floodGoesOn()).toBe(false);
    h.advance(OUTPUT_SLOW_ANSWER_MS - 10);
    quietLane.noteInput();
    expect(floodGoesOn()).toBe(true);
    expect(h.s.stats.answerTimeouts).toBe(4);
  });

  it('waits again for the next keystroke, after a wait that was idle on the previous one', () => {
    const { log, h, quietLane } = typedBesideFlood(30);
    h.advance(5);
    // A second key before the first one's echo: its own wait, from now.
    quietLane.noteInput();
    h.advance(7);
    expect(log).toEqual(['flood:10']);
    h.advance(1);
    expect(log).toEqual(['flood:10', 'flood:10']);
  });

  it('serves the typed terminal’s own queued output during the wait, and a closed typed terminal ends it', () => {
    const log: string[] = [];
    const h = harness({ sliceMs: 1_000, answerWaitMs: 8 });
    const a = target('a', log);
    const b = target('b', log);
    const la = h.s.lane(a.api);
    const lb = h.s.lane(b.api);
    la.write('a'.repeat(20));
    lb.write('b'.repeat(20));
    lb.noteInput();
    a.parseOne();
    // b was typed in: its output is not held up by its own keystroke.
    expect(log).toEqual(['a:10', 'b:10']);
    b.parseOne();
    expect(log).toEqual(['a:10', 'b:10', 'b:10']);
    b.parseOne();
    // b has nothing queued now; a waits for b's answer, until b's terminal is closed.
    expect(log).toHaveLength(3);
    lb.close();
    expect(log).toEqual(['a:10', 'b:10', 'b:10', 'a:10']);
  });

  it('does not wait in a page nobody looks at', () => {
    const log: string[] = [];
    const h = harness({ sliceMs: 1_000, answerWaitMs: 8 });
    const flood = target('flood', log);
    const floodLane = h.s.lane(flood.api);
    const quietLane = h.s.lane(target('quiet', log).api);
    h.s.setPaced(false);
    quietLane.noteInput();
    floodLane.write('x'.repeat(30));
    expect(log).toEqual(['flood:30']);
    expect(h.timers.size).toBe(0);
  });
});

describe('OutputScheduler when nobody looks or an emulator is stuck', () => {
  it('hands everything over at once while not paced (a hidden page), in order', () => {
    const log: string[] = [];
    const { s } = harness();
    const a = target('a', log);
    const la = s.lane(a.api);
    la.write('a'.repeat(35));
    s.setPaced(false);
    // What was queued goes at once, and so does whatever comes next.
    expect(a.handed).toBe('a'.repeat(35));
    la.write('b'.repeat(25));
    expect(a.handed).toBe('a'.repeat(35) + 'b'.repeat(25));
    s.setPaced(true);
    la.write('c'.repeat(25));
    expect(a.handed.endsWith('c'.repeat(10))).toBe(false);
    while (a.parseOne());
    expect(a.parsed).toBe('a'.repeat(35) + 'b'.repeat(25) + 'c'.repeat(25));
  });

  it('stops waiting for a piece an emulator never parses, after OUTPUT_STALLED_MS', () => {
    const log: string[] = [];
    const h = harness();
    const stuck = target('stuck', log);
    const b = target('b', log);
    h.s.lane(stuck.api).write('s'.repeat(30));
    const lb = h.s.lane(b.api);
    lb.write('b'.repeat(20));
    expect(b.handed).toBe('');
    h.clock.now = OUTPUT_STALLED_MS + 1;
    lb.write('b'.repeat(20));
    expect(b.handed.length).toBe(10);
  });
});

describe('OutputScheduler with a held lane (a view started before its pane)', () => {
  it('keeps a held lane’s output, small writes too, while the other lanes go on, then hands it over in order', () => {
    const log: string[] = [];
    const { s } = harness();
    const held = target('held', log);
    const other = target('other', log);
    const lh = s.lane(held.api);
    const lo = s.lane(other.api);
    lh.hold();
    // A small write to an empty lane would skip the queue: held, it does not.
    lh.write('k');
    lh.write('h'.repeat(35));
    expect(held.handed).toBe('');
    // Not the piece the scheduler waits on: another terminal's queued output is served.
    lo.write('o'.repeat(25));
    while (other.parseOne());
    expect(other.parsed).toBe('o'.repeat(25));
    lh.release();
    while (held.parseOne());
    expect(held.parsed).toBe('k' + 'h'.repeat(35));
    // Released for good: a small write goes at once again.
    lh.write('e');
    expect(held.handed.endsWith('e')).toBe(true);
  });

  it('runs a marker (a line the view adds after the output) only once everything written before is parsed, held or not', () => {
    const log: string[] = [];
    const { s } = harness();
    const a = target('a', log);
    const la = s.lane(a.api);
    const seen: string[] = [];
    la.write('a'.repeat(35));
    la.afterQueued(() => seen.push(`marker after ${a.parsed.length}`));
    while (a.parseOne());
    expect(seen).toEqual(['marker after 35']);
    // On an empty lane: after what the emulator has, at once in its own queue.
    la.afterQueued(() => seen.push(`marker after ${a.parsed.length}`));
    a.parseOne();
    expect(seen).toEqual(['marker after 35', 'marker after 35']);
    // Held: after the held output, once released.
    const b = target('b', log);
    const lb = s.lane(b.api);
    lb.hold();
    lb.write('b'.repeat(25));
    lb.afterQueued(() => seen.push(`b marker after ${b.parsed.length}`));
    expect(b.handed).toBe('');
    lb.release();
    while (b.parseOne());
    expect(seen.at(-1)).toBe('b marker after 25');
  });

  it('a lane held while its last piece is with the emulator keeps what comes next when the page is hidden', () => {
    const log: string[] = [];
    const { s } = harness();
    const a = target('a', log);
    const la = s.lane(a.api);
    la.write('a'.repeat(10));
    la.write('b'.repeat(10));
    // 'a' is the first piece; once it is parsed 'b' follows and is the piece with the emulator.
    a.parseOne();
    expect(la.isEmpty).toBe(true);
    la.hold();
    expect(la.held).toBe(true);
    la.write('c'.repeat(30));
    s.setPaced(false);
    expect(a.handed).toBe('a'.repeat(10) + 'b'.repeat(10));
    la.release();
    while (a.parseOne());
    expect(a.parsed).toBe('a'.repeat(10) + 'b'.repeat(10) + 'c'.repeat(30));
  });

  it('a lane with output under way is not held (a piece of it may be with the emulator)', () => {
    const log: string[] = [];
    const { s } = harness();
    const a = target('a', log);
    const la = s.lane(a.api);
    la.write('a'.repeat(35));
    la.hold();
    expect(la.held).toBe(false);
    while (a.parseOne());
    expect(a.parsed).toBe('a'.repeat(35));
  });

  it('hands a held lane’s output over at once when released in a page nobody looks at, and on close', () => {
    const log: string[] = [];
    const { s } = harness();
    const a = target('a', log);
    const la = s.lane(a.api);
    la.hold();
    s.setPaced(false);
    la.write('a'.repeat(35));
    expect(a.handed).toBe('');
    la.release();
    expect(a.handed).toBe('a'.repeat(35));
    const b = target('b', log);
    const lb = s.lane(b.api);
    lb.hold();
    lb.write('b'.repeat(12));
    lb.close();
    expect(b.handed).toBe('b'.repeat(12));
  });
});

describe('TerminalStream through the scheduler', () => {
  /** One live terminal: attach returns nothing, `emit` publishes output, acks are recorded. */
  function liveTerminal() {
    let listener: ((p: unknown) => void) | null = null;
    const acks: number[] = [];
    let offset = 0;
    const client = {
      transport: { invoke: async () => ({ ok: true, value: {} }), subscribe: () => () => undefined },
      on(topic: string, l: (p: unknown) => void) {
        if (topic === 'terminals.data') listener = l;
        return () => undefined;
      },
      async invoke(channel: string, input: { chars?: number }) {
        if (channel === 'terminals.ack') acks.push(input.chars!);
        if (channel !== 'terminals.attach') return {};
        return { terminal: { id: 't', status: 'running' }, attachmentId: 'att-000001', data: '', start: 0, end: 0 };
      },
    } as unknown as Client;
    return {
      client,
      acks,
      emit(data: string) {
        listener!({ offset, data });
        offset += data.length;
      },
    };
  }

  it('acknowledges a flood only as the emulator parses it, so the host’s flow control still sees the backlog', async () => {
    const log: string[] = [];
    const h = harness({ sliceMs: 1_000, pieceBytes: 1_000, smallBytes: 100 });
    const t = liveTerminal();
    const emu = target('emu', log);
    const stream = new TerminalStream(t.client, 't', { ...emu.api, reset() {} }, { scheduler: h.s, ackBatchChars: 2_500 });
    await stream.attach();
    t.emit('x'.repeat(4_000));
    t.emit('y'.repeat(4_000));
    // Everything accepted, one piece with the emulator, nothing parsed: nothing acknowledged.
    expect(stream.offset).toBe(8_000);
    expect(emu.handed.length).toBe(1_000);
    expect(t.acks).toEqual([]);
    for (let i = 0; i < 4; i++) emu.parseOne();
    // The first write's callback ran once its last piece was parsed: 4,000 characters, one ack.
    expect(t.acks).toEqual([4_000]);
    while (emu.parseOne());
    expect(t.acks).toEqual([4_000, 4_000]);
    expect(emu.parsed).toBe('x'.repeat(4_000) + 'y'.repeat(4_000));
  });

  it('holds its output, unacknowledged, until released (holdOutput), while another terminal’s output is parsed', async () => {
    const log: string[] = [];
    const h = harness({ sliceMs: 1_000, pieceBytes: 1_000, smallBytes: 100 });
    const t = liveTerminal();
    const emu = target('emu', log);
    const stream = new TerminalStream(t.client, 't', { ...emu.api, reset() {} }, { scheduler: h.s, ackBatchChars: 1_000, holdOutput: true });
    await stream.attach();
    t.emit('x'.repeat(2_500));
    t.emit('y');
    expect(stream.offset).toBe(2_501);
    expect(emu.handed).toBe('');
    const other = target('other', log);
    h.s.lane(other.api).write('o'.repeat(1_500));
    while (other.parseOne());
    expect(other.parsed).toBe('o'.repeat(1_500));
    expect(t.acks).toEqual([]);
    stream.releaseOutput();
    while (emu.parseOne());
    expect(emu.parsed).toBe('x'.repeat(2_500) + 'y');
    expect(t.acks.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2_500);
  });

  it('drops what it held when disposed before it was released (a view never shown parses nothing)', async () => {
    const log: string[] = [];
    const h = harness({ pieceBytes: 1_000, smallBytes: 100 });
    const t = liveTerminal();
    const emu = target('emu', log);
    const stream = new TerminalStream(t.client, 't', { ...emu.api, reset() {} }, { scheduler: h.s, holdOutput: true });
    await stream.attach();
    t.emit('x'.repeat(3_000));
    stream.dispose();
    expect(emu.handed).toBe('');
    // The scheduler is not left waiting on it: another terminal's output goes on.
    const other = target('other', log);
    h.s.lane(other.api).write('o'.repeat(1_500));
    while (other.parseOne());
    expect(other.parsed).toBe('o'.repeat(1_500));
  });

  it('on dispose hands the emulator everything accepted, so a parked snapshot matches the offset', async () => {
    const log: string[] = [];
    const h = harness({ pieceBytes: 1_000, smallBytes: 100 });
    const t = liveTerminal();
    const emu = target('emu', log);
    const stream = new TerminalStream(t.client, 't', { ...emu.api, reset() {} }, { scheduler: h.s });
    await stream.attach();
    t.emit('z'.repeat(3_500));
    expect(emu.handed.length).toBe(1_000);
    stream.dispose();
    expect(emu.handed).toBe('z'.repeat(3_500));
    expect(stream.offset).toBe(3_500);
  });
});
