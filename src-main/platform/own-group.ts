import { spawn, type ChildProcess } from 'node:child_process';

/**
 * A short-lived program (git, gh) run in a process group of its own, so that stopping it stops
 * what it started too: git's pack-objects, index-pack, remote helpers and their ssh, filters;
 * gh's git. A stop (a cancel, the time limit, output past the limit) sends SIGTERM to the whole
 * group (git removes its lock files on it), then SIGKILL after `graceMs`; the run answers once
 * the program has ended and its output is closed, or `killedWaitMs` after the SIGKILL when a
 * process that left the group (setsid) still holds that output, or one is stuck in the kernel.
 *
 * The program has no stdin and, on Linux and macOS, no controlling terminal (a session of its
 * own): whatever would prompt there (ssh's passphrase or host key) fails at once instead of
 * waiting. On Windows there are no process groups: the program alone is stopped.
 */

/** How long a stopped program has to end after SIGTERM before SIGKILL. */
export const STOP_GRACE_MS = 5_000;
/** After SIGKILL, how long the run still waits for the program's exit and output before it answers without them. */
export const KILLED_WAIT_MS = 2_000;

const OWN_GROUP = process.platform !== 'win32';

export type StoppedFor = 'cancel' | 'timeout' | 'overflow';

/** How the program ended, as execFile reports it: a number code for an exit, a string code for a failed start. */
export interface GroupRun {
  error: (Error & { code?: number | string; signal?: NodeJS.Signals | null }) | null;
  stdout: Buffer;
  stderr: Buffer;
  /** Set when the run stopped the program (its error then carries no exit code of the program's). */
  stoppedFor: StoppedFor | null;
}

export interface GroupRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** 0: no time limit. */
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  graceMs?: number;
  killedWaitMs?: number;
}

/**
 * The process groups of the programs running now. In its own group a program no longer gets the
 * signals sent to the app's group (Ctrl+C in the terminal the CLI or host runs in): when this
 * process exits, or dies of SIGINT, SIGTERM or SIGHUP that nothing else in it handles, whatever
 * is still running is told to stop, as the group's signal told it before.
 */
const runningGroups = new Set<number>();
/**
 * Not in Electron: Chromium handles these there (a quit that ends in 'exit'), and a listener of
 * Node's would replace its handler for good.
 */
const STOP_SIGNALS: readonly NodeJS.Signals[] = process.versions.electron ? [] : ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** A signal to every process of group `pgid`; false when the group is gone (ESRCH). */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

function stopRunningGroups(): void {
  for (const group of runningGroups) signalGroup(group, 'SIGTERM');
  runningGroups.clear();
}

/** Only while nobody else handles the signal: then it would have ended this process anyway. */
function onStopSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  stopRunningGroups();
  forgetStopSignals();
  // Dies of it as it would have (its exit status says so).
  process.kill(process.pid, signal);
}

let listening = false;
function forgetStopSignals(): void {
  if (!listening) return;
  listening = false;
  process.off('exit', stopRunningGroups);
  for (const sig of STOP_SIGNALS) process.off(sig, onStopSignal);
}

function trackGroup(pid: number | undefined): () => void {
  if (!OWN_GROUP || pid === undefined) return () => undefined;
  runningGroups.add(pid);
  if (!listening) {
    listening = true;
    process.on('exit', stopRunningGroups);
    for (const sig of STOP_SIGNALS) process.on(sig, onStopSignal);
  }
  return () => {
    runningGroups.delete(pid);
    if (runningGroups.size === 0) forgetStopSignals();
  };
}

/**
 * The program's stdout and stderr until both are closed and it has exited (what execFile does,
 * which cannot start a process group). More than `maxBytes` on either ends the run with an
 * error and `tooMuch` is told (it stops the program).
 */
function collectOutput(child: ChildProcess, maxBytes: number, tooMuch: () => void): Promise<Omit<GroupRun, 'stoppedFor'>> {
  return new Promise((resolve) => {
    const chunks: { stdout: Buffer[]; stderr: Buffer[] } = { stdout: [], stderr: [] };
    const sizes = { stdout: 0, stderr: 0 };
    let failure: GroupRun['error'] = null;
    // A failed start (no program, a folder that cannot be entered, no file descriptors left): an
    // error, then a close with no exit. Listened to first: out of descriptors, spawn sets up no
    // stdio at all.
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (child.pid === undefined) failure ??= e as GroupRun['error'];
    });
    for (const name of ['stdout', 'stderr'] as const) {
      child[name]?.on('data', (b: Buffer) => {
        if (failure) return;
        sizes[name] += b.length;
        if (sizes[name] > maxBytes) {
          failure = Object.assign(new RangeError(`${name} maxBuffer length exceeded`), { code: 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER' });
          tooMuch();
          return;
        }
        chunks[name].push(b);
      });
    }
    child.once('close', (code, signal) => {
      const done = (error: GroupRun['error']): void => resolve({ error, stdout: Buffer.concat(chunks.stdout), stderr: Buffer.concat(chunks.stderr) });
      if (failure) return done(failure);
      if (code === 0) return done(null);
      const what = code !== null ? `exit code ${code}` : `signal ${signal}`;
      done(Object.assign(new Error(`ended with ${what}`), { code: code ?? undefined, signal }));
    });
  });
}

/** Runs `file` in a process group of its own (see the top of this file); never rejects. */
export function runInOwnGroup(file: string, args: readonly string[], o: GroupRunOptions): Promise<GroupRun> {
  const graceMs = o.graceMs ?? STOP_GRACE_MS;
  const killedWaitMs = o.killedWaitMs ?? KILLED_WAIT_MS;
  const empty = Buffer.alloc(0);
  return new Promise((resolve) => {
    if (o.signal?.aborted) return resolve({ error: new Error('cancelled'), stdout: empty, stderr: empty, stoppedFor: 'cancel' });
    let stopped: StoppedFor | null = null;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let stuckTimer: NodeJS.Timeout | undefined;
    let limit: NodeJS.Timeout | undefined;
    const child = spawn(file, args, { cwd: o.cwd, env: o.env, windowsHide: true, detached: OWN_GROUP, stdio: ['ignore', 'pipe', 'pipe'] });
    const untrack = trackGroup(child.pid);
    /** A signal to the program and everything in its group (what it started and did not move elsewhere). */
    const signalAll = (sig: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      // Else the group is gone (every member ended): the program itself may still be a zombie to reap.
      if (OWN_GROUP && signalGroup(child.pid, sig)) return;
      // Windows (no groups), or the group is gone: the program alone, unless it has ended (what
      // holds its output left the group), when its pid may be another process's now.
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(sig);
    };
    const settle = (r: Omit<GroupRun, 'stoppedFor'>): void => {
      if (settled) return;
      settled = true;
      untrack();
      clearTimeout(limit);
      clearTimeout(graceTimer);
      clearTimeout(stuckTimer);
      o.signal?.removeEventListener('abort', onAbort);
      resolve({ ...r, stoppedFor: stopped });
    };
    const stop = (why: StoppedFor): void => {
      if (stopped || settled) return;
      stopped = why;
      signalAll('SIGTERM');
      graceTimer = setTimeout(() => {
        signalAll('SIGKILL');
        stuckTimer = setTimeout(() => settle({ error: new Error('did not end when killed'), stdout: empty, stderr: empty }), killedWaitMs).unref();
      }, graceMs).unref();
    };
    const onAbort = (): void => stop('cancel');
    void collectOutput(child, o.maxOutputBytes, () => stop('overflow')).then(settle);
    if (o.timeoutMs > 0) limit = setTimeout(() => stop('timeout'), o.timeoutMs).unref();
    o.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
