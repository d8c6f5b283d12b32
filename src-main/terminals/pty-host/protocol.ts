/**
 * Messages between the main process and the pty host child process (over Node's IPC channel
 * with V8 serialization, so output crosses as raw bytes: no JSON, no decoding in the host).
 * Every batch ends on a UTF-8 character boundary, and `offset` is where it starts in the
 * terminal's byte stream, so the main process can check that nothing was lost or repeated.
 * Flow control in the host counts bytes too; the main process turns the views' acknowledged
 * characters into bytes (see terminal-service.ts).
 */
export interface SpawnRequest {
  id: string;
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  /** What it is ('shell', 'command'), recorded with its session for crash recovery and logs. */
  kind?: string;
}

export type ToHost =
  | { t: 'spawn'; req: SpawnRequest }
  | { t: 'write'; id: string; data: string }
  | { t: 'resize'; id: string; cols: number; rows: number }
  /** Sends a signal to the terminal's whole process group. */
  | { t: 'signal'; id: string; signal: NodeJS.Signals }
  /**
   * How far the slowest live view has parsed, as a byte offset (`null`: nobody is watching, so
   * no flow control). The host compares it with what it sent and pauses or resumes the pty.
   */
  | { t: 'consumed'; id: string; offset: number | null }
  /** Asks for one terminal's throughput figures (the benchmark's per-hop breakdown). */
  | { t: 'stats'; id: string }
  /** Forget an exited terminal's host-side state. */
  | { t: 'release'; id: string }
  | { t: 'shutdown' };

export type FromHost =
  | { t: 'ready'; pid: number }
  | { t: 'spawned'; id: string; pid: number }
  | { t: 'spawnFailed'; id: string; message: string }
  | { t: 'data'; id: string; offset: number; data: Uint8Array }
  /** The pty was paused or resumed; `window` is the flow window in force (bytes). */
  | { t: 'flow'; id: string; paused: boolean; window: number }
  | { t: 'stats'; id: string; stats: HostTerminalStats | null }
  /** `stats`: the pty's final figures, since the host forgets it once released. */
  | { t: 'exit'; id: string; exitCode: number; signal: number; stats: HostTerminalStats };

/** What the host measured for one pty (times are epoch milliseconds with sub-millisecond precision). */
export interface HostTerminalStats {
  bytesRead: number;
  firstReadAt: number | null;
  lastReadAt: number | null;
  pauses: number;
  /** Total time the pty was paused by flow control. */
  pausedMs: number;
  window: number;
}
