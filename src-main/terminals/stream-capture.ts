/**
 * stdout and stderr of a command that runs in a terminal, captured apart. A pty merges the two
 * streams, so the command line runs inside a small wrapper: its stdout and stderr go into two
 * FIFOs, and one `tee` per FIFO copies the bytes both to the terminal (the live view keeps
 * showing everything) and to a capture file. The wrapper exits with the command's own status.
 *
 *     wrapper (sh)  ── "$shell" -c "$command" >out.fifo 2>err.fifo
 *        ├─ tee -a stdout <out.fifo        → terminal + capture file
 *        └─ tee -a stderr <err.fifo >&2    → terminal + capture file
 *
 * The command line is passed as an argument, never pasted into the wrapper's text, so no
 * quoting or parsing of it changes. Whatever wraps the command itself (an OS sandbox) wraps
 * the inner command line: only the two FIFO descriptors cross into it, so the capture needs no
 * writable path inside a sandbox. Ordering: each stream keeps its own order; between the two
 * streams the terminal shows what the tees deliver, as with any pipe. Programs see pipes, not a
 * terminal, on stdout/stderr (like the bash tool without a pty), so some buffer their output.
 *
 * Files, not memory, because the tees must not stall the command: a capture file over its limit
 * keeps its head and tail (the middle is counted and dropped while the command runs).
 */
import { closeSync, ftruncateSync, openSync, readSync, fstatSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

/**
 * How long the wrapper waits for the tees after the command ended. They finish at once unless
 * a background process the command started still holds its output open; the command's result
 * is not held up for such a process (as without the wrapper, where the shell's exit ends it).
 */
const TEE_WAIT_S = 1;
/** Without bash the wait is a loop of `sleep`s (each a process): this many steps of this long, TEE_WAIT_S in all. */
const TEE_WAIT_STEPS = 25;
const TEE_WAIT_STEP_S = '0.04';
/** How often a running command's capture files are checked against their limit. */
export const CAPTURE_POLL_MS = 250;

/**
 * The wrapper. Arguments: $1 the shell for the command line, $2 the capture folder, $3 the
 * command line. Without FIFOs (mkfifo missing or refused) the command runs as before, uncaptured.
 *
 * `bash`: the wrapper runs in bash. Each tee then says it is done on a third FIFO, which the
 * wrapper reads with a timeout: it ends the moment both are done, without starting a process.
 * A wrapper that looked for the done files and slept 40 ms (a `sleep` process) when they were
 * not there yet — the tees are rarely done the instant the command exits — added 40 ms and a
 * process to nearly every command, a check of `true` included (wrapper alone: 63 → 40 ms, load 11). The descriptor (9) is closed for the command and
 * the tees: only the two FIFOs cross into the command, as before.
 */
export function captureScript(stdinClosed: boolean, bash = false): string {
  const done = (file: string) => `: >"$fd_dir/${file}"${bash ? '; [ -z "$fd_fast" ] || printf x >&9' : ''}`;
  return [
    ...(stdinClosed ? ['exec </dev/null'] : []),
    'fd_sh=$1; fd_dir=$2; fd_cmd=$3',
    `if mkfifo "$fd_dir/out.fifo" "$fd_dir/err.fifo"${bash ? ' "$fd_dir/done.fifo"' : ''} 2>/dev/null; then`,
    ...(bash ? ['  fd_fast=', '  if exec 9<>"$fd_dir/done.fifo"; then fd_fast=1; fi'] : []),
    `  { tee -a "$fd_dir/stdout" <"$fd_dir/out.fifo" 9>&-; ${done('stdout.done')}; } &`,
    `  { tee -a "$fd_dir/stderr" <"$fd_dir/err.fifo" >&2 9>&-; ${done('stderr.done')}; } &`,
    '  "$fd_sh" -c "$fd_cmd" >"$fd_dir/out.fifo" 2>"$fd_dir/err.fifo" 9>&-',
    '  fd_rc=$?',
    ...(bash ? ['  if [ -n "$fd_fast" ]; then', `    read -r -n 2 -t ${TEE_WAIT_S} -u 9 fd_x`, '    exit $fd_rc', '  fi'] : []),
    '  fd_i=0',
    `  while [ $fd_i -lt ${TEE_WAIT_STEPS} ] && { [ ! -e "$fd_dir/stdout.done" ] || [ ! -e "$fd_dir/stderr.done" ]; }; do`,
    `    sleep ${TEE_WAIT_STEP_S}; fd_i=$((fd_i + 1))`,
    '  done',
    '  exit $fd_rc',
    'fi',
    'exec "$fd_sh" -c "$fd_cmd"',
  ].join('\n');
}

/** One capture file, kept under its limit while the command runs: head + tail, middle dropped. */
class CaptureFile {
  private head: Buffer | null = null;
  private tail: Buffer = Buffer.alloc(0);
  private dropped = 0;

  constructor(
    readonly path: string,
    private readonly capBytes: number,
  ) {}

  /** When the file grew past twice the cap: keep its head once and its tail, truncate it. */
  trim(): void {
    let fd: number;
    try {
      fd = openSync(this.path, 'r+');
    } catch {
      return; // Not created yet (the tee has not started), or already removed.
    }
    try {
      const size = fstatSync(fd).size;
      if (size <= this.capBytes * 2) return;
      const half = Math.floor(this.capBytes / 2);
      let skip = 0;
      if (this.head === null) {
        this.head = readAt(fd, 0, half);
        skip = half;
      }
      const tail = readAt(fd, size - half, half);
      this.dropped += this.tail.length + (size - skip - tail.length);
      this.tail = tail;
      // The tee appends (O_APPEND): after the truncation its next write starts the file again.
      ftruncateSync(fd, 0);
    } finally {
      closeSync(fd);
    }
  }

  /** The captured text: all of it, or head … tail with what was dropped in between. */
  read(): { text: string; truncated: boolean } | null {
    let rest: Buffer;
    try {
      const fd = openSync(this.path, 'r');
      try {
        rest = readAt(fd, 0, fstatSync(fd).size);
      } finally {
        closeSync(fd);
      }
    } catch {
      return null;
    }
    const half = Math.floor(this.capBytes / 2);
    let body = Buffer.concat([this.tail, rest]);
    let dropped = this.dropped;
    let head = this.head;
    if (head === null && body.length > this.capBytes) {
      head = body.subarray(0, half);
      body = body.subarray(half);
    }
    if (head !== null && body.length > half) {
      dropped += body.length - half;
      body = body.subarray(body.length - half);
    }
    if (head === null) return { text: body.toString('utf8'), truncated: false };
    return { text: `${head.toString('utf8')}\n… [${dropped} bytes of output omitted] …\n${body.toString('utf8')}`, truncated: true };
  }
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

export interface CapturedStreams {
  stdout: string;
  stderr: string;
  /** Either stream kept only its head and tail. */
  truncated: boolean;
}

/** The capture folder of one command: create, watch while it runs, read, remove. */
export class StreamCapture {
  private readonly out: CaptureFile;
  private readonly err: CaptureFile;
  private timer: NodeJS.Timeout | null = null;

  private constructor(
    readonly dir: string,
    capBytes: number,
  ) {
    this.out = new CaptureFile(join(dir, 'stdout'), capBytes);
    this.err = new CaptureFile(join(dir, 'stderr'), capBytes);
  }

  /** A private folder (0700, in the OS temp folder) for the FIFOs and capture files. */
  static async create(capBytes: number): Promise<StreamCapture> {
    return new StreamCapture(await mkdtemp(join(tmpdir(), 'flightdeck-cmd-')), capBytes);
  }

  /** Arguments for `shell -c <script> …`: the wrapper's $0..$3. */
  args(shell: string, command: string, stdinClosed: boolean): string[] {
    return ['-c', captureScript(stdinClosed, basename(shell) === 'bash'), 'flightdeck-command', shell, this.dir, command];
  }

  /** Starts keeping the capture files under their limit while the command runs. */
  watch(): void {
    this.timer ??= setInterval(() => {
      this.out.trim();
      this.err.trim();
    }, CAPTURE_POLL_MS);
  }

  /** What the command wrote to each stream; null when nothing was captured (no FIFOs). */
  finish(): CapturedStreams | null {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const out = this.out.read();
    const err = this.err.read();
    if (out === null && err === null) return null;
    return { stdout: out?.text ?? '', stderr: err?.text ?? '', truncated: (out?.truncated ?? false) || (err?.truncated ?? false) };
  }

  async dispose(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await rm(this.dir, { recursive: true, force: true });
  }
}
