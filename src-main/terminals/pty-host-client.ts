import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Logger } from '../platform/logger';
import { childEnv, cleanExec } from '../platform/child-process';
import { appRoot } from '../platform/paths';
import { killSession, orphanedSessions, reapOrphanedGroups, sessionGone, type GroupRecord } from '../platform/process-groups';
import { processStartTicks } from '../platform/process-identity';
import { KILL_GRACE_MS } from './constants';
import type { FromHost, ToHost } from './pty-host/protocol';

/** How long the pty host gets to load node-pty and say it is ready (tsx compiles it on first start). */
const HOST_START_TIMEOUT_MS = 20_000;
/** After asking the host to shut down: its own grace for the ptys plus a margin, then SIGKILL. */
const HOST_STOP_TIMEOUT_MS = 4_000;

export interface PtyHostListener {
  message(msg: FromHost): void;
  /** The host process is gone (crash, kill, or after shutdown). */
  exited(code: number | null, signal: NodeJS.Signals | null): void;
}

/** Where spawn puts the 'ipc' entry of stdio (its index in the stdio array). */
const IPC_FD = 3;

/** Where the host's entry is: the TypeScript source under tsx (tests, browser mode) or the bundled file next to Electron's main. */
function hostEntry(): { script: string; execArgv: string[]; env: Record<string, string> } {
  const here = dirname(fileURLToPath(import.meta.url));
  const source = join(here, 'pty-host', 'main.ts');
  if (existsSync(source)) {
    const tsx = pathToFileURL(join(appRoot(), 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
    return { script: source, execArgv: ['--import', tsx], env: {} };
  }
  // Bundled by electron-vite as out/main/pty-host.js; Electron runs it as plain Node.
  return { script: join(here, 'pty-host.js'), execArgv: [], env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {} };
}

/**
 * The main process's handle on one pty host child. It only moves messages; the terminal service
 * decides what they mean. Known pty pids are remembered so that if the host dies without
 * cleaning up (SIGKILL, OOM), their process groups are killed from here.
 */
export class PtyHost {
  private child: ChildProcess | null = null;
  /** Each pty's pid and its start time (process-identity), so a reused pid is never taken for it. */
  private readonly ptyPids = new Map<number, string | null>();
  /** Ending what a dead host left (its grace period, then SIGKILL): stop() resolves after it. */
  private cleanup: Promise<void> = Promise.resolve();
  private exitedPromise: Promise<void> | null = null;
  private ready: Promise<void> | null = null;

  constructor(
    private readonly listener: PtyHostListener,
    private readonly log: Logger,
    /** Where the host records its ptys' sessions (see platform/process-groups); none: not recorded. */
    private readonly recordsDir: string | null = null,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== null;
  }

  start(): Promise<void> {
    if (this.ready) return this.ready;
    const entry = hostEntry();
    // Descriptor 3 is the IPC channel (Node tells the child with NODE_CHANNEL_FD); every other
    // inherited one is closed before the host starts. The host needs no secrets: each pty's
    // environment arrives with its spawn request.
    const exec = cleanExec(process.execPath, [...entry.execArgv, entry.script, ...(this.recordsDir ? ['--records', this.recordsDir] : [])], [IPC_FD]);
    const child = spawn(exec.file, exec.args, {
      env: childEnv('minimal', process.env, entry.env),
      // stdin is a pipe only so the host sees it close when we die; stdout is unused.
      stdio: ['pipe', 'ignore', 'inherit', 'ipc'],
      // V8 serialization: terminal output crosses as bytes, without JSON encoding or escaping.
      serialization: 'advanced',
    });
    this.child = child;
    this.exitedPromise = new Promise((resolve) => child.once('exit', () => resolve()));
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the terminal host did not start in time')), HOST_START_TIMEOUT_MS);
      child.on('message', (raw) => {
        const msg = raw as FromHost;
        if (msg.t === 'ready') {
          clearTimeout(timer);
          this.readyNow = true;
          resolve();
          this.listener.message(msg);
          return;
        }
        if (msg.t === 'spawned') this.ptyPids.set(msg.pid, processStartTicks(msg.pid));
        this.listener.message(msg);
      });
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the terminal host exited during start (${signal ?? code})`));
        this.onExit(child, code, signal);
      });
    });
    // Closing the app must not wait for the host: it exits by itself when our IPC channel closes.
    // Only the channel keeps us alive, and only while ptys run or the host is starting.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    this.starting = true;
    this.applyRef();
    const settled = () => {
      this.starting = false;
      this.applyRef();
    };
    void this.ready.then(settled, settled);
    return this.ready;
  }

  /** `sent` runs once the message is written to the host's channel (or could not be: no host, an error). */
  send(msg: ToHost, sent?: () => void): void {
    const child = this.child;
    if (!child || !child.connected) return sent?.();
    child.send(msg, (err) => {
      if (err) this.log.warn('message to the terminal host failed', { type: msg.t, error: err });
      sent?.();
    });
  }

  /**
   * Passes a socket to the host with a message (browser mode's direct output sockets). Node
   * closes our copy of the handle once it is sent. False when it cannot be passed: no host, or
   * a platform whose IPC channel does not carry socket handles; `failed` runs if sending fails.
   */
  sendSocket(msg: ToHost, socket: Socket, failed: () => void): boolean {
    const child = this.child;
    if (!child || !child.connected || !this.isReady || process.platform === 'win32') return false;
    child.send(msg, socket, (err) => {
      if (!err) return;
      this.log.warn('could not pass a socket to the terminal host', { error: err });
      socket.destroy();
      failed();
    });
    return true;
  }

  /** The host has said it is ready (and has not exited since). */
  get isReady(): boolean {
    return this.readyNow;
  }

  private readyNow = false;

  /**
   * Keeps the event loop alive while ptys run (a CLI command awaiting one must not exit early),
   * and lets the process exit when none do.
   */
  private busy = false;
  private starting = false;

  setBusy(busy: boolean): void {
    this.busy = busy;
    this.applyRef();
  }

  private applyRef(): void {
    const channel = this.child?.channel as unknown as { ref?: () => void; unref?: () => void } | undefined;
    if (this.busy || this.starting) channel?.ref?.();
    else channel?.unref?.();
  }

  /** A pty exited normally: its pid may be reused, so stop treating it as ours. */
  forgetPid(pid: number): void {
    this.ptyPids.delete(pid);
  }

  /**
   * Asks the host to end its ptys (SIGHUP, then SIGKILL) and exit; kills it if it does not.
   * `wait`: keep this process alive until then (an awaited shutdown). Without it, a quitting
   * process may go first — the host then sees its channel close and ends everything itself.
   */
  stop(wait = false): Promise<void> {
    const child = this.child;
    if (!child) return Promise.resolve();
    this.send({ t: 'shutdown' });
    if (wait) child.ref();
    // A host that does not exit is killed; its ptys, hung up as it dies, are then ended by onExit.
    const timer = setTimeout(() => child.kill('SIGKILL'), HOST_STOP_TIMEOUT_MS);
    if (!wait) timer.unref();
    return this.exitedPromise!.finally(() => clearTimeout(timer)).then(() => this.cleanup);
  }

  /** Test and crash-recovery hook: the host's process id and its ptys'. */
  get knownPtyPids(): number[] {
    return [...this.ptyPids.keys()];
  }

  private recordedSessions(): GroupRecord[] {
    try {
      return this.recordsDir ? orphanedSessions(this.recordsDir) : [];
    } catch {
      return []; // Unreadable: the reap below says so.
    }
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = null;
    this.ready = null;
    this.readyNow = false;
    // The host normally ends its ptys' sessions; after a SIGKILL or a crash it could not, so we
    // do: its records name every session it started, including what finished commands left.
    // Its ptys were hung up as it died (the kernel hangs a terminal up when its master closes):
    // what handles the hang-up gets the grace period to end (an EXIT trap removing a lock file),
    // then SIGKILL. After a clean exit nothing is left and nothing waits.
    const ptys = [...this.ptyPids];
    this.ptyPids.clear();
    const deadline = Date.now() + KILL_GRACE_MS;
    const endings = ptys.map(([pid, start]) => sessionGone(pid, start, deadline).then(() => killSession(pid, start)));
    // Terminals closed just before (no longer among the pids) are in their grace period too.
    for (const r of this.recordedSessions()) endings.push(sessionGone(r.pid, r.start, deadline));
    this.cleanup = Promise.all(endings).then(() => {
      if (!this.recordsDir) return;
      try {
        const ended = reapOrphanedGroups(this.recordsDir);
        if (ended.length > 0) this.log.warn('ended processes the terminal host left behind', { pids: ended.map((r) => r.pid) });
      } catch (e) {
        this.log.warn('could not read the terminal host records', { error: e });
      }
    });
    if (code !== 0) this.log.warn('terminal host exited', { code, signal });
    this.listener.exited(code, signal);
  }
}
