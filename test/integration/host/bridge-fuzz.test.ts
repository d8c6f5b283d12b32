import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { z } from 'zod';
import { events, requests } from '../../../src-preload/contract';
import { MAX_CLIENT_FRAME_BYTES } from '../../../src-preload/contract/wire';
import { startTestApp } from '../../support/app';
import { tempDir } from '../../support/temp';

/**
 * Fuzz-style test of the bridge: random and malformed frames for every contract channel, for a
 * bounded time, against a real browser-mode host process. The host must answer /healthz the
 * whole time, answer every well-formed request exactly once, and give its memory back after.
 *
 * Reproduce a run with FUZZ_SEED=<the seed printed in a failure message>.
 */
const FUZZ_MS = 20_000;
/** Sockets sending at once: enough to interleave, few enough for a shared two-core machine. */
const SOCKETS = 4;
/** Frames per batch; each batch ends with a request whose answer paces the sender. */
const BATCH = 40;
/** /healthz is asked this often; one that takes longer than HEALTH_TIMEOUT_MS counts as down. */
const HEALTH_EVERY_MS = 250;
const HEALTH_TIMEOUT_MS = 15_000;
/**
 * Memory may stay above its baseline by this much after the fuzz: V8 keeps some of a grown heap
 * and the allocator keeps freed pages. What this catches is memory held per frame (hundreds of
 * thousands of frames go through), which would stay far above it.
 */
const RSS_TOLERANCE_BYTES = 96 * 1024 * 1024;
/** How long the host gets to give memory back once the sockets are closed (no forced GC). */
const RSS_SETTLE_MS = 45_000;

const root = fileURLToPath(new URL('../../..', import.meta.url));
const TOKEN = 'fuzz-test-token-0123456789';
const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** mulberry32: a small seeded generator, so a failing run can be replayed. */
function prng(s: number): () => number {
  let a = s >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const channels = Object.keys(requests);
const topics = Object.keys(events);
/** Field names of every channel's input, so random objects hit real fields with wrong values. */
const fieldsOf = new Map<string, string[]>(
  channels.map((c) => {
    const input = requests[c as keyof typeof requests].input as z.ZodType;
    const shape = input instanceof z.ZodObject ? Object.keys(input.shape as Record<string, unknown>) : [];
    return [c, shape];
  }),
);
const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', ''];

class Fuzzer {
  private readonly r: () => number;
  constructor(s: number) {
    this.r = prng(s);
  }
  int(n: number): number {
    return Math.floor(this.r() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  chance(p: number): boolean {
    return this.r() < p;
  }
  /** Never an absolute path or `..`: a random string must not name anything on this machine. */
  str(max = 24): string {
    const alphabet = 'abcxyzABC019 _-.:;*?$`\'"\\\n\t\u0000é漢🙂<>{}[]';
    let s = '';
    const n = this.int(max);
    for (let i = 0; i < n; i++) s += alphabet[this.int(alphabet.length)]!;
    // Nor `.` or spaces alone (the working folder).
    s = s.replace(/\.\./g, '_');
    return /^[.\s]+$/.test(s) ? `q${s}` : s;
  }
  value(depth = 0): unknown {
    const k = this.int(depth > 3 ? 7 : 10);
    switch (k) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.pick([0, -1, 1.5, 2 ** 53, -(2 ** 31), 1e308, 65_536, 4_294_967_296]);
      case 3:
      case 4:
        return this.str();
      case 5:
        return this.str(3);
      case 6:
        return this.pick(['plan', 'default', 'yolo', 'dark', 'light', 'SIGKILL', 'ask', 'allow', 'deny', 'chat']);
      case 7:
        return Array.from({ length: this.int(4) }, () => this.value(depth + 1));
      default:
        return this.object([], depth + 1);
    }
  }
  object(fields: readonly string[], depth = 0): Record<string, unknown> {
    const o: Record<string, unknown> = {};
    const n = this.int(5);
    for (let i = 0; i < n; i++) {
      const key = fields.length > 0 && this.chance(0.7) ? this.pick(fields) : this.chance(0.3) ? this.pick(HOSTILE_KEYS) : this.str(8);
      o[key] = this.value(depth);
    }
    return o;
  }
}

/** JSON text with a key JSON.stringify would never write as an own property. */
function withProtoKey(json: string): string {
  const hostile = '"__proto__":{"polluted":true,"isAdmin":true},"constructor":{"prototype":{"polluted":true}}';
  return json === '{}' ? `{${hostile}}` : json.replace(/^\{/, `{${hostile},`);
}

function deepNesting(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

interface Tracker {
  /** Ids of well-formed invokes still waiting for their answer. */
  waiting: Set<number>;
  /** What each waiting request was, to say which ones went unanswered. */
  sent?: Map<number, string>;
  answered: number;
  duplicate: number;
  refused: number;
}

function rss(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

function health(origin: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get(`${origin}/healthz`, { timeout: HEALTH_TIMEOUT_MS }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
    req.on('error', () => resolve(false));
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

let child: ChildProcess;
let origin: string;
let output = '';
const folders: Array<{ cleanup(): void }> = [];

beforeAll(async () => {
  const data = tempDir('fd-fuzz-data-');
  // An empty working folder and home: a random relative path resolves to nothing real.
  const cwd = tempDir('fd-fuzz-cwd-');
  folders.push(data, cwd);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: cwd.path, FLIGHTDECK_TOKEN: TOKEN, FLIGHTDECK_LOG_LEVEL: 'error' };
  for (const k of Object.keys(env)) if (k.startsWith('ANTHROPIC_')) delete env[k];
  // Node runs the CLI itself (no wrapper process), so the pid is the host whose memory we read.
  const loader = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  child = spawn(process.execPath, ['--import', loader, join(root, 'src-main', 'cli', 'main.ts'), 'serve', '--port', '0', '--no-build', '--data-dir', data.path], {
    cwd: cwd.path,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`host did not start:\n${output}`)), 60_000);
    child.stdout!.on('data', () => {
      const m = /Flightdeck ready at (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`host exited with ${code}:\n${output}`));
    });
  });
  origin = new URL(url).origin;
}, 90_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
  }
  for (const f of folders) f.cleanup();
}, 30_000);

function openSocket(): Promise<WebSocket> {
  const port = new URL(origin).port;
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { Origin: origin, Cookie: `flightdeck_token_${port}=${TOKEN}` }, maxPayload: 64 * 1024 * 1024 });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function track(ws: WebSocket, t: Tracker): void {
  ws.on('message', (d: WebSocket.RawData) => {
    const f = JSON.parse(d.toString()) as { type: string; id?: number; result?: { ok: boolean; error?: { code: string } } };
    if (f.type === 'refused') t.refused++;
    if (f.type !== 'result' || f.id === undefined) return;
    t.sent?.delete(f.id);
    if (t.waiting.delete(f.id)) t.answered++;
    else t.duplicate++;
  });
}

/** Sends random frames until the deadline; every batch waits for its last request's answer. */
async function fuzzSocket(worker: number, deadline: number, stats: { frames: number; bytes: number }): Promise<Tracker> {
  const f = new Fuzzer(seed + worker);
  const t: Tracker = { waiting: new Set(), sent: new Map(), answered: 0, duplicate: 0, refused: 0 };
  const ws = await openSocket();
  track(ws, t);
  let id = 1;
  const send = (frame: string | Buffer, binary = false) => {
    stats.frames++;
    stats.bytes += frame.length;
    ws.send(frame, { binary });
  };
  /** A well-formed invoke: it must be answered, whatever its channel and input. */
  const invoke = (channel: string, input: unknown, hostileKeys = false) => {
    const frameId = id++;
    t.waiting.add(frameId);
    const body = JSON.stringify(input);
    const json = `{"type":"invoke","id":${frameId},"channel":${JSON.stringify(channel)},"input":${hostileKeys ? withProtoKey(body) : body}}`;
    const frame = hostileKeys ? withProtoKey(json) : json;
    t.sent!.set(frameId, frame.length > 300 ? `${frame.slice(0, 200)}… (${frame.length} chars)` : frame);
    send(frame);
    return frameId;
  };
  let round = 0;
  while (Date.now() < deadline) {
    for (let i = 0; i < BATCH; i++) {
      const channel = channels[(round * BATCH + i) % channels.length]!;
      switch (f.int(16)) {
        case 0:
          send(f.pick(['', '{', '}', 'null', '[]', '"invoke"', '{"type":"invoke"', 'NaN', '1e999999', '{"type":"invoke","id":1,}', '\u0000\u0001', 'undefined']));
          break;
        case 1:
          send(Buffer.from(Array.from({ length: f.int(256) }, () => f.int(256))), true);
          break;
        case 2:
          // Well-formed frames of the wrong shape: dropped, never answered.
          send(JSON.stringify(f.pick([{ type: 'invoke', id: -1, channel }, { type: 'invoke', id: 'x', channel }, { type: 'invoke', id: 1.5, channel }, { type: 'invoke', id: 1 }, { type: 'nope' }, { id: 1, channel }, { type: 'invoke', id: 1, channel: 'x'.repeat(201) }])));
          break;
        case 3:
          invoke(f.pick(['nope.nothing', '__proto__', 'constructor', 'toString', 'hasOwnProperty', f.str(30), `${channel}.x`, channel.toUpperCase()]), f.value());
          break;
        case 4:
          invoke(channel, f.object(fieldsOf.get(channel)!), true);
          break;
        case 5:
          invoke(channel, JSON.parse(deepNesting(20 + f.int(200))) as unknown);
          break;
        case 6: {
          // Deep nesting inside a real field, as raw text (past what JSON.stringify would recurse into happily).
          const field = fieldsOf.get(channel)![0] ?? 'x';
          const frameId = id++;
          t.waiting.add(frameId);
          t.sent!.set(frameId, `${channel} with ${field} nested deeply`);
          send(`{"type":"invoke","id":${frameId},"channel":"${channel}","input":{"${field}":${deepNesting(5_000 + f.int(20_000))}}}`);
          break;
        }
        case 7:
          if (f.chance(0.1)) {
            // A large frame inside the limit: a long string in a real field.
            const field = fieldsOf.get(channel)![0] ?? 'text';
            invoke(channel, { [field]: 'x'.repeat(f.int(MAX_CLIENT_FRAME_BYTES - 1024)) });
          } else invoke(channel, f.value());
          break;
        case 8:
          send(JSON.stringify({ type: f.pick(['subscribe', 'unsubscribe']), topic: f.chance(0.7) ? f.pick(topics) : f.pick([...HOSTILE_KEYS, f.str(12)]), ...(f.chance(0.8) ? { key: f.chance(0.1) ? 'k'.repeat(250) : `${f.str(10)}-${f.int(1e9)}` } : {}) }));
          break;
        case 9:
          // A subscription flood with distinct keys: the bound refuses past it, memory stays flat.
          for (let k = 0; k < 400; k++) send(JSON.stringify({ type: 'subscribe', topic: f.pick(topics), key: `flood-${worker}-${round}-${k}` }));
          break;
        case 10:
          send(withProtoKey(JSON.stringify({ type: 'subscribe', topic: f.pick(topics) })));
          break;
        default:
          invoke(channel, f.chance(0.5) ? f.object(fieldsOf.get(channel)!) : f.value());
      }
    }
    // Pace on the host: the batch's last request is answered once everything before it was read.
    const last = invoke('app.info', {});
    const until = Date.now() + 60_000;
    while (t.waiting.has(last) && Date.now() < until && ws.readyState === ws.OPEN) await sleep(5);
    if (ws.readyState !== ws.OPEN) throw new Error(`the host closed socket ${worker} (seed ${seed})`);
    round++;
  }
  // Every well-formed request gets its one answer (some handlers, like git, take a moment).
  const until = Date.now() + 60_000;
  while (t.waiting.size > 0 && Date.now() < until) await sleep(50);
  await new Promise<void>((resolve) => {
    ws.once('close', () => resolve());
    ws.close();
  });
  return t;
}

/** Frames past the size limit end their connection (1009), and only that connection. */
async function oversize(): Promise<number> {
  const ws = await openSocket();
  const code = new Promise<number>((resolve) => ws.once('close', (c) => resolve(c)));
  ws.send(JSON.stringify({ type: 'invoke', id: 1, channel: 'projects.add', input: { path: 'x'.repeat(MAX_CLIENT_FRAME_BYTES + 10) } }));
  return code;
}

describe('the bridge under random and malformed frames', () => {
  it(`stays up, answers every well-formed request once and gives its memory back (seed ${seed})`, async () => {
    const pid = child.pid!;
    // Warm up (code paths compiled, caches filled) so the baseline is the host at work, not cold.
    const warm = await openSocket();
    const t: Tracker = { waiting: new Set(), answered: 0, duplicate: 0, refused: 0 };
    track(warm, t);
    for (let i = 1; i <= 200; i++) {
      t.waiting.add(i);
      warm.send(JSON.stringify({ type: 'invoke', id: i, channel: channels[i % channels.length], input: {} }));
    }
    await expect.poll(() => t.waiting.size, { timeout: 60_000 }).toBe(0);
    warm.close();
    await sleep(3_000);
    const baseline = rss(pid);

    let healthy = 0;
    const unhealthy: string[] = [];
    let fuzzing = true;
    const poller = (async () => {
      while (fuzzing) {
        const started = Date.now();
        if (await health(origin)) healthy++;
        else unhealthy.push(`no /healthz answer at ${new Date().toISOString()}`);
        await sleep(Math.max(0, HEALTH_EVERY_MS - (Date.now() - started)));
      }
    })();

    const stats = { frames: 0, bytes: 0 };
    const deadline = Date.now() + FUZZ_MS;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rss(pid))), 500);
    let trackers: Tracker[];
    let oversizeCodes: number[];
    try {
      [trackers, oversizeCodes] = await Promise.all([
        Promise.all(Array.from({ length: SOCKETS }, (_, w) => fuzzSocket(w, deadline, stats))),
        (async () => {
          const codes: number[] = [];
          while (Date.now() < deadline) {
            codes.push(await oversize());
            await sleep(2_000);
          }
          return codes;
        })(),
      ]);
    } finally {
      fuzzing = false;
      clearInterval(sampler);
      await poller;
    }

    const why = `seed ${seed}, ${stats.frames} frames, ${Math.round(stats.bytes / 1024 / 1024)} MB sent`;
    expect(child.exitCode, `host exited (${why}):\n${output}`).toBeNull();
    expect(unhealthy, why).toEqual([]);
    // Asked all along (how often depends on the load on this machine, so only "more than once").
    expect(healthy, why).toBeGreaterThan(2);
    for (const tr of trackers) {
      expect([...tr.sent!.values()], `requests left unanswered (${why})`).toEqual([]);
      expect(tr.waiting.size).toBe(0);
      expect(tr.duplicate, `requests answered twice (${why})`).toBe(0);
      expect(tr.answered).toBeGreaterThan(20);
    }
    expect(trackers.reduce((n, tr) => n + tr.refused, 0), `subscription floods were refused (${why})`).toBeGreaterThan(0);
    expect(oversizeCodes.length).toBeGreaterThan(0);
    for (const c of oversizeCodes) expect(c).toBe(1009);

    // Memory comes back near the baseline once the connections are gone.
    const settleBy = Date.now() + RSS_SETTLE_MS;
    let now = rss(pid);
    while (now > baseline + RSS_TOLERANCE_BYTES && Date.now() < settleBy) {
      await sleep(1_000);
      now = rss(pid);
    }
    const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;
    console.info(`bridge fuzz: ${why}; RSS baseline ${mb(baseline)}, peak ${mb(peak)}, after ${mb(now)}; /healthz answered ${healthy} times`);
    expect(now, `RSS ${mb(now)} after the fuzz, baseline ${mb(baseline)}, peak ${mb(peak)} (${why})`).toBeLessThanOrEqual(baseline + RSS_TOLERANCE_BYTES);
    expect(await health(origin)).toBe(true);
  }, 240_000);
});

describe('prototype-pollution keys through the router', () => {
  it('reach no prototype, for every contract channel', async () => {
    const { app, cleanup } = await startTestApp();
    try {
      const f = new Fuzzer(seed);
      for (const channel of channels) {
        for (let i = 0; i < 5; i++) {
          const input = JSON.parse(withProtoKey(JSON.stringify({ ...f.object(fieldsOf.get(channel)!), x: 1 }))) as unknown;
          await app.router.dispatch(channel, input, { origin: 'test', connectionId: 'fuzz' });
        }
        await app.router.dispatch(channel, JSON.parse('{"__proto__":{"polluted":true}}') as unknown, { origin: 'test', connectionId: 'fuzz' });
      }
      const probe = {} as Record<string, unknown>;
      expect(probe.polluted, `seed ${seed}`).toBeUndefined();
      expect(probe.isAdmin, `seed ${seed}`).toBeUndefined();
      expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
    } finally {
      cleanup();
    }
  }, 60_000);
});
