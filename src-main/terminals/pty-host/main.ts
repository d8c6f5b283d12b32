/**
 * The pty host: a child process that owns every pty, so a pty that floods or a native call that
 * hangs cannot stall the main process (VS Code's pty host). It talks to its parent over Node's
 * IPC channel only, and exits — ending every session its ptys started — as soon as that
 * channel closes or its parent is gone, so a crashed main process leaves no orphans behind.
 *
 * Every pty's session is recorded under the folder given as `--records <dir>` while anything in
 * it runs, so that if this host is killed too (SIGKILL of the whole app) the next start ends
 * what is left (see platform/process-groups).
 */
import type { Socket } from 'node:net';
import type { IPty } from 'node-pty';
import { cleanExec } from '../../platform/child-process';
import { requireNative } from '../../platform/native';
import { GroupRecords, hangUpSession, killSession, sessionAlive } from '../../platform/process-groups';
import { CHANNEL_IN_FLIGHT_MAX_BYTES, CHANNEL_SMALL_FRAME_BYTES, KILL_GRACE_MS } from '../constants';
import { FairQueue } from '../fair-queue';
import { Scrollback } from '../scrollback';
import { utf16Length } from '../utf16-length';
import { DirectSockets } from './direct-sockets';
import { HostTerminal } from './host-terminal';
import { InputHold } from './input-hold';
import type { FromHost, SpawnRequest, ToHost } from './protocol';

type NodePty = typeof import('node-pty');

if (!process.send) {
  process.stderr.write('the pty host must be started by Flightdeck (it needs an IPC channel)\n');
  process.exit(2);
}

const pty = requireNative<NodePty>('node-pty');
const terminals = new Map<string, HostTerminal>();

/**
 * A flood's bytes held back from the main process. Views on direct sockets get every batch from
 * here; the main process needs the bytes only for its scrollback (and for views or listeners it
 * feeds itself, which it says with `toMain`). While nobody there needs them, a batch of a flood
 * (a full one, LEAN_BATCH_BYTES) and every batch after it until the output pauses for
 * LEAN_QUIET_MS cross with their counts only; the bytes are kept here, bounded like the
 * scrollback, and sent in one `catchUp` after the pause. The main process then no longer reads,
 * copies and collects every byte of a flood it does not show (~13 ms of CPU per MB), which the
 * view parsing it and the keystrokes of other terminals competed with for a CPU.
 */
interface HeldBack {
  bytes: Scrollback;
  quiet: NodeJS.Timeout | null;
  /** When the hold began (performance.now()). */
  since: number;
}
const held = new Map<string, HeldBack>();
/** Terminals whose every batch's bytes the main process wants now (`toMain`). */
const toMain = new Set<string>();
const NO_BYTES = new Uint8Array(0);
/** A batch this large is a flood's (the batcher sends full batches only when output outruns it). */
const LEAN_BATCH_BYTES = 64 * 1024;
/**
 * A flood is over once its terminal was silent this long (not counting time its pty was paused
 * by flow control: a slow view is no end of the flood): what was held back goes to the main
 * process.
 */
const LEAN_QUIET_MS = 200;
/** Or once a hold that lasted this long meets a batch that is not full: the flood slowed to a trickle (a progress bar, a log tail). */
const LEAN_TRICKLE_AFTER_MS = 1_000;

function armQuiet(id: string, h: HeldBack): void {
  if (h.quiet) clearTimeout(h.quiet);
  h.quiet = setTimeout(() => catchUp(id), LEAN_QUIET_MS);
}

/** Sends terminal `id`'s held-back output to the main process (in its lane, before whatever comes next). */
function catchUp(id: string): void {
  const h = held.get(id);
  if (!h) return;
  held.delete(id);
  if (h.quiet) clearTimeout(h.quiet);
  const { start, chars, bytes } = h.bytes.contents();
  if (chars === 0) return;
  sendFor(id, { t: 'catchUp', id, start, chars, data: bytes });
}
let shuttingDown = false;

/**
 * How often the host checks that its parent is still there. Node's IPC 'disconnect' covers a
 * parent that exits or is killed; the poll also covers a channel that stays open because its
 * other end leaked into some process, and a parent that was replaced (re-parented to init).
 */
const PARENT_POLL_MS = 1_000;
/** How often sessions whose leader exited (a detached `nohup … &` may remain) are rechecked. */
const LINGER_POLL_MS = 5_000;

const recordsDir = argValue('--records');
const records = recordsDir ? new GroupRecords(recordsDir) : null;
/** Every session started here that may still have processes: leader pid → its start time. */
const sessions = new Map<number, string | null>();
const parentPid = process.ppid;

function argValue(flag: string): string | null {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? (process.argv[i + 1] ?? null) : null;
}

function track(pid: number, kind: string): void {
  let start: string | null = null;
  try {
    start = records ? records.add(pid, kind).start : null;
  } catch (e) {
    // Without the record only a crash of both processes at once could leave this session behind.
    process.stderr.write(`could not record terminal process ${pid}: ${e instanceof Error ? e.message : String(e)}\n`);
  }
  sessions.set(pid, start);
}

/** Forgets sessions with nothing left running (called when a leader exits and periodically). */
function sweep(pid?: number): void {
  for (const [leader, start] of sessions) {
    if (pid !== undefined && leader !== pid) continue;
    if (isLeaderRunning(leader) || sessionAlive(leader, start)) continue;
    sessions.delete(leader);
    records?.remove(leader);
  }
}

function isLeaderRunning(pid: number): boolean {
  for (const t of terminals.values()) if (t.pid === pid && !t.isExited) return true;
  return false;
}

function endSession(pid: number): void {
  killSession(pid, sessions.get(pid) ?? null);
}

/** Sessions being hung up (closed terminals in their grace period): shutting down waits for these. */
const hangingUp = new Map<number, Promise<void>>();

/** SIGHUP to the pty's session, SIGKILL for what is left after the grace period (hangUpSession). */
function hangUp(pid: number): Promise<void> {
  let p = hangingUp.get(pid);
  if (!p) {
    p = hangUpSession(pid, sessions.get(pid) ?? null, KILL_GRACE_MS).finally(() => hangingUp.delete(pid));
    hangingUp.set(pid, p);
  }
  return p;
}

function send(msg: FromHost, done?: () => void): void {
  if (!process.connected) return;
  process.send!(msg, undefined, undefined, (err) => {
    // A failed send means the parent is gone; the disconnect handler shuts down.
    if (!err) done?.();
  });
}

/**
 * Everything about one terminal leaves through its own lane of one fair queue: output, flow and
 * exit stay in order per terminal, and a quiet terminal's echo never waits behind another
 * terminal's flood queued for the channel (fair-queue.ts).
 */
const out = new FairQueue<{ msg: FromHost; done?: () => void }>(
  ({ msg, done }, written) =>
    send(msg, () => {
      written();
      done?.();
    }),
  { maxInFlight: CHANNEL_IN_FLIGHT_MAX_BYTES, smallBelow: CHANNEL_SMALL_FRAME_BYTES },
);

function sendFor(id: string, msg: FromHost, done?: () => void): void {
  out.push(id, { msg, done }, msg.t === 'data' || msg.t === 'catchUp' ? msg.data.length : 0);
}

/** Browser mode: views' direct output sockets (direct-sockets.ts). */
const directs = new DirectSockets(
  (msg) => send(msg),
  // As the bridge's `terminals.write`: any terminal of this host that still runs (the socket's
  // client holds the same token as its main connection, which may type into any terminal).
  (id, data) => {
    const t = terminals.get(id);
    if (t && !t.isExited) typeInto(t, data);
  },
);

/** Floods wait for a keystroke's echo (input-hold.ts). */
const inputHold = new InputHold<HostTerminal>();

function typeInto(t: HostTerminal, data: string): void {
  t.write(data);
  inputHold.typed(t, data, terminals.values());
}

function spawn(req: SpawnRequest): void {
  // A shell started now would be killed in the middle of its startup files.
  if (shuttingDown) return send({ t: 'spawnFailed', id: req.id, message: 'the terminal host is shutting down' });
  let p: IPty;
  try {
    // Through the descriptor-closing prelude: forkpty leaves every earlier pty master
    // inheritable, and this pty must not be able to write into another one.
    const exec = cleanExec(req.file, req.args);
    p = pty.spawn(exec.file, exec.args, { name: req.env.TERM ?? 'xterm-256color', cols: req.cols, rows: req.rows, cwd: req.cwd, env: req.env, encoding: null });
  } catch (e) {
    send({ t: 'spawnFailed', id: req.id, message: e instanceof Error ? e.message : String(e) });
    return;
  }
  /** UTF-16 code units sent so far: the views' offsets, counted once here for the main process and the direct sockets. */
  let charsSent = 0;
  if (req.toMain) toMain.add(req.id);
  const term = new HostTerminal(p, {
    data: (offset, data, done) => {
      // Released (closed) and hung up, ending within its grace period: nobody reads it any more.
      if (terminals.get(req.id) !== term) return done();
      const chars = utf16Length(data);
      directs.write(req.id, charsSent, chars, data);
      let h = held.get(req.id);
      if (h && data.length < LEAN_BATCH_BYTES && performance.now() - h.since >= LEAN_TRICKLE_AFTER_MS) {
        catchUp(req.id);
        h = undefined;
      }
      if (!h && !toMain.has(req.id) && data.length >= LEAN_BATCH_BYTES) {
        h = { bytes: new Scrollback(req.scrollbackChars, charsSent), quiet: null, since: performance.now() };
        held.set(req.id, h);
      }
      charsSent += chars;
      if (!h) return sendFor(req.id, { t: 'data', id: req.id, offset, chars, length: data.length, data }, done);
      h.bytes.append(data, chars);
      armQuiet(req.id, h);
      sendFor(req.id, { t: 'data', id: req.id, offset, chars, length: data.length, data: NO_BYTES }, done);
    },
    flow: (paused, window) => {
      // Paused by flow control, the pty is not silent: the quiet wait starts again on resume.
      const h = held.get(req.id);
      if (h && paused && h.quiet) {
        clearTimeout(h.quiet);
        h.quiet = null;
      } else if (h && !paused) armQuiet(req.id, h);
      sendFor(req.id, { t: 'flow', id: req.id, paused, window });
    },
    exit: (exitCode, signal, stats) => {
      // The main process keeps the scrollback of an exited terminal: all of it before the exit.
      catchUp(req.id);
      sendFor(req.id, { t: 'exit', id: req.id, exitCode, signal, stats });
      sweep(p.pid);
      inputHold.forget(term);
    },
    answered: () => inputHold.answered(term),
  });
  track(p.pid, req.kind ?? 'pty');
  terminals.set(req.id, term);
  send({ t: 'spawned', id: req.id, pid: p.pid });
}

function onMessage(msg: ToHost): void {
  switch (msg.t) {
    case 'spawn':
      return spawn(msg.req);
    case 'write': {
      const t = terminals.get(msg.id);
      return t && typeInto(t, msg.data);
    }
    case 'resize':
      return terminals.get(msg.id)?.resize(msg.cols, msg.rows);
    case 'signal':
      return terminals.get(msg.id)?.signal(msg.signal);
    case 'consumed':
      return terminals.get(msg.id)?.setConsumed(msg.offset);
    case 'stats':
      return sendFor(msg.id, { t: 'stats', id: msg.id, stats: terminals.get(msg.id)?.getStats() ?? null });
    case 'toMain':
      if (!msg.on) return void toMain.delete(msg.id);
      toMain.add(msg.id);
      return catchUp(msg.id);
    case 'release': {
      const t = terminals.get(msg.id);
      terminals.delete(msg.id);
      toMain.delete(msg.id);
      const h = held.get(msg.id);
      if (h?.quiet) clearTimeout(h.quiet);
      held.delete(msg.id);
      directs.forget(msg.id, t?.isExited === true);
      if (t) inputHold.forget(t);
      // As closing a terminal window: SIGHUP first, so the shell and what its startup files run
      // can clean up (pyenv's rehash removes its lock in an EXIT trap; a SIGKILL mid-rehash leaves
      // it, and every later shell waits 60 s for it), then SIGKILL for whatever is left.
      if (t && !t.isExited) {
        // Nobody reads it any more: its output must not pause it while it ends.
        t.setConsumed(null);
        void hangUp(t.pid);
      }
      return;
    }
    case 'shutdown':
      return void shutdown(0);
    case 'route': {
      const t = terminals.get(msg.id);
      const on = directs.route(msg.id, msg.conn, msg.on, t !== undefined && !t.isExited);
      // A view attaching gets the main process's scrollback: complete up to the first routed batch.
      if (msg.on) catchUp(msg.id);
      // In the terminal's lane: the main process learns exactly which batch was the first routed.
      return sendFor(msg.id, { t: 'routed', id: msg.id, conn: msg.conn, asked: msg.on, on, socket: msg.socket });
    }
    case 'dropDirect':
      return directs.drop(msg.conn);
    case 'direct':
      // Only with its socket handle (see the 'message' listener below).
      return;
  }
}

/**
 * Ends every session started here (what is left of finished commands too) and exits. Used on
 * request and when the parent goes away.
 */
async function shutdown(code: number): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  directs.closeAll();
  const all = [...terminals.values()];
  // SIGHUP first, orphaned or not (shells save their history, startup files release their
  // locks), SIGKILL after the grace period for what ignores it; closed terminals still in their
  // grace are among the sessions. If this host dies meanwhile, the records let the next start
  // end what is left.
  await Promise.all([...sessions.keys()].map(hangUp));
  for (const t of all) t.killNow();
  for (const leader of sessions.keys()) {
    endSession(leader);
    records?.remove(leader);
  }
  process.exit(code);
}

process.on('message', (m, handle) => {
  const msg = m as ToHost;
  if (msg.t === 'direct') directs.adopt(msg, handle as Socket | undefined);
  else onMessage(msg);
});
// The parent died or closed the channel: nobody can read these terminals any more.
process.on('disconnect', () => void shutdown(1));
process.stdin.on('end', () => void shutdown(1));
process.stdin.on('error', () => void shutdown(1));
process.stdin.resume();
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => void shutdown(1));
let lingerTicks = 0;
setInterval(() => {
  // Re-parented: the process that started us is gone, even if the channel did not say so.
  if (process.ppid !== parentPid) return void shutdown(1);
  if (++lingerTicks * PARENT_POLL_MS >= LINGER_POLL_MS) {
    lingerTicks = 0;
    sweep();
  }
}, PARENT_POLL_MS);
process.on('uncaughtException', (e) => {
  process.stderr.write(`pty host crashed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  void shutdown(1);
});

send({ t: 'ready', pid: process.pid });
