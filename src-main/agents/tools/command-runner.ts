/**
 * How bash commands run. The interface lets the integrator plug in the terminals engineer's
 * pty-based runner; the default here spawns `bash -lc` in its own process group so that
 * cancelling (or a timeout) kills the whole group, background children included.
 */
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { cleanExec } from '../../platform/child-process';
import { isAppPrivateEnv, isCommandSecretEnv } from '../../platform/private-env';
import { killSession, sessionGone, type GroupRecords } from '../../platform/process-groups';
import type { SandboxPolicy } from '../../sandbox/policy';

export interface CommandRunOptions {
  cwd: string;
  command: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal: AbortSignal;
  /** Output as it arrives (stdout and stderr interleaved), decoded as UTF-8 without splitting characters. */
  onOutput?: (chunk: string) => void;
  /** Whose command this is, for runners that show commands to the user (the terminal list). */
  owner?: { sessionId: string; projectId?: string };
  /** Runners that run the command in a terminal the user can open say which, once it exists. */
  onTerminal?: (terminalId: string) => void;
  /**
   * What the command may touch (the session's sandbox). Applied by SandboxedRunner
   * (src-main/sandbox), which the engine puts in front of every runner; absent = the default
   * sandbox in cwd, never "unconfined".
   */
  sandbox?: SandboxPolicy;
  /** How to show the command to the user when `command` is its wrapped form. */
  title?: string;
}

export interface CommandResult {
  /** null when the process was killed by a signal. */
  exitCode: number | null;
  signal: string | null;
  /** stdout and stderr interleaved; head and tail kept when longer than the cap. */
  output: string;
  truncated: boolean;
  /**
   * stdout and stderr apart (seed 001 §6: a `!` result names both), when the runner could
   * capture them apart; each keeps its head and tail when longer than the cap.
   */
  stdout?: string;
  stderr?: string;
  /** Killed because it ran past timeoutMs (optional: runners that cannot tell leave it out). */
  timedOut?: boolean;
}

export interface CommandRunner {
  run(opts: CommandRunOptions): Promise<CommandResult>;
}

/** What a command's result keeps for the model: enough to read a failing test run, not a build log flood. */
export const MAX_COMMAND_OUTPUT_CHARS = 64_000;
/** Between SIGTERM and SIGKILL: time for test runners to clean up their temp files. */
const KILL_GRACE_MS = 2_000;
/** After bash exits, how long to wait for pipes held open by background children. */
const PIPE_DRAIN_MS = 200;

/** Keeps the first and last halves of a long output with a marker between them. */
export class CappedOutput {
  private head = '';
  private tail = '';
  private dropped = 0;
  constructor(private readonly cap = MAX_COMMAND_OUTPUT_CHARS) {}

  push(chunk: string): void {
    const half = Math.floor(this.cap / 2);
    if (this.head.length < half) {
      const take = chunk.slice(0, half - this.head.length);
      this.head += take;
      chunk = chunk.slice(take.length);
    }
    if (chunk.length === 0) return;
    this.tail += chunk;
    if (this.tail.length > half) {
      this.dropped += this.tail.length - half;
      this.tail = this.tail.slice(this.tail.length - half);
    }
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  text(): string {
    return this.dropped > 0 ? `${this.head}\n… [${this.dropped} characters of output omitted] …\n${this.tail}` : this.head + this.tail;
  }
}

export class ChildProcessRunner implements CommandRunner {
  constructor(
    /**
     * Where each command's session is recorded while it runs (platform/process-groups), so a
     * later start ends it if this process dies without doing so (SIGKILL, crash). A recorded
     * command's session ends with it: what it left running in the background is killed.
     */
    private readonly records: { dir: GroupRecords; kind: string } | null = null,
  ) {}

  run(opts: CommandRunOptions): Promise<CommandResult> {
    return new Promise((resolve, reject) => {
      if (opts.signal.aborted) return resolve({ exitCode: null, signal: 'SIGTERM', output: '', truncated: false });
      // Through the descriptor-closing prelude: the command gets its stdio and nothing the app holds.
      const exec = cleanExec('bash', ['-lc', opts.command]);
      const child = spawn(exec.file, exec.args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      const recorded = this.record(child.pid);
      const out = new CappedOutput();
      const streams = [new CappedOutput(), new CappedOutput()];
      const decoders = [new StringDecoder('utf8'), new StringDecoder('utf8')];
      let timedOut = false;
      let killTimer: NodeJS.Timeout | undefined;
      let settled = false;
      const killGroup = (sig: NodeJS.Signals) => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, sig);
        } catch {
          // The group is already gone: nothing left to kill.
        }
      };
      let stoppedAt = 0;
      const stop = () => {
        // Once: a second SIGTERM would reach the group while its EXIT traps run.
        if (killTimer) return;
        stoppedAt = Date.now();
        clearTimeout(timeout);
        killGroup('SIGTERM');
        killTimer = setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
      };
      const timeout = setTimeout(() => {
        timedOut = true;
        stop();
      }, opts.timeoutMs);
      const onAbort = () => stop();
      opts.signal.addEventListener('abort', onAbort, { once: true });
      const onData = (i: number) => (buf: Buffer) => {
        const s = decoders[i]!.write(buf);
        if (s.length === 0) return;
        out.push(s);
        streams[i]!.push(s);
        opts.onOutput?.(s);
      };
      child.stdout!.on('data', onData(0));
      child.stderr!.on('data', onData(1));
      const finish = (code: number | null, sig: NodeJS.Signals | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timeout);
        if (killTimer) clearTimeout(killTimer);
        opts.signal.removeEventListener('abort', onAbort);
        decoders.forEach((d, i) => {
          const rest = d.end();
          if (rest) {
            out.push(rest);
            streams[i]!.push(rest);
            opts.onOutput?.(rest);
          }
        });
        // Background children may still hold the pipes: they belong to the killed group or live on unread.
        child.stdout!.destroy();
        child.stderr!.destroy();
        this.forget(recorded);
        resolve({ exitCode: code, signal: sig, output: out.text(), truncated: out.truncated, stdout: streams[0]!.text(), stderr: streams[1]!.text(), timedOut });
      };
      child.on('error', (e) => {
        if (settled) return;
        settled = true;
        clearTimeout(timeout);
        opts.signal.removeEventListener('abort', onAbort);
        this.forget(recorded);
        reject(e);
      });
      child.on('exit', (code, sig) => {
        // Background children may hold the pipes open: their ends are not waited for long.
        const pipes = new Promise<void>((resolve) => {
          const t = setTimeout(resolve, PIPE_DRAIN_MS);
          child.on('close', () => {
            clearTimeout(t);
            resolve();
          });
        });
        // Stopped: what the SIGTERM reached has the rest of the grace period to end, as the shell
        // did (a login shell's startup files may be running: pyenv's rehash removes its lock file
        // in an EXIT trap, and a SIGKILL in the middle of that leaves it for every later shell to
        // wait 60 s on). SIGKILL for what is left.
        const stopped = (opts.signal.aborted || timedOut) && child.pid !== undefined;
        const group = stopped ? sessionGone(child.pid!, recorded?.start ?? null, stoppedAt + KILL_GRACE_MS).then(() => killGroup('SIGKILL')) : null;
        Promise.all([pipes, group])
          .then(() => finish(code, sig))
          .catch(reject);
      });
    });
  }

  private record(pid: number | undefined): { pid: number; start: string | null } | null {
    if (!this.records || pid === undefined) return null;
    try {
      return { pid, start: this.records.dir.add(pid, this.records.kind).start };
    } catch {
      // Not recorded: only a crash of this process while it runs could leave it behind; it still runs and ends normally.
      return { pid, start: null };
    }
  }

  private forget(r: { pid: number; start: string | null } | null): void {
    if (!r || !this.records) return;
    killSession(r.pid, r.start);
    this.records.dir.remove(r.pid);
  }
}

/** The environment commands run with: the app's, minus credentials (model providers' and other services'), with pagers and prompts off. */
export function commandEnv(base: NodeJS.ProcessEnv, secretValues: readonly string[] = []): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined || isAppPrivateEnv(k) || isCommandSecretEnv(k)) continue;
    if (secretValues.some((s) => s.length >= 8 && v.includes(s))) continue;
    env[k] = v;
  }
  env.PAGER = 'cat';
  env.GIT_PAGER = 'cat';
  env.GIT_TERMINAL_PROMPT = '0';
  return env;
}
