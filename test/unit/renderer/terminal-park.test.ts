import { describe, expect, it, vi } from 'vitest';
import xtermHeadless from '@xterm/headless';
import serializeAddon from '@xterm/addon-serialize';
import type { Client } from '../../../src-preload/client/client';
import { TerminalStream } from '../../../src-preload/client/terminal-stream';
import { isTerminalReply, isTypedInput } from '../../../src-preload/contract/terminal-input';
import { COPY_PARK_MAX_CHARS, OutputCopy, parkTerminal, REPLAY_PARK_MAX_CHARS, ReplayWatch, resetInOrder, restoreTerminal, TerminalViewCache, type CachedView, type ParkedTerminal } from '../../../src-renderer/src/terminals/terminal-park';

const { Terminal } = xtermHeadless as unknown as typeof import('@xterm/headless');
const { SerializeAddon } = serializeAddon as unknown as typeof import('@xterm/addon-serialize');
type Term = InstanceType<typeof Terminal>;

/** The main process's side of one terminal: every character with its offset, a scrollback window, live events. */
function fakeMain(scrollback = 10_000_000) {
  let all = '';
  const listeners = new Set<(p: { offset: number; data: string }) => void>();
  let att = 0;
  const client = {
    transport: { invoke: async () => ({ ok: true, value: {} }), subscribe: () => () => undefined },
    on(topic: string, l: (p: { offset: number; data: string }) => void) {
      if (topic !== 'terminals.data') return () => undefined;
      listeners.add(l);
      return () => listeners.delete(l);
    },
    async invoke(channel: string) {
      if (channel !== 'terminals.attach') return { ok: true };
      const start = Math.max(0, all.length - scrollback);
      return { terminal: { id: 't', status: 'running', cols: 80, rows: 24 }, attachmentId: `att-${String(++att).padStart(6, '0')}`, data: all.slice(start), start, end: all.length };
    },
  } as unknown as Client;
  return {
    client,
    emit(data: string) {
      const offset = all.length;
      all += data;
      for (const l of listeners) l({ offset, data });
    },
    get text() {
      return all;
    },
  };
}

function term(cols = 80, rows = 24): { t: Term; s: InstanceType<typeof SerializeAddon> } {
  const t = new Terminal({ cols, rows, scrollback: 5_000, allowProposedApi: true });
  const s = new SerializeAddon();
  t.loadAddon(s as never);
  return { t, s };
}

/** The text of a copy's pieces, joined. */
const decodeAll = (pieces: ReadonlyArray<Uint8Array>) => {
  const all = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) all.set(p, (at += p.length) - p.length);
  return new TextDecoder().decode(all);
};
const parsed = (t: Term) => new Promise<void>((r) => t.write('', r));
const tick = () => new Promise((r) => setTimeout(r, 0));

/** Everything a user would see or a program relies on: both buffers' text, which is active, the cursor, modes. */
function state(t: Term) {
  const lines = (b: Term['buffer']['normal']) => Array.from({ length: b.length }, (_, i) => b.getLine(i)?.translateToString(true) ?? '');
  return {
    active: t.buffer.active.type,
    normal: lines(t.buffer.normal),
    alternate: lines(t.buffer.alternate),
    cursor: [t.buffer.active.cursorX, t.buffer.active.cursorY, t.buffer.active.baseY],
    modes: t.modes,
  };
}

/** A view as the renderer has one: the real stream into a headless emulator; `written` counts what it was handed. */
async function view(client: Client, t: Term, resumeFrom?: number) {
  const counter = { written: 0 };
  const stream = new TerminalStream(
    client,
    't',
    {
      write: (d, cb) => {
        counter.written += d.length;
        t.write(d, cb);
      },
      reset: () => t.reset(),
    },
    resumeFrom === undefined ? {} : { resumeFrom },
  );
  await stream.attach();
  return Object.assign(stream, { counter });
}

const colored = (n: number) => Array.from({ length: n }, (_, i) => `\x1b[3${i % 8}mline ${i}\x1b[0m ${'wide '.repeat(i % 30)}\r\n`).join('');
/** A full-screen program: alternate screen, hidden cursor, bracketed paste and application cursor keys on, text placed by address. */
const fullScreen = `\x1b[?1049h\x1b[?25l\x1b[?2004h\x1b[?1h\x1b[2J\x1b[H\x1b[7m top bar \x1b[0m\x1b[5;10H\x1b[1;32mediting here\x1b[0m\x1b[12;3Hstatus: 3 files\x1b[23;1H\x1b[7m${'-- INSERT --'.padEnd(80, ' ')}\x1b[0m\x1b[5;22H`;

/** A view attached to a terminal where vim was opened after 300 coloured lines, with more output after the attach. */
async function vimOpen() {
  const main = fakeMain();
  main.emit(colored(300) + '$ vim\r\n' + fullScreen);
  const a = term();
  const stream = await view(main.client, a.t);
  main.emit('\x1b[7;4Hmore text');
  await tick();
  return { main, a, stream };
}

/** Shows a parked terminal again: a new emulator of its size, the snapshot restored, the stream resumed from its offset and parsed. */
async function showAgain(main: ReturnType<typeof fakeMain>, parked: ParkedTerminal) {
  const b = term(parked.cols, parked.rows);
  await new Promise<void>((r) => restoreTerminal(b.t, parked, r));
  const gaps: number[] = [];
  const resumed = new TerminalStream(main.client, 't', { write: (d, cb) => b.t.write(d, cb), reset: () => b.t.reset() }, { resumeFrom: parked.offset, onGap: (n) => gaps.push(n) });
  await resumed.attach();
  // The stream feeds the emulator in slices (the window's output scheduler), so a long resume is
  // not all written yet: stopping the stream hands the rest over at once, then it is parsed.
  resumed.dispose();
  await parsed(b.t);
  return { b, gaps, resumed };
}

describe('parking a terminal and showing it again', () => {
  it('restores screen, scrollback, alternate screen, cursor and modes, then continues from the snapshot offset', async () => {
    const { main, a, stream } = await vimOpen();
    stream.dispose();
    const parked = (await parkTerminal(a.t, a.s, stream.offset, false))!;
    expect(parked.offset).toBe(main.text.length);
    expect(parked.cols).toBe(80);

    // While parked: the program goes on, leaves the alternate screen and prints more.
    main.emit('\x1b[20;1Hlast edit\x1b[?1049l\x1b[?25h\x1b[?2004l' + colored(40) + '$ ');

    const b = term(parked.cols, parked.rows);
    await new Promise<void>((r) => restoreTerminal(b.t, parked, r));
    // Restored as it was when parked.
    expect(state(b.t)).toEqual(state(a.t));
    expect(b.t.buffer.active.type).toBe('alternate');
    expect(b.t.modes.bracketedPasteMode).toBe(true);
    expect(b.t.modes.applicationCursorKeysMode).toBe(true);

    const resumed = await view(main.client, b.t, parked.offset);
    await parsed(b.t);
    // Only what came after the snapshot was written, and the result is what a view that saw everything shows.
    expect(resumed.stats.gaps).toBe(0);
    expect(resumed.counter.written).toBe(main.text.length - parked.offset);
    const ref = term();
    ref.t.write(main.text);
    await parsed(ref.t);
    expect(state(b.t)).toEqual(state(ref.t));
    expect(b.t.buffer.active.type).toBe('normal');
  });

  it('a pane of another size: the snapshot is parsed at its own size first, then resized like a view that never parked', async () => {
    const main = fakeMain();
    main.emit(colored(120) + fullScreen);
    const a = term(80, 24);
    const stream = await view(main.client, a.t);
    stream.dispose();
    const parked = (await parkTerminal(a.t, a.s, stream.offset, false))!;

    const b = term(parked.cols, parked.rows);
    await new Promise<void>((r) => restoreTerminal(b.t, parked, r));
    b.t.resize(60, 20);
    const ref = term(80, 24);
    ref.t.write(main.text);
    await parsed(ref.t);
    ref.t.resize(60, 20);
    expect(state(b.t)).toEqual(state(ref.t));
    // The text the full-screen program placed by address is where it was put.
    expect(b.t.buffer.active.getLine(4)?.translateToString(true)).toBe('         editing here');
  });

  it.each([
    ['from its snapshot', false],
    ['parked without a snapshot (replayable)', true],
  ] as const)('when the main process no longer holds the output since the view was parked %s, the view resets, says so and shows what it holds', async (_, replayable) => {
    const main = fakeMain(2_000);
    main.emit(colored(20));
    const a = term();
    const stream = await view(main.client, a.t);
    expect(stream.holdsAllFromStart).toBe(true);
    stream.dispose();
    const parked = (await parkTerminal(a.t, a.s, stream.offset, false, replayable))!;
    main.emit(colored(200));

    const { b, gaps, resumed } = await showAgain(main, parked);
    expect(gaps).toHaveLength(1);
    expect(gaps[0]).toBeGreaterThan(0);
    const ref = term();
    ref.t.write(main.text.slice(-2_000));
    await parsed(ref.t);
    expect(state(b.t)).toEqual(state(ref.t));
    expect(resumed.holdsAllFromStart).toBe(false);
  });

  it('a view holding the output from its first character is parked without a snapshot and rebuilt by replaying it', async () => {
    const { main, a, stream } = await vimOpen();
    expect(stream.holdsAllFromStart).toBe(true);
    stream.dispose();
    await parsed(a.t);
    const serialize = vi.spyOn(a.s, 'serialize');
    const parked = (await parkTerminal(a.t, a.s, stream.offset, true, true))!;
    // No cell was walked; the main process's output stands for the snapshot.
    expect(serialize).not.toHaveBeenCalled();
    expect(parked).toMatchObject({ snapshot: null, offset: 0, cols: 80, rows: 24, endWritten: false });
    const shown = state(a.t);

    const b = term(parked.cols, parked.rows);
    await new Promise<void>((r) => restoreTerminal(b.t, parked, r));
    const resumed = await view(main.client, b.t, parked.offset);
    resumed.dispose();
    await parsed(b.t);
    expect(resumed.stats.gaps).toBe(0);
    expect(state(b.t)).toEqual(shown);
    expect(b.t.buffer.active.getLine(4)?.translateToString(true)).toBe('         editing here');
    // Shown again, it may be parked so again.
    expect(resumed.holdsAllFromStart).toBe(true);
  });

  it('only a view that saw the output from offset 0, never reset, counts as holding it all', async () => {
    const whole = fakeMain();
    whole.emit(colored(10));
    expect((await view(whole.client, term().t)).holdsAllFromStart).toBe(true);
    // The main process no longer held the start when the view attached.
    const cut = fakeMain(200);
    cut.emit(colored(20));
    expect((await view(cut.client, term().t)).holdsAllFromStart).toBe(false);
    // Resumed after a snapshot: the emulator holds the snapshot, not the output.
    expect((await view(whole.client, term().t, 50)).holdsAllFromStart).toBe(false);
  });

  it('a view resized after output was written is not replayable (its lines were wrapped at another width); the first fit is fine', () => {
    const fitted = new ReplayWatch();
    fitted.resized();
    fitted.output();
    expect(fitted.replayable(true, 100)).toBe(true);
    expect(fitted.replayable(false, 100)).toBe(false);
    const rewrapped = new ReplayWatch();
    rewrapped.output();
    rewrapped.resized();
    expect(rewrapped.replayable(true, 100)).toBe(false);
  });

  it('a view whose history fills much of the main process’s scrollback is parked with a snapshot: output while parked must not push its start out (a replay from offset 0 would miss it)', async () => {
    // The main process's scrollback (DEFAULT_SCROLLBACK_CHARS; not importable from the renderer's project).
    const DEFAULT_SCROLLBACK_CHARS = 1_000_000;
    const main = fakeMain(DEFAULT_SCROLLBACK_CHARS);
    const lines = (from: number, n: number) => Array.from({ length: n }, (_, i) => `line ${from + i} ${'x'.repeat(90)}\r\n`).join('');
    main.emit(lines(0, 7_000));
    const a = term();
    const stream = await view(main.client, a.t);
    await parsed(a.t);
    expect(stream.holdsAllFromStart).toBe(true);
    const watch = new ReplayWatch();
    watch.output();
    expect(watch.replayable(stream.holdsAllFromStart, stream.offset!)).toBe(false);
    // A short history still parks without one.
    expect(watch.replayable(true, 10_000)).toBe(true);
    expect(REPLAY_PARK_MAX_CHARS * 2).toBeLessThanOrEqual(DEFAULT_SCROLLBACK_CHARS);
    stream.dispose();
    const parked = (await parkTerminal(a.t, a.s, stream.offset, false, watch.replayable(stream.holdsAllFromStart, stream.offset!)))!;
    // While parked: less than the scrollback, but enough to push offset 0 out of it.
    main.emit(lines(7_000, 4_000));
    expect(main.text.length).toBeGreaterThan(DEFAULT_SCROLLBACK_CHARS);

    const { b, gaps } = await showAgain(main, parked);
    expect(gaps).toEqual([]);
    const ref = term();
    ref.t.write(main.text);
    await parsed(ref.t);
    expect(state(b.t)).toEqual(state(ref.t));
  });

  it('a longer history the view holds whole is parked as its copy of the output: no cell walked, rebuilt by parsing it, then continued', async () => {
    const main = fakeMain(COPY_PARK_MAX_CHARS);
    // Past what parks for a replay from the main process, a full-screen program last.
    main.emit(colored(3_000) + `${'y'.repeat(100)}\r\n`.repeat(3_000) + '$ vim\r\n' + fullScreen);
    const a = term();
    // The view's sink, keeping what it hands the emulator (terminal-view.ts does the same).
    const copy = new OutputCopy();
    const stream = new TerminalStream(main.client, 't', { write: (d, cb) => (copy.push(d), a.t.write(d, cb)), reset: () => (copy.drop(), resetInOrder(a.t)) });
    await stream.attach();
    main.emit('\x1b[7;4Hmore text');
    await tick();
    stream.dispose();
    await parsed(a.t);
    const offset = stream.offset!;
    expect(offset).toBeGreaterThan(REPLAY_PARK_MAX_CHARS);
    expect(offset).toBeLessThanOrEqual(COPY_PARK_MAX_CHARS);
    const watch = new ReplayWatch();
    watch.output();
    expect(watch.replayable(stream.holdsAllFromStart, offset)).toBe(false);
    expect(watch.exact(stream.holdsAllFromStart)).toBe(true);

    const serialize = vi.spyOn(a.s, 'serialize');
    expect(copy.held).toBe(true);
    const parked = (await parkTerminal(a.t, a.s, offset, true, false, copy.output))!;
    expect(serialize).not.toHaveBeenCalled();
    expect(parked).toMatchObject({ snapshot: null, offset, cols: 80, rows: 24, endWritten: false });
    expect(parked.output).toBe(copy.output);
    // Exactly the output up to its offset, as bytes.
    expect(parked.output!.every((p) => p instanceof Uint8Array)).toBe(true);
    expect(decodeAll((parked.output!))).toBe(main.text.slice(0, offset));
    const shown = state(a.t);

    // Output while it is parked comes after the copy, from the main process.
    main.emit('\x1b[8;4Hwhile parked');
    const b = term(parked.cols, parked.rows);
    await new Promise<void>((r) => restoreTerminal(b.t, parked, r));
    expect(state(b.t)).toEqual(shown);
    const resumed = new TerminalStream(main.client, 't', { write: (d, cb) => b.t.write(d, cb), reset: () => b.t.reset() }, { resumeFrom: parked.offset, resumeHoldsAll: true });
    await resumed.attach();
    resumed.dispose();
    await parsed(b.t);
    expect(resumed.stats.gaps).toBe(0);
    // What it holds now is the output from offset 0, and counts as such (it may park so again).
    expect(resumed.holdsAllFromStart).toBe(true);
    const ref = term();
    ref.t.write(main.text);
    await parsed(ref.t);
    expect(state(b.t)).toEqual(state(ref.t));
    expect(b.t.buffer.active.getLine(7)?.translateToString(true)).toBe('   while parked');
  });

  it('the copy holds bytes of its own (never a slice that keeps a whole scrollback read alive), merges small pieces, and goes for good past its limit', () => {
    const copy = new OutputCopy();
    const read = 'x'.repeat(200_000);
    copy.push(read.slice(100_000));
    const bytes = new Uint8Array([0xe4, 0xb8, 0xad]);
    for (let i = 0; i < 1_000; i++) copy.push(i % 2 ? bytes : 'ab');
    const out = copy.output!;
    expect(out[0]).toBeInstanceOf(Uint8Array);
    expect(copy.size).toBe(100_000 + 500 * 3 + 500 * 2);
    // 1,000 small writes: a handful of arrays, none of them the writer's own.
    expect(out.length).toBeLessThan(4);
    expect(out.includes(bytes)).toBe(false);
    expect(decodeAll((out))).toBe('x'.repeat(100_000) + 'ab中'.repeat(500));
    // The writer's array changed afterwards: the copy is its own.
    bytes.fill(0x41);
    expect(decodeAll((copy.output!))).toBe('x'.repeat(100_000) + 'ab中'.repeat(500));
    copy.push('y'.repeat(COPY_PARK_MAX_CHARS));
    expect(copy.held).toBe(false);
    copy.push('z');
    expect(copy.output).toBeNull();
  });

  it('the copy copies each byte of small pieces once, however many there are (a spinner in a live view)', () => {
    const copy = new OutputCopy();
    const original = Uint8Array.prototype.set;
    const set = vi.spyOn(Uint8Array.prototype, 'set');
    let copied = 0;
    set.mockImplementation(function (this: Uint8Array, array: ArrayLike<number>, offset?: number) {
      copied += array.length;
      return original.call(this, array, offset);
    } as never);
    try {
      const tick = new TextEncoder().encode('\r\x1b[2K⠋ building… 42%');
      for (let i = 0; i < 20_000; i++) copy.push(tick);
      const out = copy.output!;
      // Joined into a few arrays, each byte copied once (joining into the last array again at
      // every write copied that array each time: 636 MB for these 480 KB).
      expect(copied).toBe(20_000 * tick.length);
      expect(out.length).toBeLessThan(40);
      expect(decodeAll(out)).toBe('\r\x1b[2K⠋ building… 42%'.repeat(20_000));
    } finally {
      set.mockRestore();
    }
  });

  it('a gap while a copy is still being parsed resets after it, not in the middle of it: the screen is the replay alone', async () => {
    // The main process's scrollback no longer reaches the parked offset when the view comes back.
    const main = fakeMain(20_000);
    const copy = new OutputCopy();
    const lines = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag} ${i} ${'q'.repeat(60)}\r\n`).join('');
    copy.push(lines('old', 3_000));
    main.emit(lines('old', 3_000));
    const offset = main.text.length;
    main.emit(lines('new', 1_000));
    const b = term();
    // The copy handed to xterm, not parsed yet, when the attach's answer comes.
    restoreTerminal(b.t, { snapshot: null, output: copy.output!, offset, cols: 80, rows: 24, endWritten: false, cursor: { x: 0, y: 0 } }, () => undefined);
    const gaps: number[] = [];
    const resumed = new TerminalStream(main.client, 't', { write: (d, cb) => b.t.write(d, cb), reset: () => resetInOrder(b.t) }, { resumeFrom: offset, resumeHoldsAll: true, onGap: (n) => gaps.push(n) });
    await resumed.attach();
    resumed.dispose();
    await parsed(b.t);
    expect(gaps.length).toBe(1);
    const ref = term();
    ref.t.write(main.text.slice(main.text.length - 20_000));
    await parsed(ref.t);
    expect(state(b.t)).toEqual(state(ref.t));
  });

  it('a copy of no output restores at once; a view resumed after a snapshot does not hold it all, one resumed after a copy does', async () => {
    const a = term();
    const done = vi.fn();
    restoreTerminal(a.t, { snapshot: null, output: [], offset: 0, cols: 80, rows: 24, endWritten: false, cursor: { x: 0, y: 0 } }, done);
    expect(done).toHaveBeenCalledOnce();
    const main = fakeMain();
    main.emit(colored(10));
    expect((await view(main.client, term().t, 50)).holdsAllFromStart).toBe(false);
    const afterCopy = new TerminalStream(main.client, 't', { write: (d, cb) => a.t.write(d, cb), reset: () => a.t.reset() }, { resumeFrom: 50, resumeHoldsAll: true });
    await afterCopy.attach();
    expect(afterCopy.holdsAllFromStart).toBe(true);
    // The main process no longer reaching back to its offset: a reset, after which it does not.
    const cut = fakeMain(100);
    cut.emit(colored(50));
    const gapped = new TerminalStream(cut.client, 't', { write: (d, cb) => a.t.write(d, cb), reset: () => a.t.reset() }, { resumeFrom: 5, resumeHoldsAll: true });
    await gapped.attach();
    expect(gapped.holdsAllFromStart).toBe(false);
  });

  it('a view resized after output is exact no more, for a copy as for a replay', () => {
    const w = new ReplayWatch();
    expect(w.exact(true)).toBe(true);
    w.output();
    w.resized();
    expect(w.exact(true)).toBe(false);
    expect(new ReplayWatch().exact(false)).toBe(false);
  });

  it('a view that never attached has nothing to park', async () => {
    const a = term();
    expect(await parkTerminal(a.t, a.s, null, false)).toBeNull();
  });
});

function fakeView(snapshot: ParkedTerminal | null = { snapshot: 'x', offset: 1, cols: 80, rows: 24, endWritten: false, cursor: { x: 0, y: 0 } }) {
  const v = { parks: 0, disposed: 0, release: null as null | (() => void) };
  const cached: CachedView & typeof v = Object.assign(v, {
    park: () => {
      v.parks++;
      v.disposed++;
      return new Promise<ParkedTerminal | null>((resolve) => (v.release = () => resolve(snapshot)));
    },
    dispose: () => void v.disposed++,
  });
  return cached;
}

describe('TerminalViewCache', () => {
  const cacheWith = (maxHidden = 3) => new TerminalViewCache<ReturnType<typeof fakeView>>({ parkAfterMs: 30_000, maxHidden });

  it('keeps a hidden view live until it has been hidden long enough, then keeps only its snapshot', async () => {
    vi.useFakeTimers();
    try {
      const cache = cacheWith();
      const v = fakeView();
      cache.hide('a', v);
      vi.advanceTimersByTime(29_000);
      const back = cache.take('a');
      expect(back && 'view' in back && back.view).toBe(v);
      expect(v.parks).toBe(0);
      cache.hide('a', v);
      vi.advanceTimersByTime(30_000);
      expect(v.parks).toBe(1);
      v.release!();
      await cache.settled('a');
      expect(cache.counts).toEqual({ warming: 0, hidden: 0, parked: 1 });
      const restored = cache.take('a');
      expect(restored && 'parked' in restored && restored.parked.offset).toBe(1);
      expect(cache.take('a')).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it('parks the view hidden longest when too many are hidden', async () => {
    const cache = cacheWith(2);
    const views = [fakeView(), fakeView(), fakeView()];
    views.forEach((v, i) => cache.hide(`t${i}`, v));
    await Promise.resolve();
    expect(views.map((v) => v.parks)).toEqual([1, 0, 0]);
    expect(cache.counts.hidden).toBe(2);
  });

  it('a pane that hides one terminal and takes another in the same turn gets the live view back, even at the bound', async () => {
    const cache = cacheWith(2);
    const [a, b, c] = [fakeView(), fakeView(), fakeView()];
    cache.hide('a', a);
    cache.hide('b', b);
    // A round of switches: the pane hides c (over the bound) and takes a, the view hidden longest.
    cache.hide('c', c);
    const got = cache.take('a');
    expect(got && 'view' in got && got.view).toBe(a);
    await Promise.resolve();
    expect([a.parks, b.parks, c.parks]).toEqual([0, 0, 0]);
    expect(cache.counts.hidden).toBe(2);
  });

  it('a park that finishes after the terminal was shown again keeps no stale snapshot', async () => {
    const cache = cacheWith(0);
    const v = fakeView();
    cache.hide('a', v);
    await Promise.resolve();
    expect(v.parks).toBe(1);
    // Shown again while serializing: nothing to take yet, so a new view replays from the main process.
    expect(cache.take('a')).toBeNull();
    v.release!();
    await cache.settled('a');
    expect(cache.counts.parked).toBe(0);
  });

  it('forgets closed terminals: their live views are disposed and their snapshots dropped', async () => {
    const cache = cacheWith(1);
    const parked = fakeView();
    const live = fakeView();
    cache.hide('closed-parked', parked);
    cache.hide('closed-live', live);
    await Promise.resolve();
    parked.release!();
    await cache.settled('closed-parked');
    expect(cache.counts).toEqual({ warming: 0, hidden: 1, parked: 1 });
    cache.retain(new Set(['other']));
    expect(cache.counts).toEqual({ warming: 0, hidden: 0, parked: 0 });
    expect(live.disposed).toBe(1);
    expect(live.parks).toBe(0);
  });
});

describe('TerminalViewCache: views started ahead of their pane', () => {
  const cacheWith = (maxHidden = 3) => new TerminalViewCache<ReturnType<typeof fakeView>>({ parkAfterMs: 30_000, maxHidden, warmForMs: 2_000 });

  it('hands the view started ahead to the pane that shows the terminal, live, and the cache knows it meanwhile', () => {
    const cache = cacheWith();
    const v = fakeView();
    expect(cache.has('a')).toBe(false);
    cache.warm('a', v);
    expect(cache.has('a')).toBe(true);
    expect(cache.counts.warming).toBe(1);
    const got = cache.take('a');
    expect(got && 'view' in got && got.view).toBe(v);
    expect([v.disposed, v.parks]).toEqual([0, 0]);
    // On screen now: a second start for it is refused (and the extra view disposed).
    expect(cache.has('a')).toBe(true);
    const extra = fakeView();
    cache.warm('a', extra);
    expect(extra.disposed).toBe(1);
    expect(cache.counts.warming).toBe(0);
  });

  it('disposes a view no pane takes in time, without parking it, and nothing of it stays', () => {
    vi.useFakeTimers();
    try {
      const cache = cacheWith();
      const v = fakeView();
      cache.warm('a', v);
      vi.advanceTimersByTime(1_999);
      expect(v.disposed).toBe(0);
      vi.advanceTimersByTime(1);
      expect([v.disposed, v.parks]).toEqual([1, 0]);
      expect(cache.has('a')).toBe(false);
      expect(cache.take('a')).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps two at most: going through terminals quickly disposes the oldest started', () => {
    const cache = cacheWith();
    const [a, b, c] = [fakeView(), fakeView(), fakeView()];
    cache.warm('a', a);
    cache.warm('b', b);
    cache.warm('c', c);
    expect([a.disposed, b.disposed, c.disposed]).toEqual([1, 0, 0]);
    expect(cache.take('a')).toBeNull();
    const got = cache.take('c');
    expect(got && 'view' in got && got.view).toBe(c);
  });

  it('starts none for a terminal with a hidden view or a snapshot, and drops one whose terminal closed', async () => {
    const cache = cacheWith(0);
    const hidden = fakeView();
    cache.hide('parked', hidden);
    await Promise.resolve();
    // Being parked, then parked: either way the cache has it.
    expect(cache.has('parked')).toBe(true);
    hidden.release!();
    await cache.settled('parked');
    expect(cache.counts.parked).toBe(1);
    expect(cache.has('parked')).toBe(true);
    const extra = fakeView();
    cache.warm('parked', extra);
    expect(extra.disposed).toBe(1);
    const gone = fakeView();
    cache.warm('closed', gone);
    cache.retain(new Set(['parked']));
    expect(gone.disposed).toBe(1);
    expect(cache.counts).toEqual({ warming: 0, hidden: 0, parked: 1 });
  });
});

describe('answers to replayed queries', () => {
  it('tells xterm’s own answers from keys', () => {
    for (const reply of ['\x1b[?1;2c', '\x1b[>0;276;0c', '\x1b[0n', '\x1b[12;40R', '\x1b[?2004;1$y', '\x1b[8;24;80t', '\x1b]11;rgb:0000/0000/0000\x1b\\', '\x1b]10;rgb:ffff/ffff/ffff\x07', '\x1bP1$r0m\x1b\\', '\x1b[?1;2c\x1b[>0;276;0c']) {
      expect(isTerminalReply(reply), JSON.stringify(reply)).toBe(true);
    }
    for (const key of ['a', 'ls\r', '\x1b[A', '\x1bOB', '\x1b[15~', '\x1b[1;5D', '\x1b[H', '\x1b', '\x03', '\x1b[200~pasted\x1b[201~', 'c']) {
      expect(isTerminalReply(key), JSON.stringify(key)).toBe(false);
    }
  });

  it('tells what was typed (its echo awaited) from xterm’s answers, mouse and focus reports', () => {
    for (const typed of ['a', 'ls\r', '\x1b[A', '\x1b[15~', '\x1b[1;5D', '\x1b', '\x03', '\x1b[200~pasted\x1b[201~', 'Mx']) {
      expect(isTypedInput(typed), JSON.stringify(typed)).toBe(true);
    }
    for (const report of ['\x1b[M !!', '\x1b[M#5*\x1b[M 5*', '\x1b[<35;10;4M', '\x1b[<0;1;1m', '\x1b[<0;1;1M\x1b[<0;1;1m', '\x1b[32;10;4M', '\x1b[I', '\x1b[O', '\x1b[0n', '\x1b[?1;2c']) {
      expect(isTypedInput(report), JSON.stringify(report)).toBe(false);
    }
  });

  it('the stream says when the emulator is parsing a replay of the whole scrollback, and not for live output', async () => {
    const main = fakeMain();
    // A program asked for the device attributes and the cursor position long ago.
    main.emit('$ vim\r\n\x1b[c\x1b[6n' + colored(50));
    const a = term();
    const answers: Array<{ data: string; replaying: boolean }> = [];
    let stream: TerminalStream | null = null;
    a.t.onData((data) => answers.push({ data, replaying: stream!.replaying }));
    stream = await view(main.client, a.t);
    await parsed(a.t);
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.every((x) => x.replaying && isTerminalReply(x.data))).toBe(true);
    expect(stream.replaying).toBe(false);
    // Asked now: answered, not a replay.
    answers.length = 0;
    main.emit('\x1b[c');
    await tick();
    await parsed(a.t);
    expect(answers).toHaveLength(1);
    expect(isTerminalReply(answers[0]!.data)).toBe(true);
    expect(answers[0]!.replaying).toBe(false);

    // Parked without a snapshot and shown again: the same replay, the same silence.
    stream.dispose();
    const parked = (await parkTerminal(a.t, a.s, stream.offset, false, true))!;
    const b = term(parked.cols, parked.rows);
    const again: Array<{ data: string; replaying: boolean }> = [];
    let resumed: TerminalStream | null = null;
    b.t.onData((data) => again.push({ data, replaying: resumed!.replaying }));
    resumed = await view(main.client, b.t, parked.offset);
    await parsed(b.t);
    expect(again.length).toBeGreaterThan(0);
    expect(again.every((x) => x.replaying && isTerminalReply(x.data))).toBe(true);
    expect(resumed.replaying).toBe(false);
  });
});
