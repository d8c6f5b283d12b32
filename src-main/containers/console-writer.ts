/**
 * Writes into an agent container's console (./core/console): a stdin-only `docker attach` of
 * the container's main process, opened on the first write and reopened after a failure. The
 * console is a view: writing to it never delays or fails the agent's work, so text is queued
 * while the attach opens and dropped (with a mark saying so) when the engine does not keep up.
 */
import type Docker from 'dockerode';
import { CONSOLE_PROBE, CONSOLE_PROBE_STATUS } from './core/console';
import { ENGINE_CALL_DEADLINE_MS, withDeadline } from './engines';

/** Text held while the attach opens or the engine lags; past it, text is dropped and marked. */
const MAX_PENDING_BYTES = 1024 * 1024;
/** How long closing waits for the last text to reach the engine. */
const CLOSE_WAIT_MS = 2_000;

/** The detach sequence the writer's attach asks for (Docker's default; Podman's unless its containers.conf says otherwise). */
const DETACH_KEYS = 'ctrl-p,ctrl-q';

/**
 * The engine reads an attach's stdin for its detach sequence and closes the attach when it meets
 * it: a command that printed Ctrl-P Ctrl-Q would cut the console off, losing the rest of what was
 * written with them. The attach asks for exactly that sequence (DETACH_KEYS), so showing every
 * Ctrl-P as `^P` means none can form.
 */
export function consoleSafe(text: string): string {
  return text.includes('\x10') ? text.split('\x10').join('^P') : text;
}

type Sink = NodeJS.WritableStream & { writableLength?: number; destroy?: () => void };

/** The container has no console to write to (its image has no `stty`): the writer stops for good. */
export class ConsoleOff extends Error {}

export class ConsoleWriter {
  private sink: Sink | null = null;
  private opening = false;
  private pending: string[] = [];
  private pendingBytes = 0;
  private dropped = false;
  private closed = false;
  private off = false;
  private ended: () => void = () => undefined;

  constructor(
    private readonly open: () => Promise<Sink>,
    private readonly onError: (e: unknown) => void = () => undefined,
    /** An attach that never answers (a wedged engine) would otherwise leave the writer opening forever, queuing and dropping everything after. */
    private readonly openDeadlineMs: number = ENGINE_CALL_DEADLINE_MS,
  ) {}

  write(raw: string): void {
    if (this.closed || this.off || !raw) return;
    const text = consoleSafe(raw);
    const sink = this.sink;
    if (sink && (sink.writableLength ?? 0) < MAX_PENDING_BYTES) {
      if (this.dropped) {
        this.dropped = false;
        sink.write('\n\x1b[33m[console: some output was dropped here; the transcript has all of it]\x1b[0m\n');
      }
      sink.write(text);
      return;
    }
    if (sink || this.pendingBytes + text.length > MAX_PENDING_BYTES) {
      this.dropped = true;
      return;
    }
    this.pending.push(text);
    this.pendingBytes += text.length;
    if (!this.opening) void this.connect();
  }

  private async connect(): Promise<void> {
    this.opening = true;
    const opening = this.open();
    try {
      const sink = await withDeadline(opening, this.openDeadlineMs, () => new Error(`the agent console's attach did not open within ${this.openDeadlineMs / 1000} s`));
      // Nothing is read from a stdin-only attach; reading lets its end be seen.
      (sink as { resume?: () => void }).resume?.();
      // The engine closed the attach (container stopped, engine restarted): the next write reopens.
      const lost = () => {
        if (this.sink === sink) this.sink = null;
      };
      sink.on('error', lost);
      sink.on('close', lost);
      sink.on('end', lost);
      this.sink = sink;
      const queued = this.pending.join('');
      this.pending = [];
      this.pendingBytes = 0;
      if (queued) sink.write(queued);
      // Closed while opening: what was written before the close still goes out.
      if (this.closed) this.finish();
    } catch (e) {
      // No console now (engine away, container gone): what was queued is dropped, the agent goes on.
      // An attach that opens after its deadline is closed at once (the next write opens a new one).
      opening.then((late) => late !== this.sink && late.destroy?.(), () => undefined);
      this.pending = [];
      this.pendingBytes = 0;
      if (e instanceof ConsoleOff) this.off = true;
      this.onError(e);
      if (this.closed) this.ended();
    } finally {
      this.opening = false;
    }
  }

  /**
   * Ends the writer once what was written has gone out (text written after is ignored); resolves
   * when it has, or after CLOSE_WAIT_MS at most (a console never holds up the end of a run).
   */
  close(): Promise<void> {
    this.closed = true;
    const done = new Promise<void>((resolve) => {
      this.ended = resolve;
      setTimeout(resolve, CLOSE_WAIT_MS).unref?.();
    });
    if (!this.opening) this.finish();
    return done;
  }

  private finish(): void {
    this.pending = [];
    const sink = this.sink;
    this.sink = null;
    const ended = this.ended;
    if (!sink) return ended();
    // Ending a stdin-only attach leaves the container's stdin open (StdinOnce is false): the console keeps running.
    sink.end(() => ended());
  }
}

/**
 * Whether the console of `container` can be written to (./core/console): one exec of
 * CONSOLE_PROBE, under a deadline (a wedged engine must not leave the question pending). Live or
 * off is an answer; anything else (no exit code, a main process not yet raw) throws, and the next
 * open asks again.
 */
export async function consoleLive(container: Docker.Container, deadlineMs: number = ENGINE_CALL_DEADLINE_MS): Promise<boolean> {
  let abandoned = false;
  let stream: (NodeJS.ReadableStream & { destroy?: () => void }) | undefined;
  const ask = async (): Promise<boolean> => {
    const ex = await container.exec({ Cmd: CONSOLE_PROBE, AttachStdout: true, AttachStderr: true });
    stream = (await ex.start({ hijack: true, stdin: false })) as typeof stream;
    if (abandoned) stream!.destroy?.();
    await new Promise<void>((resolve) => {
      stream!.on('end', resolve);
      stream!.on('close', resolve);
      stream!.on('error', () => resolve());
      stream!.resume();
    });
    const code = (await ex.inspect()).ExitCode;
    if (code === CONSOLE_PROBE_STATUS.live) return true;
    if (code === CONSOLE_PROBE_STATUS.off) return false;
    // No exit code, or the main process has not set its TTY raw yet: not an answer; the next open asks again.
    throw new Error(typeof code === 'number' ? 'the console is not ready yet' : 'the engine gave no exit code for the console check');
  };
  try {
    return await withDeadline(ask(), deadlineMs, () => new Error(`the console check got no answer within ${deadlineMs / 1000} s`));
  } finally {
    abandoned = true;
    stream?.destroy?.();
  }
}

/**
 * A writer into the console of `container` (which must have been created with the console); it
 * first asks whether the console is live. The attach names the detach sequence the writer
 * escapes (consoleSafe): Podman would otherwise use its containers.conf's, which may be another.
 */
export function containerConsole(container: Docker.Container, onError?: (e: unknown) => void): ConsoleWriter {
  // Asked at every open, not once: an open follows the first write or the loss of the attach,
  // and a lost attach may mean a restarted container whose new main process is not raw yet.
  return new ConsoleWriter(async () => {
    if (!(await consoleLive(container))) throw new ConsoleOff(`${container.id.slice(0, 12)} has no agent console: its image's stty is missing or refused a raw TTY`);
    return (await container.attach({ stream: true, stdin: true, stdout: false, stderr: false, hijack: true, detachKeys: DETACH_KEYS })) as unknown as Sink;
  }, onError);
}
