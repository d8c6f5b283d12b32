import { describe, expect, it } from 'vitest';
import type { Client } from '../../../src-preload/client/client';
import { TerminalStream, type TerminalSink } from '../../../src-preload/client/terminal-stream';

/**
 * A fake server for one terminal: a stream of output with offsets, a scrollback window, and
 * a switch to drop live events (as the browser host does for a socket that stopped draining).
 */
function fakeTerminal(scrollback = 1_000) {
  let all = '';
  let dropping = false;
  let status = 'running';
  const listeners = new Map<string, (p: unknown) => void>();
  const calls: Array<{ channel: string; input: Record<string, unknown> }> = [];
  let att = 0;
  const client = {
    transport: { invoke: async () => ({ ok: true, value: {} }), subscribe: () => () => undefined },
    on(topic: string, l: (p: unknown) => void) {
      listeners.set(topic, l);
      return () => listeners.delete(topic);
    },
    async invoke(channel: string, input: Record<string, unknown>) {
      calls.push({ channel, input });
      const start = Math.max(0, all.length - scrollback);
      if (channel === 'terminals.history') return { data: all.slice(start), start, end: all.length };
      if (channel !== 'terminals.attach') return { ok: true };
      // As the main process does: only what came after `since` when the scrollback reaches back to it.
      const since = input.since as number | undefined;
      const from = since !== undefined && since >= start && since <= all.length ? since : start;
      return {
        terminal: { id: 't', status },
        attachmentId: `att-${String(++att).padStart(6, '0')}`,
        data: all.slice(from),
        start: from,
        end: all.length,
      };
    },
  } as unknown as Client;
  return {
    client,
    calls,
    emit(data: string) {
      const offset = all.length;
      all += data;
      if (!dropping) listeners.get('terminals.data')?.({ offset, data });
    },
    drop(on: boolean) {
      dropping = on;
    },
    /** The terminal ended and the last `chars` of its output never reached the scrollback (its pty host died holding them). */
    endShort(chars: number) {
      all = all.slice(0, all.length - chars);
      status = 'exited';
    },
    get text() {
      return all;
    },
  };
}

function sink() {
  const s = { text: '', resets: 0, pending: [] as Array<() => void> };
  const api: TerminalSink = {
    write(data, cb) {
      s.text += data;
      if (cb) s.pending.push(cb);
    },
    reset() {
      s.resets++;
      s.text = '';
    },
  };
  return { s, api, parse: () => s.pending.splice(0).forEach((cb) => cb()) };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

/** A stream over a fake terminal and a sink, attached. */
async function attachedStream() {
  const t = fakeTerminal();
  const out = sink();
  const stream = new TerminalStream(t.client, 't', out.api);
  await stream.attach();
  return { t, out, stream };
}

describe('TerminalStream', () => {
  it('writes the scrollback, then live data once, dropping what overlaps', async () => {
    const t = fakeTerminal();
    const out = sink();
    t.emit('before ');
    const stream = new TerminalStream(t.client, 't', out.api);
    await stream.attach();
    t.emit('live');
    expect(out.s.text).toBe('before live');
    expect(stream.offset).toBe(t.text.length);
  });

  it('attaches once more when the direct socket was lost while an attach was under way', async () => {
    // The host answers the attach, then the direct socket drops before the view has the answer:
    // what it sent there after the answer is lost, and the resync came while the attach was open.
    let all = 'before ';
    let resync: (() => void) | null = null;
    const answers: Array<() => void> = [];
    let attaches = 0;
    let onData: ((p: unknown) => void) | null = null;
    const client = {
      transport: { invoke: async () => ({ ok: true, value: {} }), subscribe: () => () => undefined, onResync: (l: () => void) => ((resync = l), () => undefined) },
      on(topic: string, l: (p: unknown) => void) {
        if (topic === 'terminals.data') onData = l;
        return () => undefined;
      },
      invoke(channel: string) {
        if (channel !== 'terminals.attach') return Promise.resolve({ ok: true });
        attaches++;
        const snapshot = all;
        return new Promise((resolve) => answers.push(() => resolve({ terminal: { id: 't', status: 'running' }, attachmentId: `att-${attaches}`, data: snapshot, start: 0, end: snapshot.length })));
      },
    } as unknown as Client;
    const out = sink();
    const stream = new TerminalStream(client, 't', out.api);
    const first = stream.attach();
    all += 'lost on the dropped socket';
    resync!();
    answers.shift()!();
    await first;
    await tick();
    expect(attaches).toBe(2);
    answers.shift()!();
    await tick();
    expect(out.s.text).toBe('before lost on the dropped socket');
    all += ' and live';
    onData!({ offset: 'before lost on the dropped socket'.length, data: ' and live' });
    expect(out.s.text).toBe(all);
  });

  it('tells when its replay has been parsed: not before the sink calls back, at once without one', async () => {
    const t = fakeTerminal();
    const out = sink();
    t.emit('history\r\n'.repeat(20));
    const stream = new TerminalStream(t.client, 't', out.api);
    await stream.attach();
    let parsed = false;
    const replayed = stream.replayed().then(() => (parsed = true));
    await tick();
    expect(stream.replaying).toBe(true);
    expect(parsed).toBe(false);
    out.parse();
    await replayed;
    expect(stream.replaying).toBe(false);

    // Nothing to replay (a new terminal): nothing to wait for.
    const empty = new TerminalStream(fakeTerminal().client, 't', sink().api);
    await empty.attach();
    await expect(empty.replayed()).resolves.toBeUndefined();
    // A stream stopped in the middle of its replay does not leave anyone waiting.
    const t2 = fakeTerminal();
    t2.emit('more history');
    const stopped = new TerminalStream(t2.client, 't', sink().api);
    await stopped.attach();
    const waiting = stopped.replayed();
    stopped.dispose();
    await expect(waiting).resolves.toBeUndefined();
  });

  it('acknowledges only after parsing, in batches', async () => {
    const t = fakeTerminal(100_000);
    const out = sink();
    const stream = new TerminalStream(t.client, 't', out.api, { ackBatchChars: 10 });
    await stream.attach();
    t.emit('12345');
    t.emit('67890abc');
    expect(t.calls.filter((c) => c.channel === 'terminals.ack')).toHaveLength(0);
    out.parse();
    const acks = t.calls.filter((c) => c.channel === 'terminals.ack');
    expect(acks).toHaveLength(1);
    expect(acks[0]!.input).toMatchObject({ chars: 13 });
  });

  it("acknowledges a burst's end under a batch a moment after it was parsed, once", async () => {
    const t = fakeTerminal(100_000);
    const out = sink();
    const stream = new TerminalStream(t.client, 't', out.api, { ackBatchChars: 10, ackTailMs: 20 });
    await stream.attach();
    const acks = () => t.calls.filter((c) => c.channel === 'terminals.ack').map((c) => c.input.chars);
    t.emit('123456789012');
    t.emit('$ ');
    out.parse();
    // The batch at once; the prompt after it (2 characters) and a typed echo only after the tail's wait, together.
    expect(acks()).toEqual([12]);
    t.emit('l');
    out.parse();
    expect(acks()).toEqual([12]);
    await new Promise((r) => setTimeout(r, 60));
    expect(acks()).toEqual([12, 3]);
    await new Promise((r) => setTimeout(r, 60));
    expect(acks()).toEqual([12, 3]);
    // Nothing is sent for a stream that was stopped with a tail pending.
    t.emit('s');
    out.parse();
    stream.dispose();
    await new Promise((r) => setTimeout(r, 60));
    expect(acks()).toEqual([12, 3]);
  });

  it('acknowledges at most once an interval while behind, at once when it has caught up, and nothing after it stopped', async () => {
    const t = fakeTerminal(100_000);
    const out = sink();
    const stream = new TerminalStream(t.client, 't', out.api, { ackBatchChars: 10, ackIntervalMs: 50 });
    await stream.attach();
    const acks = () => t.calls.filter((c) => c.channel === 'terminals.ack').map((c) => c.input.chars);
    const parseOne = () => out.s.pending.shift()!();
    // A flood: four batches received, parsed one by one.
    for (const ch of 'abcd') t.emit(ch.repeat(20));
    // The first is acknowledged at once (no ack for a while), the next ones wait for the interval, together.
    parseOne();
    expect(acks()).toEqual([20]);
    parseOne();
    parseOne();
    expect(acks()).toEqual([20]);
    await new Promise((r) => setTimeout(r, 80));
    expect(acks()).toEqual([20, 40]);
    // Caught up (nothing received is left to parse): at once, whatever the interval says.
    parseOne();
    expect(acks()).toEqual([20, 40, 20]);
    // An ack waiting for its interval is not sent by a stream that stopped.
    t.emit('e'.repeat(20));
    t.emit('f'.repeat(20));
    parseOne();
    stream.dispose();
    await new Promise((r) => setTimeout(r, 80));
    expect(acks()).toEqual([20, 40, 20]);
  });

  it('a reset drops what waited to be parsed, and does not count it as still to parse', async () => {
    const t = fakeTerminal(20_000);
    const out = sink();
    const stream = new TerminalStream(t.client, 't', out.api, { ackBatchChars: 10, ackIntervalMs: 60_000 });
    await stream.attach();
    const acks = () => t.calls.filter((c) => c.channel === 'terminals.ack').map((c) => c.input.chars);
    t.emit('a'.repeat(10));
    out.parse();
    expect(acks()).toEqual([10]);
    // Two large batches: the first handed to the emulator, the second waiting in the scheduler...
    t.emit('b'.repeat(8_000));
    t.emit('c'.repeat(8_000));
    // ...when the view falls behind the scrollback: the reset drops the second, whose callback never runs.
    t.drop(true);
    t.emit('d'.repeat(25_000));
    t.drop(false);
    t.emit('e'.repeat(10));
    await new Promise((r) => setTimeout(r, 0));
    expect(out.s.resets).toBe(1);
    // Live output after the replay, parsed: nothing else is left, so it is acknowledged at once.
    // (The scheduler hands the replay over piece by piece, each after the last was parsed.)
    const parseAll = async () => {
      for (let i = 0; i < 20; i++, await new Promise((r) => setTimeout(r, 0))) out.parse();
    };
    await parseAll();
    expect(out.s.text).toBe(t.text.slice(-20_000));
    t.emit('f'.repeat(10));
    await parseAll();
    expect(acks()).toEqual([10, 10]);
    stream.dispose();
  });

  it('resyncs from the scrollback after dropped events, with no gap and no duplicate', async () => {
    const { t, out, stream } = await attachedStream();
    t.emit('one ');
    t.drop(true);
    t.emit('two ');
    t.emit('three ');
    t.drop(false);
    t.emit('four');
    await tick();
    expect(out.s.text).toBe('one two three four');
    expect(stream.stats.resyncs).toBe(1);
    expect(out.s.resets).toBe(0);
  });

  it('resets and replays when the scrollback no longer reaches back to the view', async () => {
    const t = fakeTerminal(5);
    const out = sink();
    const gaps: number[] = [];
    const stream = new TerminalStream(t.client, 't', out.api, { onGap: (n) => gaps.push(n) });
    await stream.attach();
    t.emit('ab');
    t.drop(true);
    t.emit('cdefghij');
    t.drop(false);
    t.emit('k');
    await tick();
    expect(out.s.resets).toBe(1);
    expect(out.s.text).toBe('ghijk');
    expect(gaps).toEqual([4]);
    expect(stream.offset).toBe(t.text.length);
  });

  it('a view re-attaching after a drop asks only for what came after what it holds', async () => {
    const { t, out, stream } = await attachedStream();
    t.emit('one ');
    await tick();
    t.drop(true);
    t.emit('two ');
    t.drop(false);
    await stream.attach();
    const attaches = t.calls.filter((c) => c.channel === 'terminals.attach').map((c) => c.input);
    expect(attaches).toEqual([{ id: 't' }, { id: 't', since: 4 }]);
    expect(out.s.text).toBe('one two ');
    expect(out.s.resets).toBe(0);
  });

  describe('with a scrollback read ahead (history)', () => {
    async function readAhead(t: ReturnType<typeof fakeTerminal>) {
      return (await t.client.invoke('terminals.history', { id: 't' })) as unknown as { data: string; start: number; end: number };
    }

    it('writes it at once as the replay, attaches from its end and writes only what came after', async () => {
      const t = fakeTerminal();
      const out = sink();
      t.emit('old output|');
      const history = await readAhead(t);
      t.emit('printed since|');
      const stream = new TerminalStream(t.client, 't', out.api, { history });
      // Before the attach answers: the read ahead is with the sink, and it is a replay.
      expect(out.s.text).toBe('old output|');
      expect(stream.replaying).toBe(true);
      await stream.attach();
      expect(t.calls.filter((c) => c.channel === 'terminals.attach').map((c) => c.input)).toEqual([{ id: 't', since: 'old output|'.length }]);
      t.emit('live');
      await tick();
      expect(out.s.text).toBe('old output|printed since|live');
      expect(out.s.resets).toBe(0);
      expect(stream.readAheadStale).toBe(false);
      expect(stream.holdsAllFromStart).toBe(true);
      out.parse();
      expect(stream.replaying).toBe(false);
    });

    it('writes what came after the read ahead as a replay too: the queries in it were asked long ago', async () => {
      const t = fakeTerminal();
      const out = sink();
      t.emit('old output|');
      const history = await readAhead(t);
      t.emit('a query \x1b[c asked since|');
      const stream = new TerminalStream(t.client, 't', out.api, { history });
      await stream.attach();
      // The sink parses the read ahead: still replaying, with what came after it to parse.
      out.s.pending.shift()!();
      expect(stream.replaying).toBe(true);
      let replayed = false;
      void stream.replayed().then(() => (replayed = true));
      await tick();
      expect(replayed).toBe(false);
      out.parse();
      await tick();
      expect(stream.replaying).toBe(false);
      expect(replayed).toBe(true);
    });

    it('a parked view writes what came while it was parked as a replay too', async () => {
      const t = fakeTerminal();
      const out = sink();
      t.emit('shown before parking|');
      const parkedAt = t.text.length;
      t.emit('asked while parked \x1b[6n|');
      const stream = new TerminalStream(t.client, 't', out.api, { resumeFrom: parkedAt, resumeHoldsAll: true });
      await stream.attach();
      expect(out.s.text).toBe('asked while parked \x1b[6n|');
      expect(stream.replaying).toBe(true);
      out.parse();
      expect(stream.replaying).toBe(false);
    });

    it('attaches on reconnect after its first attach failed, and says so (onAttached)', async () => {
      const t = fakeTerminal();
      const out = sink();
      t.emit('history|');
      const history = await readAhead(t);
      t.emit('more|');
      let status: ((s: string) => void) | null = null;
      const failing = {
        ...t.client,
        on: t.client.on.bind(t.client),
        transport: { ...t.client.transport, onStatus: (l: (s: string) => void) => ((status = l), () => undefined) },
        invoke: async () => {
          throw new Error('connection lost');
        },
      } as unknown as Client;
      const attached: number[] = [];
      const stream = new TerminalStream(failing, 't', out.api, { history, onAttached: (r) => attached.push(r.end) });
      await expect(stream.attach()).rejects.toThrow('connection lost');
      expect(attached).toEqual([]);
      // The connection comes back: the stream attaches from the read ahead's end.
      (failing as unknown as { invoke: Client['invoke'] }).invoke = t.client.invoke.bind(t.client);
      status!('closed');
      status!('open');
      await tick();
      await tick();
      expect(attached).toEqual([t.text.length]);
      expect(out.s.text).toBe('history|more|');
      expect(t.calls.filter((c) => c.channel === 'terminals.attach').map((c) => c.input)).toEqual([{ id: 't', since: 'history|'.length }]);
    });

    it('starts over silently when more came since than the scrollback holds (no gap reported)', async () => {
      const t = fakeTerminal(10);
      const out = sink();
      const gaps: number[] = [];
      t.emit('0123456789');
      const history = await readAhead(t);
      t.emit('abcdefghijklmno');
      const stream = new TerminalStream(t.client, 't', out.api, { history, onGap: (n) => gaps.push(n) });
      await stream.attach();
      expect(out.s.resets).toBe(1);
      expect(out.s.text).toBe('fghijklmno');
      expect(gaps).toEqual([]);
      expect(stream.stats.gaps).toBe(0);
      expect(stream.offset).toBe(t.text.length);
      // Nothing to keep it for.
      expect(stream.readAheadStale).toBe(true);
      // A scrollback cut at its start: the sink no longer holds the output from the first character.
      expect(stream.holdsAllFromStart).toBe(false);
    });

    it('a read ahead whose own start was cut does not count as holding everything from the start', async () => {
      const t = fakeTerminal(4);
      const out = sink();
      t.emit('abcdefgh');
      const history = await readAhead(t);
      const stream = new TerminalStream(t.client, 't', out.api, { history });
      await stream.attach();
      expect(out.s.text).toBe('efgh');
      expect(stream.holdsAllFromStart).toBe(false);
    });

    it('is held with the rest of the output until released, and dropped unparsed when disposed while held', async () => {
      const t = fakeTerminal();
      const out = sink();
      t.emit('history');
      const history = await readAhead(t);
      const held = new TerminalStream(t.client, 't', out.api, { history, holdOutput: true });
      await held.attach();
      expect(out.s.text).toBe('');
      held.releaseOutput();
      await tick();
      expect(out.s.text).toBe('history');
      held.dispose();

      const other = sink();
      const dropped = new TerminalStream(t.client, 't', other.api, { history, holdOutput: true });
      dropped.dispose();
      await tick();
      expect(other.s.text).toBe('');
    });
  });

  it("keeps what it shows of an ended terminal whose scrollback ends before it (the pty host died holding a flood's output)", async () => {
    const t = fakeTerminal();
    const out = sink();
    const gaps: number[] = [];
    const statuses: string[] = [];
    const stream = new TerminalStream(t.client, 't', out.api, { onGap: (n) => gaps.push(n), onStatus: (i) => statuses.push(i.status) });
    await stream.attach();
    t.emit('before-the-flood|');
    t.emit('flood '.repeat(50));
    await tick();
    t.endShort('flood '.repeat(50).length);
    // The direct socket died with the host: the view attaches again.
    await stream.attach();
    expect(out.s.resets).toBe(0);
    expect(out.s.text).toBe(`before-the-flood|${'flood '.repeat(50)}`);
    expect(gaps).toEqual([]);
    expect(statuses.at(-1)).toBe('exited');
  });
});

describe("TerminalStream.afterOutputTo: an ended terminal's end line after its last output", () => {
  it('waits for output still on its way when the end was told first (the status and the output come on different channels)', async () => {
    const { t, out, stream } = await attachedStream();
    t.emit('ended-42\r\n');
    out.parse();
    // The end is known (outputEnd 16) while "exit\r\n" is still on its way.
    const endAt = t.text.length + 'exit\r\n'.length;
    stream.afterOutputTo(endAt, () => (out.s.text += '[exited with code 3]'), 60_000);
    out.parse();
    await tick();
    expect(out.s.text).toBe('ended-42\r\n');
    t.emit('exit\r\n');
    // Once parsed: the line comes after all of it.
    out.parse();
    await tick();
    expect(out.s.text).toBe('ended-42\r\nexit\r\n[exited with code 3]');
  });

  it('runs at once (after what is queued) when the output is all there, and after its bound when it never comes', async () => {
    const { t, out, stream } = await attachedStream();
    t.emit('done\r\n');
    let ran = 0;
    stream.afterOutputTo(t.text.length, () => ran++, 60_000);
    out.parse();
    expect(ran).toBe(1);
    stream.afterOutputTo(t.text.length + 100, () => ran++, 20);
    await new Promise((r) => setTimeout(r, 40));
    out.parse();
    expect(ran).toBe(2);
  });

  it('output lost on its way is fetched when the bound passes: the line comes after it; a stopped stream runs nothing', async () => {
    const { t, out, stream } = await attachedStream();
    t.drop(true);
    t.emit('lost-on-the-way\r\n');
    let ran = 0;
    stream.afterOutputTo(t.text.length, () => (ran++, (out.s.text += '[end]')), 30);
    out.parse();
    expect(ran).toBe(0);
    // Nothing more comes: at the bound the stream attaches again, which brings what was lost.
    await new Promise((r) => setTimeout(r, 60));
    out.parse();
    await tick();
    out.parse();
    expect(out.s.text).toBe('lost-on-the-way\r\n[end]');
    expect(ran).toBe(1);
    stream.afterOutputTo(t.text.length + 5, () => ran++, 20);
    stream.dispose();
    await new Promise((r) => setTimeout(r, 40));
    out.parse();
    expect(ran).toBe(1);
  });
});
