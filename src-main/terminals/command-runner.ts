import type { TerminalOwner } from '../../src-preload/contract';
import type { EventLog } from '../store/event-log';
import { DEFAULT_COMMAND_OUTPUT_CAP_BYTES, EVENT_LOG_CAP_CHARS, EVENT_LOG_CHUNK_CHARS, EVENT_LOG_FLUSH_MS, KILL_GRACE_MS } from './constants';
import { commandShell } from './environment';
import { OutputCapture } from './output-capture';
import { StreamCapture, type CapturedStreams } from './stream-capture';
import type { TerminalService } from './terminal-service';

export interface RunCommandOptions {
  cwd: string;
  /** A command line, run by `bash -c` (or `sh -c` where bash is missing). */
  command: string;
  env?: Record<string, string>;
  owner?: TerminalOwner;
  /** Ends the command (SIGTERM to its process group, SIGKILL after a grace period) after this long. */
  timeoutMs?: number;
  /** Aborting it ends the command the same way. Already aborted: runCommand rejects without starting. */
  signal?: AbortSignal;
  /** The most output returned in `output` (head and tail are kept). Default 256 KiB. */
  outputCapBytes?: number;
  /** The agent run whose event log gets the output as 'terminal.output' events (capped). */
  runId?: string;
  /** Start from this environment instead of the app's own (see SpawnOptions.baseEnv). */
  baseEnv?: Record<string, string>;
  /** Output as it arrives (raw terminal text), e.g. for an agent's live tool output. */
  onOutput?: (data: string) => void;
  /** Called once the terminal exists, with its id (before any output is delivered to onOutput). */
  onStart?: (terminalId: string) => void;
  /**
   * Run with stdin at end-of-file, as a non-interactive command expects (an agent cannot answer
   * a prompt; without this a command that reads stdin would wait for the timeout).
   */
  stdinClosed?: boolean;
  /**
   * Also capture stdout and stderr apart (the terminal still shows both): the result then has
   * `streams`. See stream-capture.ts for how, and what it costs (pipes instead of a tty).
   */
  captureStreams?: boolean;
  /** A short title for the terminal list; defaults to the command line. */
  title?: string;
  cols?: number;
  rows?: number;
}

export interface RunCommandResult {
  terminalId: string;
  /** null when a signal ended the command. */
  exitCode: number | null;
  signal: string | null;
  /** What the command printed (CRLF as LF), at most `outputCapBytes` plus an omission marker. */
  output: string;
  truncated: boolean;
  /** stdout and stderr apart, with captureStreams (null when the capture could not be set up). */
  streams?: CapturedStreams | null;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
}

/** The payload of a 'terminal.output' event in a run's event log. */
export interface TerminalOutputEvent {
  terminalId: string;
  data: string;
  /** Set on the last event of a command whose output went over the log's cap. */
  truncated?: true;
}

/**
 * Appends a command's output to its run's event log in chunks (at most every
 * EVENT_LOG_FLUSH_MS, at most EVENT_LOG_CHUNK_CHARS each) up to EVENT_LOG_CAP_CHARS, so it
 * can be read after the terminal is gone without one chatty command filling the database.
 */
class RunLogSink {
  private buffer = '';
  private written = 0;
  private capped = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly log: Pick<EventLog, 'append'>,
    private readonly runId: string,
    private readonly terminalId: string,
  ) {}

  append(data: string): void {
    if (this.capped) return;
    const room = EVENT_LOG_CAP_CHARS - this.written - this.buffer.length;
    if (data.length > room) {
      this.buffer += data.slice(0, Math.max(0, room));
      this.capped = true;
      this.flush();
      this.write({ terminalId: this.terminalId, data: '', truncated: true });
      return;
    }
    this.buffer += data;
    if (this.buffer.length >= EVENT_LOG_CHUNK_CHARS) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), EVENT_LOG_FLUSH_MS);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.buffer.length > 0) {
      const data = this.buffer.slice(0, EVENT_LOG_CHUNK_CHARS);
      this.buffer = this.buffer.slice(data.length);
      this.written += data.length;
      this.write({ terminalId: this.terminalId, data });
    }
  }

  private write(payload: TerminalOutputEvent): void {
    try {
      this.log.append(this.runId, 'terminal.output', payload);
    } catch {
      // The event log is closed (the app is quitting): the live terminal still has the output.
      this.buffer = '';
    }
  }
}

export async function runCommand(terminals: TerminalService, o: RunCommandOptions, log: Pick<EventLog, 'append'> | undefined): Promise<RunCommandResult> {
  o.signal?.throwIfAborted();
  const started = Date.now();
  const shell = commandShell();
  const capture = new OutputCapture(o.outputCapBytes ?? DEFAULT_COMMAND_OUTPUT_CAP_BYTES);
  // undefined until the terminal id is known (output may arrive before spawn() resolves).
  let sink: RunLogSink | null | undefined = o.runId && log ? undefined : null;
  const pending: string[] = [];
  let announced = false;
  const early: string[] = [];
  const onOutput = (data: string) => {
    capture.append(data);
    if (o.onOutput) {
      // Output can arrive before spawn() resolves: hold it until onStart has been told the id.
      if (announced) o.onOutput(data);
      else early.push(data);
    }
    if (sink) sink.append(data);
    else if (sink === undefined) pending.push(data);
  };
  const streams = o.captureStreams ? await StreamCapture.create(o.outputCapBytes ?? DEFAULT_COMMAND_OUTPUT_CAP_BYTES) : null;
  const spawned = terminals.spawn({
    file: shell,
    args: streams ? streams.args(shell, o.command, o.stdinClosed === true) : ['-c', o.stdinClosed ? `exec </dev/null\n${o.command}` : o.command],
    cwd: o.cwd,
    kind: 'command',
    title: o.title ?? (o.command.length > 80 ? `${o.command.slice(0, 77)}…` : o.command),
    command: o.command,
    ...(o.env ? { env: o.env } : {}),
    ...(o.baseEnv ? { baseEnv: o.baseEnv } : {}),
    ...(o.owner ? { owner: o.owner } : {}),
    cols: o.cols ?? 120,
    rows: o.rows ?? 30,
    // Registered before the pty starts, so not even the first byte can be missed.
    onOutput,
  });
  const info = await spawned.catch(async (e: unknown) => {
    await streams?.dispose();
    throw e;
  });
  streams?.watch();
  const id = info.id;
  o.onStart?.(id);
  announced = true;
  for (const data of early.splice(0)) o.onOutput?.(data);
  if (o.runId && log) {
    const s = new RunLogSink(log, o.runId, id);
    for (const data of pending.splice(0)) s.append(data);
    sink = s;
  }

  let timedOut = false;
  let cancelled = false;
  let killTimer: NodeJS.Timeout | null = null;
  const end = (why: string) => {
    terminals.setProblem(id, why);
    try {
      terminals.kill(id, 'SIGTERM');
    } catch {
      // Closed by the user meanwhile: it is already gone.
      return;
    }
    killTimer ??= setTimeout(() => {
      try {
        terminals.kill(id, 'SIGKILL');
      } catch {
        // Closed meanwhile.
      }
    }, KILL_GRACE_MS);
  };
  const timer =
    o.timeoutMs !== undefined
      ? setTimeout(() => {
          timedOut = true;
          end(`Stopped after the ${formatMs(o.timeoutMs!)} time limit.`);
        }, o.timeoutMs)
      : null;
  const onAbort = () => {
    cancelled = true;
    end('Cancelled.');
  };
  o.signal?.addEventListener('abort', onAbort, { once: true });
  // A cancel that arrived while the terminal was starting (the pty host's first spawn can take
  // a moment) fired before the listener existed: honour it now, or the command would run to its end.
  if (o.signal?.aborted) onAbort();

  try {
    const final = await terminals.whenExited(id);
    return {
      terminalId: id,
      exitCode: final.exitCode,
      signal: final.signal,
      output: capture.text(),
      truncated: capture.truncated,
      ...(streams ? { streams: streams.finish() } : {}),
      timedOut,
      cancelled,
      durationMs: Date.now() - started,
    };
  } finally {
    terminals.offOutput(id, onOutput);
    sink?.flush();
    if (timer) clearTimeout(timer);
    if (killTimer) clearTimeout(killTimer);
    o.signal?.removeEventListener('abort', onAbort);
    await streams?.dispose();
  }
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

