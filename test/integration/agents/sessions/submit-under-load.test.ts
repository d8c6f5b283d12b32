import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { AgentEvent } from '../../../../src-preload/contract';
import { startBrowserHost, type BrowserHost } from '../../../../src-main/host/browser-host';
import { tempDir } from '../../../support/temp';
import { harness, waitFor, type Harness } from '../harness';

/**
 * Typed inputs are never lost: 200 inputs go to a session through the real browser-mode host as
 * fast as a script can, many of them right at a turn's start or end, while another process keeps
 * a core busy. The main process decides for each whether it starts a turn or waits in the queue;
 * afterwards every one of them ran exactly once, in the order it was sent.
 */
const INPUTS = 200;
/** Kept under the queue's bound (MAX_QUEUED_INPUTS = 20) so no input is refused for a full queue. */
const QUEUE_PACE = 12;
const TOKEN = 'submit-test-token-0123456789';

let h: Harness;
let host: BrowserHost;
let burner: ChildProcess;
const renderer = tempDir('fd-renderer-');

beforeAll(async () => {
  h = await harness();
  mkdirSync(join(renderer.path, 'assets'));
  writeFileSync(join(renderer.path, 'index.html'), '<!doctype html><title>Flightdeck</title>');
  host = await startBrowserHost(h.app, { port: 0, token: TOKEN, rendererDir: renderer.path });
  // Another process busy on the CPU for the whole test: turns start and end late and unevenly.
  burner = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
});

afterAll(async () => {
  burner?.kill('SIGKILL');
  await host?.close();
  await h?.cleanup();
  renderer.cleanup();
});

class Client {
  private seq = 0;
  private readonly waiting = new Map<number, (r: { ok: boolean; value?: unknown; error?: { code: string; message: string } }) => void>();
  constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: WebSocket.RawData) => {
      const frame = JSON.parse(data.toString()) as { type: string; id: number; result: { ok: boolean; value?: unknown; error?: { code: string; message: string } } };
      if (frame.type === 'result') this.waiting.get(frame.id)?.(frame.result);
    });
  }
  static async connect(port: number): Promise<Client> {
    const base = `http://127.0.0.1:${port}`;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { Cookie: `flightdeck_token_${port}=${TOKEN}`, Origin: base } });
    await new Promise<void>((resolve, reject) => {
      ws.on('open', () => resolve());
      ws.on('error', reject);
    });
    return new Client(ws);
  }
  invoke(channel: string, input: unknown): Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string } }> {
    const id = ++this.seq;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.ws.send(JSON.stringify({ type: 'invoke', id, channel, input }));
    });
  }
  close(): void {
    this.ws.close();
  }
}

/** Resolves at the next turn start or end of the session (or after `ms`, when none comes). */
function nextTurnEdge(sessionId: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(() => (off(), resolve()), ms);
    const off = h.app.hub.subscribe((e) => {
      if (e.topic !== 'agents.event') return;
      const ev = e.payload as AgentEvent;
      if (ev.sessionId === sessionId && (ev.data.type === 'turn.started' || ev.data.type === 'turn.ended')) {
        clearTimeout(t);
        off();
        resolve();
      }
    });
  });
}

describe('submitting inputs around turn starts and ends', () => {
  it('every input is run exactly once, in order, or waits in the queue; none is lost or refused', async () => {
    const sessionId = h.session();
    const client = await Client.connect(host.port);
    const answers: Array<Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string } }>> = [];
    const sent: string[] = [];
    let unanswered = 0;
    let i = 0;
    while (i < INPUTS) {
      // Bursts of 1–4 inputs, each sent without waiting for the one before to be answered.
      const burst = 1 + (i % 4);
      for (let k = 0; k < burst && i < INPUTS; k++, i++) {
        const text = `input ${String(i).padStart(3, '0')}`;
        sent.push(text);
        unanswered++;
        answers.push(client.invoke('agents.submit', { sessionId, input: text }).finally(() => unanswered--));
      }
      // Then the next burst goes right at a turn's start or end (or on the next tick).
      if (i % 3 === 0) await new Promise((r) => setImmediate(r));
      else await nextTurnEdge(sessionId, 2_000);
      // Kept well under the queue's bound (a full queue refuses, which the composer shows; not what this tests).
      while (unanswered + (h.app.agents.getSession(sessionId).queue?.length ?? 0) >= QUEUE_PACE) await nextTurnEdge(sessionId, 1_000);
    }
    const results = await Promise.all(answers);
    const refused = results.filter((r) => !r.ok);
    expect(refused, JSON.stringify(refused.slice(0, 3))).toEqual([]);
    const outcomes = results.map((r) => (r.value as { outcome: string }).outcome);
    // Both answers happened: some inputs started a turn, others waited behind one.
    expect(outcomes.filter((o) => o === 'started').length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => o === 'queued').length).toBeGreaterThan(0);

    // Right now, every input is in the transcript (its turn started) or in the queue, exactly once.
    await h.app.agents.sink.flushed();
    const startedNow = h.app.agents.sink.read(sessionId, 1, 100_000).flatMap((e) => (e.data.type === 'turn.started' ? [e.data.input] : []));
    const queuedNow = (h.app.agents.getSession(sessionId).queue ?? []).map((q) => q.text);
    expect([...startedNow, ...queuedNow].sort()).toEqual([...sent].sort());

    // And once the queue has run dry, each ran exactly once, in the order it was sent.
    await waitFor(() => {
      const s = h.app.agents.getSession(sessionId);
      return s.status === 'idle' && (s.queue?.length ?? 0) === 0 && !h.app.agents.isRunning(sessionId);
    }, 'the queue to run dry', 240_000);
    await h.app.agents.sink.flushed();
    const started = h.app.agents.sink.read(sessionId, 1, 100_000).flatMap((e) => (e.data.type === 'turn.started' ? [e.data.input] : []));
    expect(started).toEqual(sent);
    const ended = h.app.agents.sink.read(sessionId, 1, 100_000).filter((e) => e.data.type === 'turn.ended');
    expect(ended).toHaveLength(INPUTS);
    client.close();
  }, 400_000);

  it('a message whose answer was lost with the connection, sent again with the same id, runs once', async () => {
    h.server.setScript([{ match: { userPattern: 'only once, please' }, delayMs: 300, blocks: [{ type: 'text', text: 'answered' }] }]);
    const sessionId = h.session();
    // The page sends, and its connection drops before the answer comes back.
    const first = await Client.connect(host.port);
    void first.invoke('agents.submit', { sessionId, input: 'only once, please', inputId: 'input-id-0001' });
    first.close();
    await waitFor(() => h.app.agents.isRunning(sessionId), 'the first send to start its turn', 10_000);
    // The composer kept the text (the send showed as failed) and the user sends it again, on a new connection.
    const again = await Client.connect(host.port);
    const answer = await again.invoke('agents.submit', { sessionId, input: 'only once, please', inputId: 'input-id-0001' });
    expect(answer.ok).toBe(true);
    expect(answer.value).toMatchObject({ outcome: 'started', sessionId });
    // (control) The same text with another id is another message: it waits behind the first.
    const other = await again.invoke('agents.submit', { sessionId, input: 'only once, please', inputId: 'input-id-0002' });
    expect(other.value).toMatchObject({ outcome: 'queued', position: 1 });
    await waitFor(() => {
      const s = h.app.agents.getSession(sessionId);
      return s.status === 'idle' && (s.queue?.length ?? 0) === 0 && !h.app.agents.isRunning(sessionId);
    }, 'both turns to end', 30_000);
    await h.app.agents.sink.flushed();
    const started = h.app.agents.sink.read(sessionId, 1, 1_000).flatMap((e) => (e.data.type === 'turn.started' ? [e.data.input] : []));
    expect(started).toEqual(['only once, please', 'only once, please']);
    again.close();
  }, 60_000);

  it('an interruption holds the queue; a new message goes at once, the held ones on resume; removed ones never run', async () => {
    h.server.setScript([{ match: { userPattern: 'hold the line' }, delayMs: 60_000, blocks: [{ type: 'text', text: 'late' }] }]);
    const sessionId = h.session();
    const before = h.server.mainRequests().length;
    expect(h.app.agents.submit(sessionId, 'please hold the line')).toMatchObject({ outcome: 'started' });
    const a = h.app.agents.submit(sessionId, 'queued a');
    const b = h.app.agents.submit(sessionId, 'queued b');
    expect(a).toMatchObject({ outcome: 'queued', position: 1 });
    expect(b).toMatchObject({ outcome: 'queued', position: 2 });
    // Interrupted while the model answers (the slow reply has used up its script turn).
    await waitFor(() => h.server.mainRequests().length > before, 'the model request');
    expect(h.app.agents.cancel(sessionId)).toBe(true);
    await h.app.agents.running(sessionId);
    const s = h.app.agents.getSession(sessionId);
    expect(s.queue?.map((q) => q.text)).toEqual(['queued a', 'queued b']);
    expect(s.queueHeld).toContain('interrupted');
    // Held: the user's new message goes first, and the held ones stay.
    expect(h.app.agents.submit(sessionId, 'new direction')).toMatchObject({ outcome: 'started' });
    await h.app.agents.running(sessionId);
    expect(h.app.agents.removeQueued(sessionId, (b as { queuedId: string }).queuedId)).toBe(true);
    expect(h.app.agents.removeQueued(sessionId, (b as { queuedId: string }).queuedId)).toBe(false);
    expect(h.app.agents.resumeQueue(sessionId)).toBe(true);
    await waitFor(() => h.app.agents.getSession(sessionId).status === 'idle' && !h.app.agents.isRunning(sessionId) && (h.app.agents.getSession(sessionId).queue ?? []).length === 0, 'the resumed queue to run');
    await h.app.agents.sink.flushed();
    const started = h.app.agents.sink.read(sessionId, 1, 100_000).flatMap((e) => (e.data.type === 'turn.started' ? [e.data.input] : []));
    expect(started).toEqual(['please hold the line', 'new direction', 'queued a']);
  });

  it('a queue that is full refuses the next input instead of dropping it', async () => {
    h.server.setScript([{ match: { userPattern: 'hold the line' }, delayMs: 60_000, blocks: [{ type: 'text', text: 'late' }] }]);
    const sessionId = h.session();
    const before = h.server.mainRequests().length;
    h.app.agents.submit(sessionId, 'please hold the line');
    for (let k = 0; k < 20; k++) h.app.agents.submit(sessionId, `waiting ${k}`);
    expect(() => h.app.agents.submit(sessionId, 'one too many')).toThrow(/already wait/);
    expect(h.app.agents.getSession(sessionId).queue).toHaveLength(20);
    await waitFor(() => h.server.mainRequests().length > before, 'the model request');
    h.app.agents.cancel(sessionId);
    await h.app.agents.running(sessionId);
  });
});
