/**
 * The CLI's standard streams when the reader goes away: `flightdeck chat … | head` closes the
 * pipe after ten lines, and a closed terminal turns every write into EIO. A write error on
 * stdout or stderr must not become an uncaught 'error' event (a stack trace, exit 1): the CLI
 * stops writing, asks the running command to stop, and ends with the exit code of a process
 * killed by SIGPIPE — what `yes | head` reports for its writer.
 */
import type { CliIo } from './main';

/** 128 + SIGPIPE (13): the shell's code for a writer whose reader closed the pipe. */
export const EXIT_BROKEN_PIPE = 141;

export interface GuardedStdio extends CliIo {
  /** True once stdout could not be written (its reader is gone). */
  readonly stdoutClosed: boolean;
}

type Stream = Pick<NodeJS.WriteStream, 'on' | 'write' | 'destroyed' | 'writable'>;

/**
 * Lines to stdout/stderr that never throw and never crash the process. `onStdoutGone` runs
 * once, on the first failed stdout write: the command should stop (its output has no reader).
 * Any write error counts as "gone" — EPIPE, EIO, ECONNRESET, a destroyed stream — since there
 * is nowhere left to report it.
 */
export function guardStdio(onStdoutGone: () => void, streams: { stdout: Stream; stderr: Stream } = process): GuardedStdio {
  let outClosed = false;
  let errClosed = false;
  const stdoutGone = () => {
    if (outClosed) return;
    outClosed = true;
    onStdoutGone();
  };
  // Registered for the process's lifetime: a late write (a logger, a prompt) must also be harmless.
  streams.stdout.on('error', stdoutGone);
  streams.stderr.on('error', () => {
    // stderr's reader is gone too: diagnostics have nowhere to go, which is no reason to fail.
    errClosed = true;
  });
  const write = (s: Stream, text: string, closed: () => boolean, gone: () => void) => {
    if (closed() || s.destroyed || !s.writable) return gone();
    try {
      s.write(text);
    } catch {
      // A synchronous failure (a destroyed handle) means the same as the 'error' event.
      gone();
    }
  };
  return {
    get stdoutClosed() {
      return outClosed;
    },
    out: (line) => write(streams.stdout, line + '\n', () => outClosed, stdoutGone),
    err: (line) =>
      write(
        streams.stderr,
        line + '\n',
        () => errClosed,
        () => {
          errClosed = true;
        },
      ),
  };
}
