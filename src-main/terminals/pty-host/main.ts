/**
 * The pty host: a child process that owns every pty, so a pty that floods or a native call that
 * hangs cannot stall the main process (VS Code's pty host). It talks to its parent over Node's
 * IPC channel only, and exits — killing its ptys' process groups — as soon as that channel
 * closes, so a crashed main process leaves no orphans behind.
 */
import type { IPty } from 'node-pty';
import { requireNative } from '../../platform/native';
import { HostTerminal, killGroup } from './host-terminal';
import type { FromHost, SpawnRequest, ToHost } from './protocol';

type NodePty = typeof import('node-pty');

if (!process.send) {
  process.stderr.write('the pty host must be started by Flightdeck (it needs an IPC channel)\n');
  process.exit(2);
}

const pty = requireNative<NodePty>('node-pty');
const terminals = new Map<string, HostTerminal>();
let shuttingDown = false;

function send(msg: FromHost, done?: () => void): void {
  if (!process.connected) return;
  process.send!(msg, undefined, undefined, (err) => {
    // A failed send means the parent is gone; the disconnect handler shuts down.
    if (!err) done?.();
  });
}

function spawn(req: SpawnRequest): void {
  let p: IPty;
  try {
    p = pty.spawn(req.file, req.args, { name: req.env.TERM ?? 'xterm-256color', cols: req.cols, rows: req.rows, cwd: req.cwd, env: req.env, encoding: null });
  } catch (e) {
    send({ t: 'spawnFailed', id: req.id, message: e instanceof Error ? e.message : String(e) });
    return;
  }
  const term = new HostTerminal(p, {
    data: (offset, data, done) => send({ t: 'data', id: req.id, offset, data }, done),
    flow: (paused) => send({ t: 'flow', id: req.id, paused }),
    exit: (exitCode, signal) => send({ t: 'exit', id: req.id, exitCode, signal }),
  });
  terminals.set(req.id, term);
  send({ t: 'spawned', id: req.id, pid: p.pid });
}

function onMessage(msg: ToHost): void {
  switch (msg.t) {
    case 'spawn':
      return spawn(msg.req);
    case 'write':
      return terminals.get(msg.id)?.write(msg.data);
    case 'resize':
      return terminals.get(msg.id)?.resize(msg.cols, msg.rows);
    case 'signal':
      return terminals.get(msg.id)?.signal(msg.signal);
    case 'consumed':
      return terminals.get(msg.id)?.setConsumed(msg.offset);
    case 'release': {
      const t = terminals.get(msg.id);
      terminals.delete(msg.id);
      if (t && !t.isExited) t.killNow();
      return;
    }
    case 'shutdown':
      return void shutdown(0);
  }
}

/** Kills every pty's process group and exits. Used on request and when the parent goes away. */
async function shutdown(code: number): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  const all = [...terminals.values()];
  // A graceful SIGHUP first on a requested shutdown (shells save history); straight SIGKILL when orphaned.
  if (code === 0 && process.connected) await Promise.all(all.map((t) => t.terminate()));
  for (const t of all) killGroup(t.pid);
  process.exit(code);
}

process.on('message', (m) => onMessage(m as ToHost));
// The parent died or closed the channel: nobody can read these terminals any more.
process.on('disconnect', () => void shutdown(1));
process.stdin.on('end', () => void shutdown(1));
process.stdin.on('error', () => void shutdown(1));
process.stdin.resume();
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => void shutdown(1));
process.on('uncaughtException', (e) => {
  process.stderr.write(`pty host crashed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  void shutdown(1);
});

send({ t: 'ready', pid: process.pid });
