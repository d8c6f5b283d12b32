import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { realpath, stat } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import { isAbsolute, basename } from 'node:path';
import { AppError, type OpenTarget, type TerminalInfo, type TerminalOwner } from '../../src-preload/contract';
import type { EventHub } from '../bridge/event-hub';
import type { Logger } from '../platform/logger';
import { reapOrphanedGroups } from '../platform/process-groups';
import type { ProjectService } from '../projects/project-service';
import type { EventLog } from '../store/event-log';
import { runCommand, type RunCommandOptions, type RunCommandResult } from './command-runner';
import { BATCH_MAX_BYTES, DEFAULT_SCROLLBACK_CHARS, FLOW_REPORT_BYTES, FLOW_STALLED_VIEW_MS, FLOW_WINDOW_MAX_BYTES, MAX_EXITED_COMMAND_TERMINALS, RESIZE_THROTTLE_MS } from './constants';
import { defaultShell, terminalEnv } from './environment';
import { PtyHost } from './pty-host-client';
import type { FromHost, HostTerminalStats } from './pty-host/protocol';
import { Scrollback, standaloneBytes } from './scrollback';
import { terminalDataFromBytes } from '../../src-preload/contract/terminal-frames';
import { ViewFlow } from './view-flow';

export interface TerminalServiceOptions {
  hub: EventHub;
  projects: Pick<ProjectService, 'get'>;
  /** The app's event log: agent commands given a runId append their output there. */
  events?: Pick<EventLog, 'append'>;
  log: Logger;
  /** Characters of scrollback kept per terminal (default about 1–2 MB). */
  scrollbackChars?: number;
  /** How long a far-behind view may go without acknowledging before it stops governing the pty. */
  stalledViewMs?: number;
  /**
   * Where the ptys' sessions are recorded while they run (under the data folder), so a start
   * after a crash ends what the crashed instance left running. None: not recorded.
   */
  processRecordsDir?: string;
  /**
   * Variables every terminal started in `cwd` gets beneath its own (a worktree's PORT, see
   * worktrees/worktree-prepare.ts). Called once per spawn, so it must be cheap and synchronous.
   */
  envFor?: (cwd: string) => Record<string, string>;
}

export interface SpawnOptions {
  file: string;
  args: string[];
  cwd: string;
  kind: 'shell' | 'command';
  title: string;
  command?: string | null;
  env?: Record<string, string>;
  /** Start from this environment instead of the app's own (agents pass theirs, credentials removed). */
  baseEnv?: Record<string, string>;
  owner?: TerminalOwner;
  cols?: number;
  rows?: number;
  /** Receives every chunk of output from the first byte (registered before the pty starts). */
  onOutput?: (data: string) => void;
}

/** Flow-control figures of one terminal, for tests, the benchmark and diagnostics. */
export interface TerminalFlowStats {
  scrollbackChars: number;
  /** Output counted from the pty host so far (UTF-16 code units); a flood's bytes may still be held there (see `toMain`). */
  charsReceived: number;
  /** Where the scrollback ends: `charsReceived` less what the pty host holds back. */
  scrollbackEnd: number;
  /** Characters sent to views and not yet acknowledged by the slowest live one. */
  unackedChars: number;
  peakUnackedChars: number;
  pauses: number;
  resumes: number;
  paused: boolean;
  views: number;
  /** The pty host's current flow window (bytes the pty may run ahead of the slowest view). */
  window: number;
  /** Output received from the pty host: bytes, when the first and last arrived (epoch ms), and the time spent handling it here. */
  bytesReceived: number;
  firstDataAt: number | null;
  lastDataAt: number | null;
  handleMs: number;
}

interface Terminal {
  info: TerminalInfo;
  /** The scrollback: up to `charsEnd`, or short of it by a flood's output the pty host holds back until it is over. */
  ring: Scrollback;
  /** UTF-16 code units of output so far: where the next batch starts. */
  charsEnd: number;
  /** Whether the host was told to send every batch's bytes here (see `wantsBytes`). */
  toMain: boolean;
  /** Attaches waiting for the output the host holds back (the scrollback is short of `charsEnd`), by connection. */
  caughtUp: Array<{ conn: string; go(): void; cancel(e: Error): void }>;
  views: ViewFlow;
  /** The consumed offset (bytes) last told to the pty host (undefined: never told). */
  toldConsumed: number | null | undefined;
  /** Bytes received from the pty host: the byte offset of the next batch. */
  bytesEnd: number;
  /**
   * Where each batch not yet consumed by every view ends, in characters and in bytes: views
   * acknowledge characters, the host counts bytes. `base` is a point known to be consumed.
   */
  marks: Array<{ chars: number; bytes: number }>;
  base: { chars: number; bytes: number };
  window: number;
  /** The pty host's figures, kept from its exit message (the host forgets an exited pty). */
  finalHostStats: HostTerminalStats | null;
  firstDataAt: number | null;
  lastDataAt: number | null;
  handleMs: number;
  paused: boolean;
  pauses: number;
  resumes: number;
  peakUnacked: number;
  stallTimer: NodeJS.Timeout | null;
  resize: { timer: NodeJS.Timeout | null; lastAt: number; pending: { cols: number; rows: number } | null };
  outputListeners: Set<(data: string) => void>;
  exitWaiters: Array<(info: TerminalInfo) => void>;
  spawn: { resolve(): void; reject(e: Error): void } | null;
}

/** Browser mode: one main connection's direct output socket at the pty host (see pty-host/direct-sockets.ts). */
interface DirectChannel {
  /** Which of its connection's direct sockets this is: route answers name it (see onRouted). */
  socket: number;
  open: boolean;
  /** Terminals whose output the host writes to that socket: the main socket skips them. */
  routes: Set<string>;
}

/** An attach waiting for the host to confirm where the terminal's direct output starts. */
interface RouteWaiter {
  conn: string;
  settle(on: boolean): void;
  cancel(e: Error): void;
}

export type AttachResult = { terminal: TerminalInfo; attachmentId: string; data: string; start: number; end: number };

const SIGNAL_NAMES = new Map<number, string>(Object.entries(osConstants.signals).map(([name, n]) => [n, name]));

/** Removes from `waiters` (in place) those of connection `conn` and rejects them; whether there were any. */
function cancelFor(waiters: Array<{ conn: string; cancel(e: Error): void }>, conn: string): boolean {
  const gone = waiters.filter((w) => w.conn === conn);
  if (gone.length === 0) return false;
  waiters.splice(0, waiters.length, ...waiters.filter((w) => w.conn !== conn));
  for (const w of gone) w.cancel(new AppError('unavailable', 'The connection closed.'));
  return true;
}

function newId(prefix: string): string {
  return `${prefix}-${randomBytes(8).toString('hex')}`;
}

/**
 * Live terminals. Ptys run in a separate pty host process; this service keeps each terminal's
 * metadata, its bounded scrollback and the views watching it, publishes output on the bridge
 * and turns views' acknowledgements into pause/resume decisions the host enforces.
 *
 * Memory held here per terminal is bounded whatever the producer does: the scrollback ring
 * (`scrollbackChars`) plus what is in flight to views, which flow control keeps under the high
 * watermark plus one batch (see constants.ts and `memory()`).
 */
export class TerminalService {
  private readonly terminals = new Map<string, Terminal>();
  private readonly host: PtyHost;
  private readonly scrollbackChars: number;
  private readonly stalledViewMs: number;
  private offConnectionClosed: (() => void) | null = null;
  private readonly statsWaiters = new Map<string, Array<(s: HostTerminalStats | null) => void>>();
  private disposed = false;
  private stopping: Promise<void> | null = null;
  /** Direct output sockets by main connection id (browser mode). */
  private readonly directs = new Map<string, DirectChannel>();
  private directSeq = 0;
  private readonly routeWaiters = new Map<string, RouteWaiter[]>();
  private readonly directListeners = new Set<(conn: string | null, lost: boolean) => void>();
  private readonly routedListeners = new Set<(conn: string, id: string) => void>();

  constructor(private readonly opts: TerminalServiceOptions) {
    this.scrollbackChars = opts.scrollbackChars ?? DEFAULT_SCROLLBACK_CHARS;
    this.stalledViewMs = opts.stalledViewMs ?? FLOW_STALLED_VIEW_MS;
    this.host = new PtyHost({ message: (m) => this.onHostMessage(m), exited: () => this.onHostExited() }, opts.log.child('pty-host'), opts.processRecordsDir ?? null);
  }

  start(): void {
    if (this.opts.processRecordsDir) {
      try {
        const ended = reapOrphanedGroups(this.opts.processRecordsDir);
        if (ended.length > 0) this.opts.log.warn('ended terminal processes left running by an earlier instance that crashed', { pids: ended.map((r) => r.pid) });
      } catch (e) {
        // Unreadable records: nothing can be ended from them, and terminals still work.
        this.opts.log.warn('could not read the records of earlier terminal processes', { error: e });
      }
    }
    this.offConnectionClosed = this.opts.hub.onConnectionClosed((connectionId) => this.connectionClosed(connectionId));
  }

  /** Ends every pty (the host sends SIGHUP, then SIGKILL) without waiting. Safe to call twice. */
  dispose(): void {
    this.stopHost(false);
  }

  /** Like dispose, and resolves once the pty host and its ptys are gone. */
  async shutdown(): Promise<void> {
    await this.stopHost(true);
  }

  private stopHost(wait: boolean): Promise<void> {
    if (!this.disposed) {
      this.disposed = true;
      this.offConnectionClosed?.();
      for (const t of this.terminals.values()) this.clearTimers(t);
      this.stopping = this.host.stop(wait);
    } else if (wait) {
      // Disposed earlier without waiting: wait now (the host may still be ending its ptys).
      this.stopping = this.host.stop(true);
    }
    return this.stopping ?? Promise.resolve();
  }

  // ---- opening terminals --------------------------------------------------------------------

  /** Opens the user's shell in a project's repository or in an existing folder (the renderer's request). */
  async open(target: OpenTarget, size: { cols: number; rows: number }): Promise<TerminalInfo> {
    const { cwd, owner } = await this.resolveTarget(target);
    const shell = defaultShell();
    return this.spawn({ file: shell, args: [], cwd, kind: 'shell', title: basename(shell), owner, ...size });
  }

  /** Spawns a program in a new pty. The terminal is listed, watchable and kept after exit until closed. */
  async spawn(o: SpawnOptions): Promise<TerminalInfo> {
    if (this.disposed) throw new AppError('unavailable', 'Flightdeck is shutting down; no new terminal can start.');
    await this.assertDirectory(o.cwd);
    const id = newId('term');
    const cols = o.cols ?? 80;
    const rows = o.rows ?? 24;
    const t: Terminal = {
      info: {
        id,
        title: o.title,
        kind: o.kind,
        command: o.command ?? null,
        cwd: o.cwd,
        owner: o.owner ?? {},
        pid: null,
        status: 'running',
        exitCode: null,
        signal: null,
        problem: null,
        startedAt: Date.now(),
        exitedAt: null,
        outputEnd: null,
        cols,
        rows,
      },
      ring: new Scrollback(this.scrollbackChars),
      charsEnd: 0,
      toMain: false,
      caughtUp: [],
      views: new ViewFlow(Date.now, this.stalledViewMs),
      toldConsumed: undefined,
      bytesEnd: 0,
      marks: [],
      base: { chars: 0, bytes: 0 },
      window: 0,
      finalHostStats: null,
      firstDataAt: null,
      lastDataAt: null,
      handleMs: 0,
      paused: false,
      pauses: 0,
      resumes: 0,
      peakUnacked: 0,
      stallTimer: null,
      resize: { timer: null, lastAt: 0, pending: null },
      outputListeners: new Set(o.onOutput ? [o.onOutput] : []),
      exitWaiters: [],
      spawn: null,
    };
    try {
      await this.host.start();
    } catch (e) {
      this.opts.log.error('terminal host failed to start', { error: e });
      throw new AppError('unavailable', `The terminal host could not start: ${e instanceof Error ? e.message : String(e)}`);
    }
    const spawned = new Promise<void>((resolve, reject) => (t.spawn = { resolve, reject }));
    this.terminals.set(id, t);
    this.host.setBusy(true);
    // A listener from the start (an agent's command) gets every batch as it comes.
    t.toMain = this.wantsBytes(t);
    this.host.send({
      t: 'spawn',
      req: { id, file: o.file, args: o.args, cwd: o.cwd, env: terminalEnv(id, { ...this.opts.envFor?.(o.cwd), ...o.env }, o.baseEnv, o.kind), cols, rows, kind: o.kind, scrollbackChars: this.scrollbackChars, toMain: t.toMain },
    });
    try {
      await spawned;
    } catch (e) {
      this.terminals.delete(id);
      this.updateBusy();
      throw new AppError('unavailable', `Could not start ${o.file}: ${e instanceof Error ? e.message : String(e)}`, { cwd: o.cwd });
    }
    this.updateBusy();
    this.opts.log.info('terminal started', { id, kind: o.kind, cwd: o.cwd, pid: t.info.pid });
    this.publishStatus(t);
    return { ...t.info };
  }

  /**
   * Runs one command line in a pty for an agent and resolves when it ends. The terminal stays
   * listed (the user can open it live, and read it after it ended until it is closed).
   *
   * ```ts
   * const r = await app.terminals.runCommand({
   *   cwd: worktreePath,              // an existing directory
   *   command: 'npm test',            // run by bash -c (sh when bash is missing)
   *   env: { CI: '1' },               // added to the terminal environment
   *   owner: { projectId, sessionId },
   *   timeoutMs: 120_000,             // SIGTERM to the process group, SIGKILL 2 s later; r.timedOut
   *   signal: abortController.signal, // cancel the same way; r.cancelled (already aborted: rejects)
   *   outputCapBytes: 64 * 1024,      // r.output keeps head and tail; r.truncated
   *   runId,                          // optional: output also appended as 'terminal.output' events
   * });
   * // r: { terminalId, exitCode, signal, output, truncated, timedOut, cancelled, durationMs }
   * ```
   */
  runCommand(options: RunCommandOptions): Promise<RunCommandResult> {
    return runCommand(this, options, this.opts.events);
  }

  // ---- operating terminals ------------------------------------------------------------------

  list(): TerminalInfo[] {
    return [...this.terminals.values()].map((t) => ({ ...t.info }));
  }

  get(id: string): TerminalInfo {
    return { ...this.find(id).info };
  }

  /**
   * Resolves once the input is written to the pty host's channel, not only queued here: a
   * browser view's next keystroke may go on its direct socket, straight to the pty host, and
   * must not overtake this one (a paste's piece larger than the pipe is written in parts).
   */
  write(id: string, data: string): Promise<void> {
    const t = this.find(id);
    if (t.info.status !== 'running') throw new AppError('conflict', 'This terminal has exited; open a new one to type commands.', { id });
    return new Promise((resolve) => this.host.send({ t: 'write', id, data }, resolve));
  }

  /** Records the new size at once; the pty gets at most one resize per RESIZE_THROTTLE_MS (the last one wins). */
  resize(id: string, cols: number, rows: number): void {
    const t = this.find(id);
    if (t.info.cols === cols && t.info.rows === rows) return;
    t.info.cols = cols;
    t.info.rows = rows;
    if (t.info.status !== 'running') return;
    const r = t.resize;
    r.pending = { cols, rows };
    if (r.timer) return;
    const wait = Math.max(0, r.lastAt + RESIZE_THROTTLE_MS - Date.now());
    const apply = () => {
      r.timer = null;
      if (!r.pending || t.info.status !== 'running') return;
      r.lastAt = Date.now();
      this.host.send({ t: 'resize', id, ...r.pending });
      r.pending = null;
    };
    if (wait === 0) apply();
    else r.timer = setTimeout(apply, wait);
  }

  /** Sends a signal to the terminal's process group (the shell and what it runs). */
  kill(id: string, signal: NodeJS.Signals = 'SIGTERM'): void {
    const t = this.find(id);
    if (t.info.status === 'running') this.host.send({ t: 'signal', id, signal });
  }

  /** Ends the process if it still runs and forgets the terminal with its scrollback. */
  close(id: string): boolean {
    const t = this.terminals.get(id);
    if (!t) return false;
    this.clearTimers(t);
    if (t.info.status === 'running') {
      // Whoever waits for its exit (an agent's runCommand) learns it was killed.
      Object.assign(t.info, { status: 'exited', exitCode: null, signal: 'SIGHUP', exitedAt: Date.now(), outputEnd: t.ring.end, problem: 'Closed while it was running.' });
      for (const w of t.exitWaiters.splice(0)) w({ ...t.info });
    }
    this.terminals.delete(id);
    this.caughtUpNow(t);
    for (const d of this.directs.values()) d.routes.delete(id);
    // The host hangs a still-running pty up on release, and SIGKILLs what is left after the grace period.
    this.host.send({ t: 'release', id });
    if (t.info.pid !== null) this.host.forgetPid(t.info.pid);
    this.updateBusy();
    this.publishList();
    return true;
  }

  // ---- views and flow control ---------------------------------------------------------------

  /**
   * A view starts watching: the scrollback, and the offset its live output goes on from (`end`).
   * During a flood whose bytes the pty host holds back, the scrollback is short of the output
   * counted so far: the host is asked for them first (the view is fed over this process from
   * now on), so the view gets the last of the flood as a scrollback would hold it. A view that
   * holds the output up to `since` already (a parked one, a read ahead, a reconnect) gets only
   * what came after it, when the scrollback still reaches back that far (`start` says where
   * `data` starts).
   */
  attach(id: string, connectionId: string, since?: number): AttachResult | Promise<AttachResult> {
    const t = this.find(id);
    if (t.ring.end === t.charsEnd || t.info.status !== 'running' || !this.host.isReady) return this.attachNow(t, connectionId, since);
    return new Promise<AttachResult>((resolve, reject) => {
      t.caughtUp.push({
        conn: connectionId,
        go: () => {
          try {
            resolve(this.attachNow(this.find(id), connectionId, since));
          } catch (e) {
            reject(e as Error);
          }
        },
        cancel: reject,
      });
      // The bytes now, and every batch's from here (the waiting attach counts in wantsBytes).
      this.syncToMain(t);
    });
  }

  /**
   * The scrollback without watching: what a view reads ahead of a terminal's first show, to
   * attach with `since` at its end then. During a flood the pty host holds back, it ends where
   * this process's copy ends (offsets stay exact; the attach brings the rest). From `since` when
   * the scrollback reaches back to it; null, without decoding, when longer than `maxChars`.
   */
  history(id: string, since?: number, maxChars?: number): { data: string; start: number; end: number } | null {
    const ring = this.find(id).ring;
    const start = ring.startFor(since ?? 0);
    if (maxChars !== undefined && ring.end - start > maxChars) return null;
    return { ...ring.readFrom(start), end: ring.end };
  }

  private attachNow(t: Terminal, connectionId: string, since: number | undefined): AttachResult {
    const attachmentId = newId('att');
    // Replaces an earlier attachment of the same connection (a reloaded page): force-resume.
    t.views.attach(attachmentId, connectionId, t.ring.end);
    this.syncFlow(t);
    this.syncToMain(t);
    return { terminal: { ...t.info }, attachmentId, ...t.ring.readFrom(since ?? 0), end: t.ring.end };
  }

  /**
   * A view's attach from the bridge. When its connection has a direct output socket at the pty
   * host (browser mode), the terminal is routed to it first: the host answers in the terminal's
   * lane, after every batch sent before, so the scrollback returned here ends exactly where the
   * direct output begins (no gap, no duplicate) and the main socket stops carrying it from there.
   */
  attachView(id: string, connectionId: string, since?: number): AttachResult | Promise<AttachResult> {
    const t = this.find(id);
    const direct = this.directs.get(connectionId);
    if (!direct?.open || t.info.status !== 'running') return this.attach(id, connectionId, since);
    return new Promise<AttachResult>((resolve, reject) => {
      const waiters = this.routeWaiters.get(id) ?? [];
      waiters.push({
        conn: connectionId,
        // Attached only now, so the view's flow count starts where its scrollback ends.
        settle: () => {
          try {
            resolve(this.attach(id, connectionId, since));
          } catch (e) {
            reject(e as Error);
          }
        },
        cancel: reject,
      });
      this.routeWaiters.set(id, waiters);
      this.host.send({ t: 'route', id, conn: connectionId, on: true, socket: direct.socket });
    });
  }

  detach(id: string, attachmentId: string, connectionId?: string): void {
    const t = this.terminals.get(id);
    if (!t || !t.views.has(attachmentId, connectionId)) return;
    t.views.detach(attachmentId);
    this.syncFlow(t);
    const direct = connectionId !== undefined ? this.directs.get(connectionId) : undefined;
    if (direct?.routes.has(id)) this.host.send({ t: 'route', id, conn: connectionId!, on: false, socket: direct.socket });
    this.syncToMain(t);
  }

  /**
   * Whether every batch's bytes must come here as it comes: an in-process listener (an agent's
   * command), or a view fed over this process (an Electron window, a browser connection without
   * a direct socket). Otherwise the pty host may hold a flood's bytes back until it is over
   * (see pty-host/main.ts): views on direct sockets have them, and the scrollback gets them then.
   */
  private wantsBytes(t: Terminal): boolean {
    if (t.outputListeners.size > 0 || t.caughtUp.length > 0) return true;
    for (const conn of t.views.connections()) if (!this.directs.get(conn)?.routes.has(t.info.id)) return true;
    return false;
  }

  /** Tells the host whether to send every batch's bytes here, when that changed. */
  private syncToMain(t: Terminal): void {
    if (t.info.status !== 'running') return;
    const want = this.wantsBytes(t);
    if (want === t.toMain) return;
    t.toMain = want;
    this.host.send({ t: 'toMain', id: t.info.id, on: want });
  }

  // ---- browser mode's direct output sockets -------------------------------------------------

  /** Whether terminal `id`'s output reaches connection `connectionId` over its direct socket (its main socket then skips it). */
  isDirect(connectionId: string, id: string): boolean {
    return this.directs.get(connectionId)?.routes.has(id) ?? false;
  }

  /** Whether a connection may hand over a direct socket now: the pty host runs and the connection has none. */
  canAdoptDirect(connectionId: string): boolean {
    return !this.disposed && this.host.isReady && process.platform !== 'win32' && !this.directs.has(connectionId);
  }

  /**
   * Passes a browser's dedicated output connection, already authenticated by the caller, to the
   * pty host, which completes the WebSocket handshake. False when it cannot be passed (the
   * caller refuses the upgrade, and the connection keeps its output on the main socket).
   */
  adoptDirect(connectionId: string, req: { url: string; headers: Record<string, string | string[] | undefined> }, socket: Socket, head: Uint8Array): boolean {
    if (!this.canAdoptDirect(connectionId)) return false;
    // Only what the WebSocket handshake reads: the token (query, cookie) stays here.
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k === 'upgrade' || k === 'connection' || k.startsWith('sec-websocket-')));
    const msg = { t: 'direct' as const, conn: connectionId, url: new URL(req.url, 'http://placeholder').pathname, headers, head: new Uint8Array(head) };
    const passed = this.host.sendSocket(msg, socket, () => this.directClosed(connectionId));
    if (passed) this.directs.set(connectionId, { socket: ++this.directSeq, open: false, routes: new Set() });
    return passed;
  }

  /** Direct sockets open at the pty host (tests and diagnostics). */
  directSockets(): string[] {
    return [...this.directs].filter(([, d]) => d.open).map(([conn]) => conn);
  }

  /**
   * Called with a connection id when its direct socket closed (`lost`: it had been open, so
   * output written to it may not have arrived: the connection's views must attach again, which
   * replays it from the scrollback, complete now), and with null when the pty host (re)started.
   * Either way a connection without a direct socket may open one now.
   */
  onDirectAvailable(listener: (connectionId: string | null, lost: boolean) => void): () => void {
    this.directListeners.add(listener);
    return () => this.directListeners.delete(listener);
  }

  /**
   * Called when terminal `id`'s output starts going to connection `connectionId`'s direct socket
   * instead of its main socket: everything published for the terminal before has been handed to
   * the main socket by then, nothing after it will be (browser mode marks the switch there).
   */
  onDirectRouted(listener: (connectionId: string, id: string) => void): () => void {
    this.routedListeners.add(listener);
    return () => this.routedListeners.delete(listener);
  }

  private directClosed(connectionId: string): void {
    const d = this.directs.get(connectionId);
    if (!d) return;
    this.directs.delete(connectionId);
    // Its views are fed over this process until they attach again.
    for (const id of d.routes) {
      const t = this.terminals.get(id);
      if (t) this.syncToMain(t);
    }
    for (const l of this.directListeners) l(connectionId, d.open);
  }

  private onRouted(id: string, conn: string, asked: boolean, on: boolean, socket: number): void {
    const direct = this.directs.get(conn);
    // An answer about a socket that closed while it waited in the terminal's lane says nothing
    // about the connection's socket now: that one carries the terminal only once asked itself.
    if (direct?.socket === socket) {
      if (on) direct.routes.add(id);
      else direct.routes.delete(id);
      if (on) for (const l of this.routedListeners) l(conn, id);
      const t = this.terminals.get(id);
      if (t) this.syncToMain(t);
    }
    // Only the answer to an attach's request settles it (not a detach's, sent before it).
    const waiters = asked ? this.routeWaiters.get(id) : undefined;
    const i = waiters?.findIndex((w) => w.conn === conn) ?? -1;
    if (!waiters || i < 0) return;
    const [w] = waiters.splice(i, 1);
    if (waiters.length === 0) this.routeWaiters.delete(id);
    w!.settle(on);
  }

  ack(id: string, attachmentId: string, chars: number, connectionId?: string): void {
    const t = this.terminals.get(id);
    // Acks for a closed terminal or a replaced attachment arrive after the fact: nothing to do.
    if (!t || !t.views.has(attachmentId, connectionId)) return;
    // A view on a direct socket may be ahead of this process by what the host has sent and we
    // have not read yet: at most the flow window plus a batch (characters are at most bytes).
    // Clamping it to our end lost those acks, and the pty waited for them for good.
    t.views.ack(attachmentId, chars, t.charsEnd, FLOW_WINDOW_MAX_BYTES + BATCH_MAX_BYTES);
    this.syncFlow(t, true);
  }

  /** A window or socket went away: its views stop counting at once, so nobody waits for them. */
  connectionClosed(connectionId: string): void {
    // Its attaches still waiting (for a flood's held-back output, for the host's route) must not
    // add views for a connection that is gone.
    for (const t of this.terminals.values()) {
      const cancelled = cancelFor(t.caughtUp, connectionId);
      if (!t.views.dropConnection(connectionId) && !cancelled) continue;
      this.syncFlow(t);
      this.syncToMain(t);
    }
    for (const [id, waiters] of this.routeWaiters) {
      if (cancelFor(waiters, connectionId) && waiters.length === 0) this.routeWaiters.delete(id);
    }
    if (this.directs.delete(connectionId)) this.host.send({ t: 'dropDirect', conn: connectionId });
  }

  flowStats(id: string): TerminalFlowStats {
    const t = this.find(id);
    return {
      scrollbackChars: t.ring.length,
      charsReceived: t.charsEnd,
      scrollbackEnd: t.ring.end,
      unackedChars: t.views.unacked(t.charsEnd),
      peakUnackedChars: t.peakUnacked,
      pauses: t.pauses,
      resumes: t.resumes,
      paused: t.paused,
      views: t.views.size,
      window: t.window,
      bytesReceived: t.bytesEnd,
      firstDataAt: t.firstDataAt,
      lastDataAt: t.lastDataAt,
      handleMs: t.handleMs,
    };
  }

  /** What the pty host measured for a terminal (the benchmark's first hop); null once it forgot it. */
  hostStats(id: string): Promise<HostTerminalStats | null> {
    const t = this.find(id);
    if (t.info.status === 'exited') return Promise.resolve(t.finalHostStats);
    return new Promise((resolve) => {
      const waiters = this.statsWaiters.get(id) ?? [];
      waiters.push(resolve);
      this.statsWaiters.set(id, waiters);
      this.host.send({ t: 'stats', id });
    });
  }

  /** What this service holds for all terminals: scrollback plus output in flight to views. */
  memory(): { scrollbackChars: number; inFlightChars: number } {
    let scrollbackChars = 0;
    let inFlightChars = 0;
    for (const t of this.terminals.values()) {
      scrollbackChars += t.ring.length;
      inFlightChars += t.views.unacked(t.charsEnd);
    }
    return { scrollbackChars, inFlightChars };
  }

  /** The pty host's pid and the pids of the ptys it runs (tests check nothing is orphaned). */
  processes(): { hostPid: number | undefined; ptyPids: number[] } {
    return { hostPid: this.host.pid, ptyPids: this.host.knownPtyPids };
  }

  // ---- hooks for command-runner ---------------------------------------------------------------

  /** Subscribes to a terminal's output in-process (not through the bridge). */
  onOutput(id: string, listener: (data: string) => void): () => void {
    const t = this.find(id);
    t.outputListeners.add(listener);
    this.syncToMain(t);
    return () => this.offOutput(id, listener);
  }

  offOutput(id: string, listener: (data: string) => void): void {
    const t = this.terminals.get(id);
    if (!t) return;
    t.outputListeners.delete(listener);
    this.syncToMain(t);
  }

  /** Resolves with the terminal's final info once it has exited. */
  whenExited(id: string): Promise<TerminalInfo> {
    const t = this.find(id);
    if (t.info.status === 'exited') return Promise.resolve({ ...t.info });
    return new Promise((resolve) => t.exitWaiters.push(resolve));
  }

  /** Records why a terminal was ended (a timeout, a cancel), shown with its exit status. */
  setProblem(id: string, problem: string): void {
    const t = this.terminals.get(id);
    if (t) t.info.problem = problem;
  }

  // ---- internals ----------------------------------------------------------------------------

  private find(id: string): Terminal {
    const t = this.terminals.get(id);
    if (!t) throw new AppError('not_found', 'That terminal was closed.', { id });
    return t;
  }

  private async resolveTarget(target: OpenTarget): Promise<{ cwd: string; owner: TerminalOwner }> {
    if (target.kind === 'project') {
      // The project's own path, never one the renderer claims for it.
      const project = this.opts.projects.get(target.projectId);
      return { cwd: project.path, owner: { projectId: project.id } };
    }
    if (!isAbsolute(target.path)) throw new AppError('invalid_input', `Use an absolute path; "${target.path}" is relative.`);
    await this.assertDirectory(target.path);
    const cwd = await realpath(target.path);
    return { cwd, owner: {} };
  }

  private async assertDirectory(path: string): Promise<void> {
    let info;
    try {
      info = await stat(path);
    } catch {
      throw new AppError('path_not_found', `The folder ${path} does not exist.`, { path });
    }
    if (!info.isDirectory()) throw new AppError('not_a_directory', `${path} is a file, not a folder.`, { path });
  }

  private onHostMessage(msg: FromHost): void {
    switch (msg.t) {
      case 'ready':
        for (const l of this.directListeners) l(null, false);
        return;
      case 'directOpen': {
        const d = this.directs.get(msg.conn);
        // Opened for a connection that closed meanwhile: the host closes it.
        if (!d) return this.host.send({ t: 'dropDirect', conn: msg.conn });
        d.open = true;
        // Views the connection attached before go direct too, each from where the host answers:
        // the main socket marks the switch after the output it carried (`directRouted`), and the
        // client holds the direct frames until then, so the direct side cannot overtake it.
        for (const t of this.terminals.values()) {
          if (t.info.status === 'running' && t.views.hasConnection(msg.conn)) this.host.send({ t: 'route', id: t.info.id, conn: msg.conn, on: true, socket: d.socket });
        }
        return;
      }
      case 'directClosed':
        return this.directClosed(msg.conn);
      case 'routed':
        return this.onRouted(msg.id, msg.conn, msg.asked, msg.on, msg.socket);
    }
    if (msg.t === 'stats') {
      const waiters = this.statsWaiters.get(msg.id) ?? [];
      this.statsWaiters.delete(msg.id);
      for (const w of waiters) w(msg.stats);
      return;
    }
    const t = this.terminals.get(msg.id);
    if (!t) return;
    switch (msg.t) {
      case 'spawned':
        t.info.pid = msg.pid;
        t.spawn?.resolve();
        t.spawn = null;
        return;
      case 'spawnFailed':
        t.spawn?.reject(new Error(msg.message));
        t.spawn = null;
        return;
      case 'data':
        return this.onData(t, msg.offset, msg.chars, msg.length, msg.data);
      case 'catchUp':
        return this.onCatchUp(t, msg.start, msg.chars, msg.data);
      case 'flow':
        t.window = msg.window;
        return this.onFlow(t, msg.paused);
      case 'exit':
        t.finalHostStats = msg.stats;
        return this.onExit(t, msg.exitCode, msg.signal, null);
    }
  }

  /** A batch from the pty host: its counts always, its bytes unless the host holds a flood's back (see `wantsBytes`). */
  private onData(t: Terminal, byteOffset: number, chars: number, length: number, received: Uint8Array): void {
    const started = performance.now();
    if (byteOffset !== t.bytesEnd) {
      // Cannot happen over an ordered channel; logged loudly because views would show a gap.
      this.opts.log.error('terminal output offset mismatch', { id: t.info.id, expected: t.bytesEnd, got: byteOffset });
    }
    // Counted by the pty host (utf16-length.ts), not decoded: the text is only made if someone
    // here reads it (see TerminalDataBytes). The direct sockets' offsets use the same count.
    const offset = t.charsEnd;
    t.charsEnd += chars;
    t.bytesEnd = byteOffset + length;
    const end = { chars: t.charsEnd, bytes: t.bytesEnd };
    // Nobody watching: everything so far counts as consumed (a view attaching later starts at the end).
    if (t.views.size === 0) t.base = end;
    else t.marks.push(end);
    t.peakUnacked = Math.max(t.peakUnacked, t.views.unacked(t.charsEnd));
    // The slowest view had already acknowledged part of this batch (it came over the direct
    // socket first): tell the host now, no later ack may come to do it.
    if ((t.views.consumed() ?? -1) > offset) this.syncFlow(t);
    if (received.length === length) this.output(t, offset, chars, standaloneBytes(received));
    const now = performance.now();
    t.handleMs += now - started;
    t.lastDataAt = performance.timeOrigin + now;
    t.firstDataAt ??= t.lastDataAt;
  }

  /** Output whose bytes are here: into the scrollback, to the views fed over this process, to listeners. */
  private output(t: Terminal, offset: number, chars: number, bytes: Uint8Array): void {
    // Behind only after the host lost what it held back (it stopped mid-flood): start again here.
    if (t.ring.end !== offset) t.ring.restartAt(offset);
    t.ring.append(bytes, chars);
    // The bytes go along so a transport can send them as they came, without encoding the text again.
    const payload = terminalDataFromBytes(offset, chars, bytes);
    this.opts.hub.publish('terminals.data', payload, t.info.id, bytes);
    for (const l of t.outputListeners) l(payload.data);
  }

  /**
   * A flood's output the host held back, now that it is over (or a view needs it): completes the
   * scrollback, and goes to the views fed over this process (a view attached meanwhile starts
   * where the scrollback ended; views on direct sockets had it, their main socket skips it).
   */
  private onCatchUp(t: Terminal, start: number, chars: number, received: Uint8Array): void {
    this.output(t, start, chars, standaloneBytes(received));
    // Cut to the capacity now: one catch-up is up to a whole scrollback's worth.
    t.ring.trim();
    this.caughtUpNow(t);
  }

  /** Attaches that waited for the held-back output go on (with what there is, if the host stopped). */
  private caughtUpNow(t: Terminal): void {
    for (const w of t.caughtUp.splice(0)) w.go();
  }

  /**
   * The byte offset the slowest view has reached, from the characters it acknowledged: exact at
   * batch ends; inside a batch each character counts as one byte (it is at least one), so the
   * estimate never runs ahead of the view and is exact for ASCII.
   */
  private consumedBytes(t: Terminal, chars: number): number {
    let i = 0;
    while (i < t.marks.length && t.marks[i]!.chars <= chars) i++;
    if (i > 0) {
      t.base = t.marks[i - 1]!;
      t.marks.splice(0, i);
    }
    const next = t.marks[0];
    const into = Math.max(0, chars - t.base.chars);
    return next ? Math.min(next.bytes, t.base.bytes + into) : t.base.bytes;
  }

  private onFlow(t: Terminal, paused: boolean): void {
    t.paused = paused;
    if (paused) {
      // Progress held back while the pty ran (syncFlow's coalescing) now counts toward the resume.
      this.syncFlow(t);
      t.pauses++;
      this.armStallCheck(t);
    } else {
      t.resumes++;
      if (t.stallTimer) clearTimeout(t.stallTimer);
      t.stallTimer = null;
    }
  }

  private armStallCheck(t: Terminal): void {
    if (t.stallTimer) clearTimeout(t.stallTimer);
    t.stallTimer = setTimeout(() => {
      t.stallTimer = null;
      if (!t.paused || !this.terminals.has(t.info.id)) return;
      if (t.views.markStalled(t.charsEnd)) {
        this.opts.log.warn('a terminal view stopped acknowledging output; it no longer holds the terminal back', { id: t.info.id });
        this.syncFlow(t);
      }
      if (t.paused) this.armStallCheck(t);
    }, this.stalledViewMs);
  }

  private onExit(t: Terminal, exitCode: number | null, signal: number, problem: string | null): void {
    if (t.info.status === 'exited') return;
    this.clearTimers(t);
    t.info.status = 'exited';
    t.info.exitedAt = Date.now();
    // The host sends the exit after the terminal's last output (one lane), and a flood's output it
    // held back before it: the scrollback ends there. (Short of the count only when the host died
    // holding some back: that part is gone, no view waits for it.)
    t.info.outputEnd = t.ring.end;
    t.info.signal = signal ? (SIGNAL_NAMES.get(signal) ?? `signal ${signal}`) : null;
    t.info.exitCode = signal ? null : exitCode;
    if (problem) t.info.problem = problem;
    t.spawn?.reject(new Error(problem ?? 'the process exited before it started'));
    t.spawn = null;
    if (t.info.pid !== null) this.host.forgetPid(t.info.pid);
    this.host.send({ t: 'release', id: t.info.id });
    this.opts.log.info('terminal exited', { id: t.info.id, exitCode: t.info.exitCode, signal: t.info.signal });
    for (const w of t.exitWaiters.splice(0)) w({ ...t.info });
    this.updateBusy();
    this.pruneExitedCommands();
    this.publishStatus(t);
  }

  private onHostExited(): void {
    for (const waiters of this.statsWaiters.values()) for (const w of waiters) w(null);
    this.statsWaiters.clear();
    // The direct sockets died with the host; their views continue on the main sockets.
    const conns = [...this.directs].filter(([, d]) => d.open).map(([conn]) => conn);
    this.directs.clear();
    for (const t of this.terminals.values()) {
      if (t.info.status === 'running') {
        this.onExit(t, null, 0, this.disposed ? 'Flightdeck closed and ended this terminal.' : 'The terminal host stopped unexpectedly; this terminal ended.');
      }
    }
    for (const t of this.terminals.values()) this.caughtUpNow(t);
    // Attaches waiting for the host get the scrollback from here (short of what it held back when it stopped mid-flood).
    const waiting = [...this.routeWaiters.values()].flat();
    this.routeWaiters.clear();
    for (const w of waiting) w.settle(false);
    for (const conn of conns) for (const l of this.directListeners) l(conn, true);
  }

  /** Tells the host how far the slowest live view is, when that changed. */
  /**
   * Tells the host how far the slowest view has parsed. `coalesce` (a view's ack): while the pty
   * runs, progress smaller than FLOW_REPORT_BYTES waits for the next ack — every ack was an IPC
   * message and a wake-up of the host (thousands per flood), each competing for a CPU with the
   * keystrokes of other terminals.
   */
  private syncFlow(t: Terminal, coalesce = false): void {
    if (t.info.status !== 'running') return;
    const chars = t.views.consumed();
    if (chars === null) {
      t.marks = [];
      t.base = { chars: t.charsEnd, bytes: t.bytesEnd };
    }
    const consumed = chars === null ? null : this.consumedBytes(t, chars);
    if (consumed === t.toldConsumed) return;
    const told = t.toldConsumed;
    if (coalesce && !t.paused && consumed !== null && typeof told === 'number' && consumed > told && consumed - told < FLOW_REPORT_BYTES) return;
    t.toldConsumed = consumed;
    this.host.send({ t: 'consumed', id: t.info.id, offset: consumed });
  }

  private pruneExitedCommands(): void {
    const exited = [...this.terminals.values()].filter((t) => t.info.kind === 'command' && t.info.status === 'exited' && t.views.size === 0);
    for (const t of exited.slice(0, Math.max(0, exited.length - MAX_EXITED_COMMAND_TERMINALS))) this.close(t.info.id);
  }

  private clearTimers(t: Terminal): void {
    if (t.stallTimer) clearTimeout(t.stallTimer);
    if (t.resize.timer) clearTimeout(t.resize.timer);
    t.stallTimer = null;
    t.resize.timer = null;
  }

  private updateBusy(): void {
    this.host.setBusy([...this.terminals.values()].some((t) => t.info.status === 'running'));
  }

  private publishStatus(t: Terminal): void {
    this.opts.hub.publish('terminals.status', { ...t.info }, t.info.id);
    this.publishList();
  }

  private publishList(): void {
    this.opts.hub.publish('terminals.changed', { terminals: this.list() });
  }
}
